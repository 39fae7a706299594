import Foundation
import Testing

/// A live run waits on input that stays open (a FIFO here, as with `tail -f`): a signal must end
/// it at once, timers must fire while it waits, and the wall clock must stamp what happens.
@Suite(.serialized) struct LiveRunTests {
    /// Runs `body` (bash) with `$fifo` made and `$out` naming an output file; the FIFO is held
    /// open for writing on descriptor 3 by the script itself. Returns stdout and the records.
    private func withFIFO(_ body: String) throws -> (stdout: String, stderr: String, records: [String]) {
        let directory = NSTemporaryDirectory() + "toastscript-live-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            fifo='\(directory)/in'; out='\(directory)/out'; bin='\(binary)'
            mkfifo "$fifo"
            ms() { echo $(( $(date +%s%N) / 1000000 )); }
            \(body)
            """
        let result = try runShell(script)
        let records = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
        return (result.stdout, result.stderr, records.split(separator: "\n").map(String.init))
    }

    /// The wall-clock time of a record, from its `"t":` field.
    private func time(_ record: String) -> Double {
        let start = record.range(of: #""t":"#)!.upperBound
        return Double(record[start...].prefix { $0 != "," }) ?? -1
    }

    @Test func sighupReloadsTheScriptsAndKeepsWhatTheRunHolds() throws {
        let run = try withFIFO("""
            rules="$(dirname "$fifo")/rules.lua"; err="$(dirname "$fifo")/err"
            echo 'rule("tag", function(t) t.tag = "v1" end)' > "$rules"
            "$bin" --clock stream --format json --output "$out" "$rules" < "$fifo" 2> "$err" & pid=$!
            exec 3> "$fifo"
            waitfor() { for i in $(seq 200); do grep -q "$1" "$2" 2>/dev/null && return; sleep 0.02; done; echo "never: $1"; }
            echo '{"message":"A"}' >&3
            waitfor '"id":"t1"' "$out"
            printf '%s\\n' 'rule("tag", function(t) t.tag = "v2" end)' 'config{ dedup = { window = 10 } }' \\
                'emit{ message = "rules reloaded" }' > "$rules"
            kill -HUP $pid
            waitfor 'reloaded' "$err"
            echo '{"message":"A","at":8}' >&3
            echo '{"message":"B","at":9,"policy":"replace"}' >&3
            waitfor '"id":"t3"' "$out"
            echo 'rule(' > "$rules"
            kill -HUP $pid
            waitfor 'reload failed' "$err"
            echo '{"message":"C","at":10,"policy":"replace"}' >&3
            exec 3>&-
            wait $pid; echo "status $?"
            cat "$err"
            """)
        #expect(run.stdout.hasPrefix("status 65\n"), "\(run.stdout)")
        #expect(run.stdout.contains("toastscript: note: scripts reloaded (SIGHUP)\n"))
        #expect(run.stdout.contains("toastscript: reload failed, the scripts loaded before go on: "), "\(run.stdout)")
        #expect(run.stdout.contains("toastscript: 1 script call failed"))
        let lines = run.records.filter { !$0.contains(#""event":"dismiss""#) }
        #expect(lines.count == 5, "\(run.records)")
        guard lines.count == 5 else { return }
        // Before: the old rule. The reload's top level ran again (its emit came in at once).
        #expect(lines[0].contains(#""id":"t1","message":"A","#) && lines[0].hasSuffix(#""extra":{"tag":"v1"}}"#))
        #expect(lines[1].contains(#""id":"e1","message":"rules reloaded","#) && lines[1].hasSuffix(#""extra":{"tag":"v2"}}"#))
        // Dedup kept its memory of A at 0 and took the new window: A at 8 is a duplicate.
        #expect(lines[2] == #"{"event":"drop","t":8,"id":"t2","message":"A","role":"info","stage":"dedup","reason":"duplicate","of":"t1"}"#)
        #expect(lines[3].contains(#""id":"t3","message":"B","#) && lines[3].hasSuffix(#""extra":{"tag":"v2"}}"#))
        // A broken script on the second reload: the rules loaded before still run.
        #expect(lines[4].contains(#""id":"t4","message":"C","#) && lines[4].hasSuffix(#""extra":{"tag":"v2"}}"#))
    }

    /// The rule writer's case: escalation counters in `store` go on across a reload, where a
    /// local table would start again; what cannot be kept is named by its key path.
    @Test func aReloadKeepsStoreAndNamesWhatItCannotKeep() throws {
        let run = try withFIFO("""
            rules="$(dirname "$fifo")/rules.lua"; err="$(dirname "$fifo")/err"
            cat > "$rules" <<'EOF'
            store.warnings = store.warnings or 0
            store.loads = (store.loads or 0) + 1
            store.handlers = { on_error = function() end, names = { "a", "b" } }
            store["odd key"] = { [true] = 1 }
            rule(function(t)
              if t.role ~= "warning" then return end
              store.warnings = store.warnings + 1
              if store.warnings >= 3 then t.role = "error" end
              t.loads = store.loads
            end)
            EOF
            "$bin" --clock stream --format json --output "$out" "$rules" < "$fifo" 2> "$err" & pid=$!
            exec 3> "$fifo"
            waitfor() { for i in $(seq 200); do grep -q "$1" "$2" 2>/dev/null && return; sleep 0.02; done; echo "never: $1"; }
            echo '{"message":"W1","role":"warning"}' >&3
            echo '{"message":"W2","role":"warning","at":10}' >&3
            waitfor '"id":"t2"' "$out"
            kill -HUP $pid
            waitfor 'reloaded' "$err"
            echo '{"message":"W3","role":"warning","at":20}' >&3
            exec 3>&-
            wait $pid; echo "status $?"
            sort "$err"
            """)
        #expect(run.stdout == """
            status 65
            toastscript: 2 script calls failed (--stats counts them by rule, hook and timer)
            toastscript: note: scripts reloaded (SIGHUP)
            toastscript: store.handlers.on_error is a function, which cannot be kept (reload)
            toastscript: store["odd key"] has a key of type boolean; keys are strings or integers (reload)

            """)
        let presents = run.records.filter { $0.contains(#""event":"present""#) }
        #expect(presents.count == 3, "\(run.records)")
        guard presents.count == 3 else { return }
        // The third warning, after the reload, is the third counted: an error, in the second load.
        #expect(presents[0].contains(#""message":"W1","role":"warning""#) && presents[0].hasSuffix(#""extra":{"loads":1}}"#))
        #expect(presents[2].contains(#""message":"W3","role":"error""#) && presents[2].hasSuffix(#""extra":{"loads":2}}"#),
                "\(presents[2])")
    }

    @Test func aReloadThatAsksForAnotherOrderOfStagesSaysItWaitsForARestart() throws {
        let run = try withFIFO("""
            rules="$(dirname "$fifo")/rules.lua"; err="$(dirname "$fifo")/err"
            : > "$rules"
            "$bin" --clock stream --format json --output "$out" "$rules" < "$fifo" 2> "$err" & pid=$!
            exec 3> "$fifo"
            waitfor() { for i in $(seq 200); do grep -q "$1" "$2" 2>/dev/null && return; sleep 0.02; done; echo "never: $1"; }
            echo '{"message":"A"}' >&3
            waitfor '"id":"t1"' "$out"
            echo 'config{ stages = { "rules", "priority", "style", "announce" } }' > "$rules"
            kill -HUP $pid
            waitfor 'reloaded' "$err"
            echo '{"message":"A","at":1}' >&3
            exec 3>&-
            wait $pid; echo "status $?"
            cat "$err"
            """)
        #expect(run.stdout == """
            status 0
            toastscript: reload: the scripts ask for another order of stages (rules, priority, style, announce); it takes effect when the run starts again
            toastscript: note: scripts reloaded (SIGHUP)

            """)
        // Dedup is still in place: the repeat is dropped.
        #expect(run.records.contains(#"{"event":"drop","t":1,"id":"t2","message":"A","role":"info","stage":"dedup","reason":"duplicate","of":"t1"}"#), "\(run.records)")
    }

    @Test func sigtermEndsAWallClockRunAtOnceWithTheSignalsTime() throws {
        let run = try withFIFO("""
            "$bin" --format json --clock wall --output "$out" < "$fifo" 2> /dev/null & pid=$!
            exec 3> "$fifo"
            printf '{"message":"short","duration":0.3}\\n{"message":"sticky","duration":null}\\n' >&3
            sleep 1.2
            before=$(ms); kill -TERM $pid; wait $pid; status=$?; after=$(ms)
            echo "status $status waited $(( after - before ))"
            exec 3>&-
            """)
        let words = run.stdout.split(separator: " ")
        #expect(words.prefix(2) == ["status", "143"])
        // Noticed within 100 ms by the contract; allow for a busy machine.
        #expect((Int(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 9999) < 500, "\(run.stdout)")
        #expect(run.records.count == 4, "\(run.records)")
        guard run.records.count == 4 else { return }
        // The short toast timed out while the run waited for input, on time.
        #expect(run.records[1].hasPrefix(#"{"event":"dismiss","#) && run.records[1].contains(#""id":"t1","reason":"timeout","shown":0.3}"#))
        #expect(run.records[2].contains(#""event":"present""#) && run.records[2].contains(#""id":"t2""#))
        // The sticky one ends with the signal, stamped with the signal's wall-clock time.
        #expect(run.records[3].contains(#""id":"t2","reason":"host_removed""#))
        #expect(time(run.records[3]) >= 1.1 && time(run.records[3]) < 3, "\(run.records[3])")
    }

    /// Live JSON with its own times follows the wall clock between events: the timeout of a
    /// toast stamped 100 runs out at 101 while the log is quiet, written then, not when the
    /// next line comes; a line stamped later than the clock is processed at its own time; a
    /// signal ends the rest at the followed time.
    @Test func theFollowClockRunsTimersInRealTimeWhileTheLogIsQuiet() throws {
        let run = try withFIFO("""
            "$bin" --format json --output "$out" < "$fifo" 2> "$out.err" & pid=$!
            exec 3> "$fifo"
            printf '{"at":100,"message":"install jq","duration":1}\\n' >&3
            sleep 1.6
            echo "during:"; cat "$out"
            printf '{"at":103,"message":"sticky","duration":null}\\n' >&3
            sleep 1
            kill -TERM $pid; wait $pid; echo "status $?"
            cat "$out.err"
            exec 3>&-
            """)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "during:")
        #expect(lines.contains(#"{"event":"dismiss","t":101,"id":"t1","reason":"timeout","shown":1}"#), "\(run.stdout)")
        #expect(lines.contains("status 143"))
        #expect(lines.last == "toastscript: note: reading live input, so the clock follows it: events at their own times, "
                + "timers in real time while it is quiet (--clock stream waits for the next event)")
        #expect(run.records.count == 4)
        #expect(run.records[2].contains(#""t":103,"id":"t2""#), "\(run.records)")
        // The sticky toast ends with the signal, about a second after it came.
        #expect(run.records[3].contains(#""id":"t2","reason":"host_removed""#))
        #expect(time(run.records[3]) >= 103.8 && time(run.records[3]) < 106, "\(run.records[3])")
    }

    /// The same on a terminal (a pty made by `script`): the timeout is written while the
    /// terminal is quiet.
    @Test func theFollowClockOnATerminal() throws {
        let run = try withFIFO("""
            ( printf '{"at":7,"message":"on a tty","duration":0.5}\\n'; sleep 1.5; cp "$out" "$out.during"; printf '\\004' ) \\
                | script -qec "'$bin' --format json --output '$out'" /dev/null > /dev/null
            echo "status $?"; cat "$out.during"
            """)
        // Before the terminal's input ended (^D), the timeout was written.
        #expect(run.stdout.hasPrefix("status 0\n"), "\(run.stderr)")
        #expect(run.stdout.hasSuffix(#"{"event":"dismiss","t":7.5,"id":"t1","reason":"timeout","shown":0.5}"# + "\n"), "\(run.stdout)")
        #expect(run.records.count == 2)
        #expect(run.records.last == #"{"event":"dismiss","t":7.5,"id":"t1","reason":"timeout","shown":0.5}"#)
    }

    @Test func sigintEndsAStreamClockRunThatWaitsForInput() throws {
        let run = try withFIFO("""
            "$bin" --clock stream --format json --output "$out" < "$fifo" & pid=$!
            exec 3> "$fifo"
            printf '{"message":"A","duration":null}\\n' >&3
            sleep 0.5
            before=$(ms); kill -INT $pid; wait $pid; status=$?; after=$(ms)
            echo "status $status waited $(( after - before ))"
            exec 3>&-
            """)
        let words = run.stdout.split(separator: " ")
        #expect(words.prefix(2) == ["status", "130"])
        #expect((Int(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 9999) < 500, "\(run.stdout)")
        #expect(run.records.last == #"{"event":"dismiss","t":0,"id":"t1","reason":"host_removed","shown":0}"#)
    }

    @Test func liveTextInputUsesTheWallClockAndSaysSo() throws {
        let run = try withFIFO("""
            "$bin" --input text --format json --no-drain --output "$out" < "$fifo" 2> "$out.err" & pid=$!
            exec 3> "$fifo"
            echo 'first line' >&3
            sleep 0.6
            echo 'second line' >&3
            sleep 0.3
            exec 3>&-
            wait $pid; echo "status $?"; cat "$out.err"
            """)
        #expect(run.stdout == "status 0\n"
            + "toastscript: note: reading text from a pipe or terminal, so times come from the wall clock "
            + "(--clock stream keeps every line at time 0)\n")
        let presents = run.records.filter { $0.contains(#""event":"present""#) }
        #expect(presents.count == 1)
        // The second line arrived about 0.6 s after the first: it waits behind it from then.
        let second = run.records.first { $0.contains(#""id":"t2""#) }
        #expect(second.map(time) ?? 0 >= 0.5, "\(run.records)")
    }

    @Test func wallClockTextShowsTheTimeOfDay() throws {
        let run = try withFIFO("""
            TZ=UTC "$bin" --clock wall --no-drain --color never < "$fifo" > "$out" & pid=$!
            exec 3> "$fifo"
            echo '{"message":"Saved","role":"success"}' >&3
            sleep 0.3
            exec 3>&-
            wait $pid
            """)
        #expect(run.records.count == 2)
        let pattern = try Regex(#"^\d\d:\d\d:\d\d\.\d\d\d  ✔ Saved  \(success, t1\)$"#)
        #expect(run.records.first.map { $0.wholeMatch(of: pattern) != nil } == true, "\(run.records)")
    }

    @Test func replayGivesTheStreamRecordsAtTheStreamsPace() throws {
        // app-session.jsonl spans 25 s of stream time, and its drain runs to about 29 s.
        let stream = try runBinary(["--format", "json", "examples/app-session.lua"], stdinFile: "examples/app-session.jsonl")
        let started = Date()
        let replay = try runBinary(["--format", "json", "--clock", "replay", "--speed", "10", "examples/app-session.lua"],
                                   stdinFile: "examples/app-session.jsonl")
        let elapsed = Date().timeIntervalSince(started)
        #expect(replay.status == 0)
        #expect(replay.stdout == stream.stdout)
        #expect(replay.stderr == stream.stderr)
        // About a tenth of the stream's length; loosely, on a shared machine.
        #expect(elapsed > 2.0 && elapsed < 6.0, "took \(elapsed) s")
        #expect(try runBinary(["--speed", "2"]).stderr.hasPrefix("toastscript: --speed needs --clock replay"))
        #expect(try runBinary(["--clock", "replay", "--speed", "0"]).status == 2)
    }

    /// A recorded log with a day-long quiet stretch replays in seconds: the stretch in which
    /// nothing is on screen is waited out for --max-gap at most, and the records keep the
    /// stream's times. A stretch with a toast on screen is waited out in full.
    @Test func replaySkipsIdleTimeButNotAToastOnScreen() throws {
        let events = [#"{"at":0,"message":"a","duration":0.5}"#, #"{"at":86400,"message":"b","duration":0.5}"#,
                      #"{"at":86400.2,"message":"c","duration":0.3}"#].joined(separator: "\n") + "\n"
        let stream = try runBinary(["--format", "json"], stdin: events)
        let started = Date()
        let replay = try runBinary(["--format", "json", "--clock", "replay", "--max-gap", "0.5"], stdin: events)
        let elapsed = Date().timeIntervalSince(started)
        #expect(replay.stdout == stream.stdout)
        #expect(replay.stderr == "toastscript: note: the replay skipped 1 d of idle time (nothing on screen, waiting or held "
                + "for longer than --max-gap 0.5 s)\n")
        #expect(elapsed < 10, "a day replayed in \(elapsed) s")
        // A sticky toast on screen: the 1.5 s to the next event are waited out whole.
        let sticky = [#"{"at":0,"message":"a","duration":null}"#, #"{"at":1.5,"type":"dismiss_all"}"#].joined(separator: "\n") + "\n"
        let start = Date()
        let held = try runBinary(["--format", "json", "--clock", "replay", "--max-gap", "0.2"], stdin: sticky)
        #expect(Date().timeIntervalSince(start) >= 1.4)
        #expect(held.stderr == "")
        #expect(try runBinary(["--clock", "replay", "--max-gap", "-1"]).status == 2)
    }
}
