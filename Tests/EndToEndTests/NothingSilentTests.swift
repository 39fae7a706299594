import Foundation
import Testing

/// Where toastscript cannot do what was asked, it says so (docs/lua.md, docs/events.md): a
/// `when` that names no field, a stage that took nothing, a mistyped name anywhere, a write to
/// a field no rule may write, the time a reloaded script sees, the very end of a run, dates in
/// the zone of `--tz`, and a restart that would write its records otherwise.
@Suite(.serialized) struct NothingSilentTests {
    private func run(_ arguments: [String], _ lines: [String] = [], environment: [String: String] = [:]) throws -> BinaryResult {
        try runBinary(arguments, stdin: lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n"), environment: environment)
    }

    private let metrics = (1...3).map { #"{"at":\#($0),"message":"cpu \#($0)","source":"metrics"}"# }
    private let metricsLimit = #"config{ metrics_limit = { stage = "rate_limit", limit = 1, when = { sorce = "metrics" } }, "#
        + #"stages = { "rules", "metrics_limit", "rate_limit", "priority", "style", "announce" } }"#

    // MARK: Match tables

    @Test func aWhenThatNamesNoFieldIsWarnedAboutAtLoadAndAtTheEnd() throws {
        let result = try run(["-q", "--format", "json", "-e", metricsLimit], metrics)
        #expect(result.status == 0)
        #expect(result.stderr == """
            toastscript: stage "metrics_limit": when: no field "sorce" (did you mean "source"?); an extra field of that name matches as written
            toastscript: warning: metrics_limit took none of 3 toasts (when: sorce = "metrics")

            """)
        let stats = try run(["--stats", "--format", "json", "-e", metricsLimit], metrics)
        #expect(stats.stderr.contains("stage metrics_limit  in 0, passed 0, skipped 3 (when), took none (when: sorce = \"metrics\")"))
        // Spelt right, nothing is said.
        let right = try run(["-q", "--format", "json", "-e", metricsLimit.replacingOccurrences(of: "sorce", with: "source")], metrics)
        #expect(right.stderr == "")
        // A spare is looked at too; an extra field far from any field's name is not a typo.
        let spare = try run(["-q", "--format", "json", "-e", "config{ rate_limit = { spare = { rol = 'error' }, when = { team = 'a' } } }"])
        #expect(spare.stderr == #"toastscript: stage "rate_limit": spare: no field "rol" (did you mean "role"?); an extra field of that name matches as written"#
                + "\n")
    }

    // MARK: Did you mean

    @Test(arguments: [
        (["--stat"], "toastscript: unknown option '--stat'; did you mean '--state' or '--stats'?"),
        (["--fo", "json"], "toastscript: unknown option '--fo'; did you mean '--follow' or '--format'?"),
        (["--nope"], "toastscript: unknown option '--nope'"),
        (["--input", "txt"], "toastscript: --input must be one of json, text, syslog, logfmt, not 'txt'; did you mean 'text'?"),
        (["--format", "jsn"], "toastscript: --format must be one of text, json, speech, html, not 'jsn'; did you mean 'json'?"),
    ])
    func optionsAndTheirValuesSuggestTheNameMeant(arguments: [String], message: String) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
    }

    @Test(arguments: [
        ("config{ dedupe = { window = 3 } }", #"config: unknown setting dedupe; did you mean "dedup"?"#),
        ("config{ rate_limit = { limt = 3 } }", #"config: unknown setting rate_limit.limt; did you mean "limit"?"#),
        ("config{ rate_limit = { spar = { source = 'x' } } }", #"config: unknown setting rate_limit.spar; did you mean "spare"?"#),
        ("config{ digest = { whn = { source = 'x' } } }", #"config: unknown setting digest.whn; did you mean "when"?"#),
        (#"config{ stages = { "rules", "dedpu" } }"#, #"config: stages: unknown stage "dedpu"; did you mean "dedup"?"#),
        (#"config{ e = { stage = "digets" } }"#, #"config: e.stage: unknown kind of stage "digets"; did you mean "digest"?"#),
        (#"config{ digest = { window = 1, when = { priority = { belw = 2 } } } }"#,
         #"config: unknown match operator digest.when.priority.belw; did you mean "below"?"#),
    ])
    func settingsSuggestTheNameMeant(script: String, message: String) throws {
        let result = try run(["-e", script])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("toastscript: -e:1: " + message + "\n"), "\(result.stderr)")
    }

    @Test func rolesSuggestTheNameMeantWhereverTheyAreRead() throws {
        let input = try run(["--clock", "stream"], [#"{"message":"x","role":"eror"}"#])
        #expect(input.stderr.hasPrefix(#"toastscript: input line 1: unknown role "eror"; did you mean "error"?"#))
        let rule = try run(["--clock", "stream", "--format", "json", "-e", #"rule("r", function(t) t.role = "eor" end)"#],
                           [#"{"message":"x"}"#])
        #expect(rule.stderr.hasPrefix(#"toastscript: rule "r": -e:1: unknown role "eor"; did you mean "error"? (input line 1)"#))
        let setting = try run(["-e", #"config{ e = { stage = "digest", when = { role = "error" } }, stages = { "e" } } role("eror", { priority = 2 })"#])
        #expect(setting.stderr.contains(#"role "eror" is defined, and its name is close to one that exists: did you mean "error"? (the definition stands)"#))
    }

    @Test func aStageDefinedByANameCloseToAnotherIsWarnedAbout() throws {
        let result = try run(["-q", "--format", "json", "-e",
                              #"config{ rate_limits = { stage = "rate_limit" }, stages = { "rules", "rate_limits", "priority" } }"#])
        #expect(result.status == 0)
        #expect(result.stderr == #"toastscript: stage "rate_limits" is defined, and its name is close to one that exists: did you mean "rate_limit"? (the definition stands)"#
                + "\n")
    }

    // MARK: Read-only fields

    @Test func aRuleThatWritesAFieldOfWhereTheToastCameFromFails() throws {
        let script = """
            config{ screens = { by = "user" } }
            rule("at", function(t) t.at = 5 end)
            rule("type", function(t) t.type = "tap" end)
            rule("id", function(t) t.id = "mine" end)
            rule("made_by", function(t) t.made_by = "me" end)
            rule("screen", function(t) t.screen = "b" end)
            rule("user", function(t) t.user = "c"; t.message = "moved" end)
            """
        let result = try run(["--clock", "stream", "--format", "json", "-e", script], [#"{"message":"x","user":"a"}"#])
        #expect(result.status == 65)
        #expect(result.stderr == """
            toastscript: rule "at": -e:2: field "at" is read-only: it is when the toast came in (input line 1)
            toastscript: rule "type": -e:3: field "type" is read-only: a toast is a show (input line 1)
            toastscript: rule "id": -e:4: field "id" is read-only: interactions find the toast by it (a table a rule returns may set it) (input line 1)
            toastscript: rule "made_by": -e:5: field "made_by" is read-only: it names the stage that made the toast (input line 1)
            toastscript: rule "screen": -e:6: field "screen" is read-only: screens are keyed by the field "user"; set that field instead (input line 1)
            toastscript: 5 script calls failed (--stats counts them by rule, hook and timer)

            """)
        // The field screens.by names stays writable.
        let records = try jsonRecords(result.stdout)
        #expect(records.first?["screen"] as? String == "c")
        #expect(records.first?["id"] as? String == "t1")
        #expect(records.first?["message"] as? String == "moved")
    }

    /// The fast path's switch takes `on` or `off`; anything else is said, and the path stays on.
    @Test func aFastPathSwitchItCannotReadIsSaid() throws {
        let result = try run(["--clock", "stream", "--format", "json", "-e", "rule(function(t) end)"], [#"{"message":"x"}"#],
                             environment: ["TOASTSCRIPT_LUA_FAST_PATH": "false"])
        #expect(result.status == 0)
        #expect(result.stderr == "toastscript: warning: TOASTSCRIPT_LUA_FAST_PATH must be on or off, not \"false\"; the fast path stays on\n")
    }

    // MARK: Time

    @Test func osDateAndOsTimeFollowTz() throws {
        let script = #"log(os.date("%Y-%m-%d %H:%M", 0), os.time{ year = 2025, month = 6, day = 24, hour = 14, min = 36, sec = 25 }, "#
            + #"os.time{ year = 2026, month = 14, day = 1 })"#
        let utc = try run(["--tz", "utc", "-e", script], environment: ["TZ": "America/New_York"])
        #expect(utc.stderr == "1970-01-01 00:00\t1750775785\t1801483200\n")
        let local = try run(["-e", script], environment: ["TZ": "America/New_York"])
        #expect(local.stderr == "1969-12-31 19:00\t1750790185\t1801501200\n")
        let missing = try run(["--tz", "utc", "-e", "os.time{ year = 2025, month = 6 }"])
        #expect(missing.stderr.contains("field 'day' missing in date table"))
    }

    @Test func aReloadedScriptSeesTheClockAndIsToldOfItsDroppedTimers() throws {
        let directory = NSTemporaryDirectory() + "toastscript-reload-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            log("loaded at " .. now())
            after(2, function() log("top-level timer at " .. now()) end)
            on("reload", function() log("reloaded at " .. now()) end)
            on("present", function(t) if t.message == "b" then after(50, function() log("never") end) end end)
            """.write(toFile: directory + "/r.lua", atomically: true, encoding: .utf8)
        let result = try runShell("""
            mkfifo '\(directory)/in'
            '\(binary)' --clock stream --format json '\(directory)/r.lua' < '\(directory)/in' > /dev/null 2> '\(directory)/err' & pid=$!
            exec 3> '\(directory)/in'
            printf '%s\\n' '{"at":0,"message":"a"}' '{"at":100,"message":"b"}' >&3
            for i in $(seq 200); do grep -q 'loaded at 0' '\(directory)/err' && break; sleep 0.02; done
            sleep 0.3
            kill -HUP $pid
            for i in $(seq 200); do grep -q 'reloaded at' '\(directory)/err' && break; sleep 0.02; done
            printf '%s\\n' '{"at":103,"message":"c"}' >&3
            exec 3>&-
            wait $pid; echo "status $?"
            cat '\(directory)/err'
            """)
        #expect(result.stdout == """
            status 0
            loaded at 0.0
            top-level timer at 2.0
            loaded at 100.0
            toastscript: note: scripts reloaded (SIGHUP); 1 Lua timer (after) of the old scripts was pending and is not kept (set them again in on("reload"))
            reloaded at 100.0
            top-level timer at 102.0

            """)
    }

    // MARK: The very end

    @Test func onFinishRunsOnceAfterTheLastRecordWithTheRunsTotals() throws {
        let script = """
            on("end", function() log("end") end)
            on("dismiss", function(t) log("dismiss " .. t.id) end)
            on("finish", function(t)
              local dropped = {}
              for stage, count in pairs(t.dropped) do dropped[#dropped + 1] = stage .. "=" .. count end
              table.sort(dropped)
              log("finish", t.toasts, t.shown, table.concat(dropped, ","), t.errors_shown, t.errors_dropped, t.rejected_lines)
              emit{ message = "too late" }
            end)
            on("finish", function() after(1, function() end) end)
            """
        let lines = [#"{"at":0,"message":"a"}"#, #"{"at":0,"message":"a"}"#, #"{"at":1,"message":"boom","role":"error"}"#, "bad"]
        let result = try run(["--format", "json", "-e", script], lines)
        #expect(result.status == 65)
        let stderr = result.stderr.split(separator: "\n").map(String.init)
        #expect(Array(stderr.prefix(6)) == [
            "toastscript: input line 4: invalid JSON at column 1: unexpected 'b', expected a value",
            "end", "dismiss t1", "dismiss t3",
            "finish\t3\t2\tdedup=1\t1\t0\t1",
            #"toastscript: -e:8: emit cannot be called in on("finish"): the run is over (finish)"#,
        ], "\(stderr)")
        #expect(stderr.contains(#"toastscript: -e:10: after cannot be called in on("finish"): the run is over (finish)"#))
        // Not on a --strict stop: nothing was ended.
        let strict = try run(["--strict", "--format", "json", "-e", script], lines)
        #expect(!strict.stderr.contains("finish\t"))
    }

    // MARK: The shape of the output

    @Test func aStateRefusesARestartThatWouldWriteOtherwise() throws {
        let directory = NSTemporaryDirectory() + "toastscript-shape-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events = directory + "/e.jsonl"
        try (1...3).map { #"{"at":\#($0),"message":"m\#($0)"}"# }.joined(separator: "\n").appending("\n")
            .write(toFile: events, atomically: true, encoding: .utf8)
        let state = directory + "/s", output = directory + "/out"
        let first = try runBinary(["--state", state, "--format", "json", "--output", output, "--events", events])
        #expect(first.status == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        for (options, message) in [
            (["--format", "text", "--output", output], "the state was written with --format json; this run asks for --format text"),
            (["--format", "json", "--output", directory + "/other"],
             "the state was written to --output \(output); this run writes to --output \(directory)/other"),
            (["--format", "json", "--output", output, "--tz", "utc"], "the state was written with --tz local; this run asks for --tz utc"),
            (["--format", "json"], "the state was written to --output \(output); this run writes to stdout"),
        ] {
            let again = try runBinary(["--state", state, "--events", events] + options)
            #expect(again.status == 1)
            #expect(again.stderr == "toastscript: --state \(state): \(message); it was left as it is, and --state-reset starts afresh\n")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == written, "nothing written")
        }
        let same = try runBinary(["--state", state, "--format", "json", "--output", output, "--events", events])
        #expect(same.status == 0, "\(same.stderr)")
        // The same file by another name (a link, a path through `..`) is the same output.
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: output)
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
        for name in [directory + "/link", directory + "/sub/../out"] {
            let again = try runBinary(["--state", state, "--format", "json", "--output", name, "--events", events])
            #expect(again.status == 0, "\(name): \(again.stderr)")
        }
    }
}
