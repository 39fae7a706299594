import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// The command line contract (docs/events.md: bad lines, formats and exit status;
/// toastscript(1): the options), run in-process.
@Suite struct CommandLineTests {
    @Test func badLinesAreRejectedWithTheirLineNumberAndTheRestFlows() {
        let result = runCLI(["--format", "json"], input: lines(
            #"{"message":"A"}"#, "", "oops", #"{"message":"B","role":"nope","at":1}"#, "   ",
            #"{"message":"C","at":2}"#))
        #expect(result.status == 65)
        #expect(result.stderr == [
            "toastscript: input line 3: invalid JSON at column 1: unexpected 'o', expected a value",
            "toastscript: input line 4: unknown role \"nope\" (known: error, info, success, warning)",
            "toastscript: 2 input lines rejected (--dead-letter FILE keeps rejected lines; --stats counts them)",
        ])
        #expect(result.lines == [
            present("0", "t1", "A"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t3", "C", waited: "1"),
            dismiss("6", "t3", "timeout", shown: "3"),
        ])
    }

    @Test func aLineOverTheLimitIsRejectedAndReadingGoesOnAtTheNextLine() {
        let long = #"{"message":""# + String(repeating: "x", count: 5_000) + #""}"#
        let result = runCLI(["--format", "json", "--max-line-bytes", "100"],
                            input: lines(#"{"message":"A"}"#, long, String(repeating: "z", count: 600_000), #"{"message":"B","at":1}"#)
                                + String(repeating: "y", count: 300))
        #expect(result.status == 65)
        #expect(result.stderr == [
            "toastscript: input line 2: line of 5014 bytes is longer than --max-line-bytes (100)",
            "toastscript: input line 3: line of 600000 bytes is longer than --max-line-bytes (100)",
            "toastscript: input line 5: line of 300 bytes is longer than --max-line-bytes (100)",
            "toastscript: 3 input lines rejected (--dead-letter FILE keeps rejected lines; --stats counts them)",
        ])
        #expect(result.lines.filter { $0.contains("present") }.count == 2)
    }

    @Test func aRejectedLineDoesNotMoveTheClock() {
        let result = runCLI(["--format", "json"], input: lines(
            #"{"message":"A"}"#, #"{"at":10,"message":""}"#, #"{"type":"tap"}"#))
        #expect(result.lines == [present("0", "t1", "A"), dismiss("0", "t1", "tap", shown: "0")])
    }

    @Test func deadLetterHoldsExactlyTheRejectedLines() throws {
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/dead.jsonl"
        let input = "{\"message\":\"ok\"}\nnot json\r\n{\"message\":5}\n\n{\"type\":\"tap\"}\n[1]"
        let result = runCLI(["--dead-letter", path], input: input)
        #expect(result.status == 65)
        let dead = try String(contentsOfFile: path, encoding: .utf8)
        #expect(dead == "not json\r\n{\"message\":5}\n[1]\n")
    }

    @Test func strictStopsAtTheFirstRejectedLineAndEndsEveryToast() {
        let result = runCLI(["--format", "json", "--strict"], input: lines(
            #"{"message":"A"}"#, #"{"message":"B","at":1}"#, "bad", #"{"message":"C","at":2}"#))
        #expect(result.status == 65)
        #expect(result.stderr == ["toastscript: input line 3: invalid JSON at column 1: unexpected 'b', expected a value",
                                  "toastscript: stopped by --strict at the first rejected line; the rest of the input was not read",
                                  "toastscript: 1 input line rejected (--dead-letter FILE keeps rejected lines; --stats counts them)"])
        #expect(result.lines == [
            present("0", "t1", "A"),
            dismiss("1", "t1", "host_removed", shown: "1"),
            drop("1", "t2", "B", stage: "host", "host_removed"),
        ])
    }

    @Test func lateEventsHappenAtTheClockAndAreCounted() {
        let result = runCLI(["--format", "json", "--stats"], input: lines(
            #"{"message":"A","at":5}"#, #"{"type":"tap","at":2}"#, #"{"message":"B"}"#))
        #expect(result.status == 0)
        #expect(result.lines == [
            present("5", "t1", "A"),
            dismiss("5", "t1", "tap", shown: "0"),
            present("5", "t2", "B"),
            dismiss("8", "t2", "timeout", shown: "3"),
        ])
        #expect(result.stderr.contains("  late events       1"))
    }

    @Test func timersDueAtAnEventsTimeFireBeforeIt() {
        // The timeout at 3 fires before the tap at 3, so the tap finds B.
        let records = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"B"}"#, #"{"type":"tap","at":3}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t2", "B", waited: "3"),
            dismiss("3", "t2", "tap", shown: "0"),
        ])
    }

    @Test func statsCountEveryStage() {
        let result = runCLI(["--stats", "--format", "json"], input: lines(
            #"{"message":"A"}"#, #"{"message":"A"}"#, "x", #"{"type":"tap"}"#))
        #expect(Array(result.stderr.prefix(17)) == [
            "toastscript: input line 3: invalid JSON at column 1: unexpected 'x', expected a value",
            "toastscript: stats",
            "  lines read        4 (0 blank)",
            "  events            3",
            "  rejected lines    1",
            "  late events       0",
            "  script errors     0",
            "  toasts in         2",
            "  stage rules       in 2, passed 2",
            "  stage dedup       in 2, passed 1, dropped duplicate=1",
            "  stage rate_limit  in 1, passed 1",
            "  stage priority    in 1, passed 1",
            "  stage style       in 1, passed 1",
            "  stage announce    in 1, passed 1",
            "  stage host        in 1, presented 1, dismissed tap=1",
            "  errors            0 shown, 0 dropped",
            "  records           3 (3 lines written)",
        ])
        #expect(result.stderr.dropLast().last?.hasPrefix("  events/s") == true)
        #expect(result.stderr.last == "toastscript: 1 input line rejected (--dead-letter FILE keeps rejected lines)")
    }

    /// A custom build (`Toastscript.main(registry:name:version:)`) is its own tool: its name
    /// in help, version and every message; and the stats' columns fit its stages' names.
    @Test func aCustomBuildGoesByItsOwnName() throws {
        final class Passing: ToastStage {
            func process(_ toast: inout Toast, context: StageContext) -> StageVerdict { .pass }
        }
        var registry = StageRegistry.builtIn
        try registry.register("a_rather_long_stage_name") { _ in Passing() }
        func run(_ arguments: [String], input: String = "", scripts: [String] = []) -> CLIResult {
            runCLI(arguments, input: input, scripts: scripts, registry: registry, programName: "my-toastscript",
                   programVersion: "1.2.0")
        }
        let help = run(["--help"]).stdout
        #expect(help.hasPrefix("my-toastscript: run toast events through Lua rules"))
        #expect(help.contains("Usage: my-toastscript [OPTIONS] [SCRIPT.lua ...] < events.jsonl"))
        #expect(help.contains("       my-toastscript diff OLD NEW [OPTIONS] < events.jsonl"))
        #expect(!help.contains("  toastscript "), "the examples use the custom build's name")
        #expect(run(["--version"]).stdout.hasPrefix("my-toastscript 1.2.0 (toastscript \(Toastscript.version), Lua 5.4"))
        #expect(run(["--zzzzzz"]).stderr.first == "my-toastscript: unknown option '--zzzzzz'")
        #expect(run(["diff", "--help"]).stdout.hasPrefix("my-toastscript diff: run the same events"))
        let stats = run(["--stats"], input: "{\"message\":\"A\"}\nx\n",
                        scripts: ["config{ stages = { 'rules', 'a_rather_long_stage_name', 'dedup' } }"]).stderr
        #expect(stats.first == "my-toastscript: input line 2: invalid JSON at column 1: unexpected 'x', expected a value")
        #expect(stats.contains("my-toastscript: stats"))
        let rows = stats.filter { $0.hasPrefix("  ") }
        #expect(rows.contains("  stage a_rather_long_stage_name  in 1, passed 1"))
        #expect(rows.contains("  stage rules                     in 1, passed 1"))
        #expect(rows.count >= 10)
        #expect(rows.allSatisfy { row in
            let value = row.index(row.startIndex, offsetBy: 34)
            return row[row.index(before: value)] == " " && row[value] != " "
        }, "every value starts in one column")
        #expect(stats.last == "my-toastscript: 1 input line rejected (--dead-letter FILE keeps rejected lines)")
    }

    @Test func textInputMakesEveryLineAShow() {
        let result = runCLI(["--input", "text", "--format", "json", "--clock", "stream"], input: "Build started\r\n\nTests failed\n")
        #expect(result.lines == [
            present("0", "t1", "Build started"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t2", "Tests failed", waited: "3"),
            dismiss("6", "t2", "timeout", shown: "3"),
        ])
    }

    @Test func textFormatIsForPeopleAndShowsDropsOnlyWhenVerbose() {
        let input = lines(#"{"message":"Saved","role":"success","subtitle":"Report.pdf"}"#, #"{"message":"Saved","role":"success","at":1}"#)
        #expect(runCLI([], input: input).lines == [
            "        0  ✔ Saved — Report.pdf  (success, t1)",
            "        3    t1 dismissed: timeout after 3s",
        ])
        #expect(runCLI(["--verbose"], input: input).lines == [
            "        0  ✔ Saved — Report.pdf  (success, t1)",
            "        1    t2 dropped by host: repeat — \"Saved\"",
            "        3    t1 dismissed: timeout after 3s",
        ])
    }

    @Test func colorFollowsTheTerminalNoColorAndTheOption() {
        let input = lines(#"{"message":"Oops","role":"error"}"#)
        #expect(runCLI(["--color", "always"], input: input).lines[0] == "        0  \u{1B}[31m✖ Oops\u{1B}[0m  (error, t1)")
        #expect(runCLI(["--color", "always"], input: input).lines[1] == "        3  \u{1B}[2m  t1 dismissed: timeout after 3s\u{1B}[0m")
        #expect(runCLI([], input: input).lines[0] == "        0  ✖ Oops  (error, t1)")
        #expect(runCLI(["--color", "never"], input: input).lines[0] == "        0  ✖ Oops  (error, t1)")
    }

    @Test func speechFormatSaysEachPresentedToast() {
        let result = runCLI(["--format", "speech"], input: lines(
            #"{"message":"No connection.","subtitle":"Try again.","role":"error"}"#, #"{"message":"Done","at":9}"#))
        #expect(result.stdout == "Error: No connection., Try again.\nDone\n")
    }

    @Test func outputAppendsToAFileAndFailsEarlyOnABadPath() throws {
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/out.jsonl"
        _ = runCLI(["--format", "json", "--output", path, "--fsync"], input: lines(#"{"message":"A"}"#))
        _ = runCLI(["--format", "json", "--output", path], input: lines(#"{"message":"B"}"#))
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.split(separator: "\n").count == 4)
        let result = runCLI(["--output", directory], input: lines(#"{"message":"A"}"#))
        #expect(result.status == 1)
        #expect(result.stderr == ["toastscript: cannot open \(directory): Is a directory"])
        #expect(result.stdout.isEmpty)
    }

    @Test func eventsFileIsReadInsteadOfStdin() throws {
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/events.jsonl"
        try lines(#"{"message":"From file"}"#).write(toFile: path, atomically: true, encoding: .utf8)
        let result = runCLI(["--events", path, "--format", "speech"], input: lines(#"{"message":"From stdin"}"#))
        #expect(result.stdout == "From file\n")
        let missing = runCLI(["--events", path + ".nope"], input: "")
        #expect(missing.status == 1)
        #expect(missing.stderr == ["toastscript: cannot open \(path).nope: No such file or directory"])
    }

    @Test func usageErrorsExitTwoWithAUsageLine() {
        let result = runCLI(["--fromat", "json"], input: "")
        #expect(result.status == 2)
        #expect(result.stderr == [
            "toastscript: unknown option '--fromat'; did you mean '--format'?",
            "Usage: toastscript [OPTIONS] [SCRIPT.lua ...] < events.jsonl",
            "See 'toastscript --help'.",
        ])
        #expect(runCLI(["--format", "yaml"], input: "").stderr.first == "toastscript: --format must be one of text, json, speech, html, not 'yaml'")
        #expect(runCLI(["--lua-budget"], input: "").stderr.first == "toastscript: --lua-budget needs a value (N)")
        #expect(runCLI(["--lua-memory=lots"], input: "").stderr.first == "toastscript: --lua-memory takes a whole number ≥ 0, not 'lots'")
        #expect(runCLI(["--stats=yes"], input: "").stderr.first == "toastscript: --stats takes no value")
    }

    @Test func redisOptionsGoTogether() throws {
        func refusal(_ arguments: [String]) -> String? {
            do {
                _ = try CommandLineOptions.parse(arguments)
                return nil
            } catch {
                return "\(error)"
            }
        }
        let group = ["--redis", "/run/redis.sock", "--from", "events", "--group", "toasts", "--consumer", "c1"]
        #expect(refusal(["--from", "events"]) == "--from needs --redis URL|SOCKET")
        #expect(refusal(["--once"]) == "--once needs --redis URL|SOCKET")
        #expect(refusal(["--redis", "localhost:6379", "--to", "out"])
                == "--redis takes redis://HOST[:PORT][/DB] or a Unix socket's path (/run/redis/redis.sock), not 'localhost:6379'")
        #expect(refusal(["--redis", "redis://localhost"]) == "--redis needs --from STREAM or --to STREAM")
        #expect(refusal(["--redis", "redis://localhost", "--to", "out", "--once"]) == "--once needs --from STREAM")
        #expect(refusal(["--redis", "redis://localhost", "--to", "out", "--trim"]) == "--trim needs --from STREAM")
        #expect(refusal(["--trim"]) == "--trim needs --redis URL|SOCKET")
        #expect(refusal(group + ["--to-maxlen", "5"]) == "--to-maxlen needs --to STREAM")
        #expect(refusal(["--redis", "redis://localhost", "--from", "events", "--group", "g"])
                == "--from needs --group GROUP and --consumer NAME (the same each time the consumer starts)")
        #expect(refusal(group + ["--state", "s"]) == "--from keeps the state in Redis (toastscript:state:toasts:c1); --state cannot be given with it")
        #expect(refusal(group + ["--events", "e.jsonl"]) == "--from reads the events; --events cannot be given with it")
        #expect(refusal(group + ["--clock", "wall"])?.hasSuffix("--clock cannot be given with it") == true)
        #expect(refusal(group + ["--to", "out", "--output", "o"]) == "--to writes the records to a stream; --output cannot be given with it")
        #expect(refusal(["--redis", "redis://localhost", "--to", "out", "--format", "html"]) == "--to writes one entry a record; --format html draws one page")
        #expect(refusal(["--checkpoint", "1"]) == "--checkpoint needs --state FILE (or --from STREAM)")
        // A consumer group's run: the follow clock, or the stream clock with --once; --to writes JSON unless told.
        let live = try CommandLineOptions.parse(group + ["--to", "out", "--checkpoint", "0.5"])
        #expect(live.clock == .follow)
        #expect(live.format == .json)
        #expect(live.redis.stateKey == "toastscript:state:toasts:c1")
        let once = try CommandLineOptions.parse(group + ["--once", "--format", "text", "--redis-timeout", "2.5"])
        #expect(once.clock == .stream)
        #expect(once.format == .text)
        #expect(once.redis.timeout == 2_500_000)
    }

    @Test func helpAndVersionGoToStdoutWithStatusZero() {
        let help = runCLI(["--help"], input: "")
        #expect(help.status == 0)
        #expect(help.stderr.isEmpty)
        for spec in CommandLineOptions.specs { #expect(help.stdout.contains(" " + spec.name + " ")) }
        for status in ["0", "1", "2", "65", "130", "143"] {
            #expect(help.stdout.split(separator: "\n").contains { $0.hasPrefix("  " + status + " ") }, "exit status \(status)")
        }
        #expect(help.stdout.contains("Examples:\n  toastscript rules.lua < events.jsonl"))
        #expect(help.stdout.contains("docs/events.md"))
        #expect(runCLI(["-h"], input: "").stdout == help.stdout)
        let version = runCLI(["--version"], input: "")
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("toastscript 0.1.0 (Lua 5.4"))
        #expect(runCLI(["-V"], input: "").stdout == version.stdout)
    }

    @Test func colorsFollowTheTerminalNoColorAndTermDumb() {
        let input = lines(#"{"message":"Saved","role":"success"}"#)
        #expect(runCLI([], input: input, terminal: true).stdout.contains("\u{1B}[32m"))
        #expect(!runCLI([], input: input, variables: ["TERM": "dumb"], terminal: true).stdout.contains("\u{1B}"))
        #expect(!runCLI([], input: input, variables: ["NO_COLOR": "1"], terminal: true).stdout.contains("\u{1B}"))
        #expect(runCLI(["--color", "always"], input: input, variables: ["TERM": "dumb"]).stdout.contains("\u{1B}[32m"))
    }

    @Test func eventsDashIsStandardInput() {
        let result = runCLI(["--format", "json", "--events", "-"], input: lines(#"{"message":"A"}"#))
        #expect(result.status == 0)
        #expect(result.lines.first == present("0", "t1", "A"))
    }

    @Test func textFromAPipeTakesTheWallClockUnlessAClockIsGiven() {
        // An in-memory source stands for a pipe: it is not a regular file.
        let live = runCLI(["--input", "text", "--format", "json", "--no-drain"], input: "first\n")
        #expect(live.stderr == ["toastscript: note: reading text from a pipe or terminal, so times come from the wall clock "
                                + "(--clock stream keeps every line at time 0)"])
        let stream = runCLI(["--input", "text", "--format", "json", "--clock", "stream"], input: "first\n")
        #expect(stream.stderr == [])
        #expect(stream.lines.last == dismiss("3", "t1", "timeout", shown: "3"))
    }

    @Test func optionsTakeEqualsAndDoubleDash() throws {
        let options = try CommandLineOptions.parse(["--format=json", "--clock", "wall", "a.lua", "--", "--weird.lua"])
        #expect(options.format == .json)
        #expect(options.clock == .wall)
        #expect(options.scripts == ["a.lua", "--weird.lua"])
    }

    @Test func aScriptThatDoesNotLoadStopsTheRunWithItsPlace() {
        let syntax = runCLI([], input: lines(#"{"message":"A"}"#), scripts: ["config{\n  queue = {\n"])
        #expect(syntax.status == 1)
        // The line it names is past the end: nothing to show under the message.
        #expect(syntax.stderr == ["toastscript: rules.lua:3: unexpected symbol near <eof>"])
        #expect(syntax.stdout.isEmpty)
        let failing = runCLI([], input: "", scripts: ["local x = nil\nx.y = 1"])
        #expect(failing.stderr == [loadError("rules.lua:2: attempt to index a nil value (local 'x')", source: "local x = nil\nx.y = 1")])
        let missing = runCLI(["/nonexistent/rules.lua"], input: "")
        #expect(missing.status == 1)
        #expect(missing.stderr == ["toastscript: cannot open /nonexistent/rules.lua: No such file or directory"])
    }

    @Test func badSettingsAreLoadErrorsAtTheirConfigCall() {
        let cases: [(String, String)] = [
            ("config{ dedup = { window = 'x' } }", "rules.lua:1: config: dedup.window must be a number of seconds ≥ 0, not a string"),
            ("config{ dedup = { window = -1 } }", "rules.lua:1: config: dedup.window must be a number of seconds ≥ 0, not -1"),
            ("config{ queue = false }", "rules.lua:1: config: queue cannot be false: the host cannot be removed"),
            ("config{ queue = { limit = 1.5 } }", "rules.lua:1: config: queue.limit must be a whole number ≥ 0, not a number"),
            ("config{ queue = { max_visible = 0 } }", "rules.lua:1: config: queue.max_visible must be a whole number ≥ 1, not 0"),
            ("config{ queue = { policy = 'fifo' } }", "rules.lua:1: config: queue.policy must be \"enqueue\", \"replace\" or \"stack\", not \"fifo\""),
            ("\nconfig{ rate_limit = { windw = 3 } }", "rules.lua:2: config: unknown setting rate_limit.windw; did you mean \"window\"?"),
            ("\nconfig{ rate_limit = { every = 3 } }", "rules.lua:2: config: unknown setting rate_limit.every (known: limit, window, key, summary, when, spare)"),
            ("config{ dedupe = {} }", "rules.lua:1: config: unknown setting dedupe; did you mean \"dedup\"?"),
            ("config{ backlog = {} }", "rules.lua:1: config: unknown setting backlog (known: dedup, rate_limit, debounce, digest, queue, screens, roles, stages; a stage of your own is a table with stage = \"KIND\")"),
            ("config{ stages = { 'rules', 'sorting' } }", "rules.lua:1: config: stages: unknown stage \"sorting\" (known: rules, debounce, dedup, digest, rate_limit, priority, style, announce, host)"),
            ("config{ stages = { 'host', 'rules' } }", "rules.lua:1: config: stages: host must be the last stage"),
            ("config{ rate_limit = 5 }", "rules.lua:1: config: rate_limit must be a table, true or false, not a number"),
            ("config(5)", "rules.lua:1: config expects a table, not number"),
        ]
        for (script, message) in cases {
            let result = runCLI([], input: "", scripts: [script])
            #expect(result.status == 1, "\(script)")
            #expect(result.stderr == [loadError(message, source: script)], "\(script)")
        }
    }

    @Test func laterConfigCallsMergeKeyByKeyAcrossScripts() {
        let records = jsonRecords(lines(#"{"message":"A"}"#), scripts: [
            "config{ queue = { duration = 5, policy = 'replace' }, dedup = { fields = {'message', 'role'} } }",
            "config{ queue = { policy = 'stack' }, dedup = { fields = {'role'} } }",
        ])
        #expect(records == [present("0", "t1", "A", duration: "5", policy: "stack"), dismiss("5", "t1", "timeout", shown: "5")])
    }
}
