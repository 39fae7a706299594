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

    @Test func sigintEndsAStreamClockRunThatWaitsForInput() throws {
        let run = try withFIFO("""
            "$bin" --format json --output "$out" < "$fifo" & pid=$!
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
}
