import Foundation
import Testing

/// Runs the built `toastscript` binary on every example, as a user would, and compares
/// stdout, stderr and the exit status with the files in `examples/expected/`.
@Suite struct ExamplesTests {
    struct Example: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        let input: String
        var status: Int32 = 0
        var environment: [String: String] = [:]
        var testDescription: String { name }
    }

    static let examples: [Example] = [
        Example(name: "app-session", arguments: ["--format", "json", "examples/app-session.lua"], input: "app-session.jsonl"),
        Example(name: "app-session-text", arguments: ["--verbose", "examples/app-session.lua"], input: "app-session.jsonl"),
        Example(name: "app-session-speech", arguments: ["--format", "speech", "examples/app-session.lua"], input: "app-session.jsonl"),
        Example(name: "flaky-sync", arguments: ["--format", "json", "examples/flaky-sync.lua"], input: "flaky-sync.jsonl"),
        Example(name: "ci-log", arguments: ["--input", "text", "examples/ci-log.lua"], input: "ci-log.txt"),
        Example(name: "mute-noisy-source", arguments: ["--format", "json", "examples/app-session.lua", "examples/mute-noisy-source.lua"],
                input: "app-session.jsonl"),
        Example(name: "quiet-hours", arguments: ["--format", "json", "examples/quiet-hours.lua"], input: "quiet-hours.jsonl"),
        // A timer in Lua: a source that stayed quiet for 5 minutes after its errors recovered.
        Example(name: "recovery", arguments: ["--format", "json", "examples/recovery.lua"], input: "recovery.jsonl"),
        // Holding toasts: a progress flood debounced, and a burst of CI failures in one digest.
        Example(name: "progress", arguments: ["--format", "json", "examples/progress.lua"], input: "progress.jsonl"),
        Example(name: "ci-failures", arguments: ["--input", "text", "--verbose", "examples/ci-failures.lua"], input: "ci-failures.log",
                environment: ["TZ": "UTC"]),
        // Stages pointed at some toasts: errors digested by the minute and the rest by ten
        // seconds; a chatty source rate-limited harder than the rest.
        Example(name: "errors-by-the-minute", arguments: ["--format", "json", "examples/errors-by-the-minute.lua"],
                input: "build-alerts.jsonl"),
        Example(name: "quiet-source", arguments: ["--verbose", "examples/quiet-source.lua"], input: "build-alerts.jsonl"),
        Example(name: "escalate-warnings", arguments: ["--format", "json", "examples/escalate-warnings.lua"], input: "warnings.jsonl"),
        Example(name: "mask-emails", arguments: ["--format", "json", "examples/mask-emails.lua"], input: "support.jsonl"),
        Example(name: "critical-role", arguments: ["--format", "json", "examples/mask-emails.lua", "examples/critical-role.lua"],
                input: "support.jsonl"),
        Example(name: "summary-hook", arguments: ["--format", "json", "examples/flaky-sync.lua", "examples/summary-hook.lua"],
                input: "flaky-sync.jsonl"),
        // Logs read by a parse function, at their own times: dpkg writes local time, read and
        // shown in the zone of TZ (Berlin's rules, written out so that no zone files are needed),
        // so text shows the log's own times; JSON has the epoch seconds (here of UTC).
        Example(name: "dpkg", arguments: ["--input", "text", "--verbose", "examples/dpkg.lua"], input: "dpkg.log",
                environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"]),
        Example(name: "dpkg-json", arguments: ["--input", "text", "--format", "json", "examples/dpkg.lua"], input: "dpkg.log",
                environment: ["TZ": "UTC"]),
        Example(name: "journal", arguments: ["--format", "json", "examples/journal.lua"], input: "journal.jsonl"),
        Example(name: "syslog", arguments: ["--input", "text", "--format", "json", "examples/syslog.lua"], input: "syslog.log"),
        // Logs without code: syslog and logfmt read natively, stack traces joined, rules as tables.
        Example(name: "syslog-rules", arguments: ["--input", "syslog", "--format", "json", "examples/syslog-rules.lua"], input: "syslog.log"),
        Example(name: "api-logfmt", arguments: ["--input", "logfmt", "--format", "json", "examples/api-logfmt.lua"], input: "api-logfmt.log"),
        Example(name: "app-traces", arguments: ["--input", "text", "--multiline", "--format", "json", "examples/app-traces.lua"],
                input: "app-traces.log"),
        // Seeing why: every decision, one toast's story, and what a new rule set would change.
        Example(name: "flaky-sync-trace", arguments: ["--trace", "--format", "json", "examples/flaky-sync.lua"], input: "flaky-sync.jsonl"),
        Example(name: "app-session-trace-text", arguments: ["--trace", "examples/app-session.lua"], input: "app-session.jsonl"),
        Example(name: "flaky-sync-explain", arguments: ["--explain", "t5", "--explain", "t7", "--explain", "t2", "examples/flaky-sync.lua"],
                input: "flaky-sync.jsonl"),
        Example(name: "app-session-explain-json", arguments: ["--explain", "t6", "--format", "json", "examples/app-session.lua"],
                input: "app-session.jsonl"),
        Example(name: "service", arguments: ["examples/service.lua"], input: "service.jsonl"),
        Example(name: "app-session-diff", arguments: ["diff", "examples/app-session.lua", "examples/app-session-calm.lua"],
                input: "app-session.jsonl", status: 1),
        Example(name: "app-session-diff-json", arguments: ["diff", "examples/app-session.lua", "examples/app-session-calm.lua", "--format", "json"],
                input: "app-session.jsonl", status: 1),
    ]

    @Test(arguments: examples)
    func exampleGivesItsExpectedOutput(_ example: Example) throws {
        let result = try runBinary(example.arguments, stdinFile: "examples/" + example.input, environment: example.environment)
        let expected = try String(contentsOfFile: root + "/examples/expected/\(example.name).out", encoding: .utf8)
        #expect(result.stdout == expected)
        let errorFile = root + "/examples/expected/\(example.name).err"
        let expectedErrors = FileManager.default.fileExists(atPath: errorFile) ? try String(contentsOfFile: errorFile, encoding: .utf8) : ""
        #expect(result.stderr == expectedErrors)
        #expect(result.status == example.status)
    }

    /// The bridge's shortcuts off (`TOASTSCRIPT_LUA_FAST_PATH=off`: no C view of the rules'
    /// toast, no remembered values, a table of its own for every toast), every example gives
    /// the same output: the plain path is the oracle of the fast one.
    @Test(arguments: examples)
    func exampleGivesItsExpectedOutputWithoutTheFastPath(_ example: Example) throws {
        let environment = example.environment.merging(["TOASTSCRIPT_LUA_FAST_PATH": "off"]) { $1 }
        let result = try runBinary(example.arguments, stdinFile: "examples/" + example.input, environment: environment)
        let expected = try String(contentsOfFile: root + "/examples/expected/\(example.name).out", encoding: .utf8)
        #expect(result.stdout == expected)
        #expect(result.status == example.status)
    }

    @Test func everyExampleFileIsExercised() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/examples")
            .filter { $0.hasSuffix(".lua") || $0.hasSuffix(".jsonl") || $0.hasSuffix(".txt") || $0.hasSuffix(".log") }
        let used = Set(Self.examples.flatMap { $0.arguments.map { ($0 as NSString).lastPathComponent } + [$0.input] })
        #expect(files.filter { !used.contains($0) } == [])
    }

    /// The patterns of docs/lua.md, "Pointing a stage at some toasts", are the examples that
    /// run above, as they are: each `lua` block is found word for word in the example file the
    /// paragraph before it names.
    @Test func theGuidesWhenPatternsAreTheExamplesThatRun() throws {
        let guide = try String(contentsOfFile: root + "/docs/lua.md", encoding: .utf8)
        let start = try #require(guide.range(of: "## Pointing a stage at some toasts"))
        let section = guide[start.upperBound...].components(separatedBy: "\n## ")[0]
        let parts = section.components(separatedBy: "```lua\n")
        // The prose before a pattern's block names its example (the text after the block
        // before it: `before` starts with that block's rest).
        let patterns = zip(parts.dropLast(), parts.dropFirst()).filter { before, _ in
            before.components(separatedBy: "```").last?.range(of: #"examples/[a-z-]+\.lua"#, options: .regularExpression) != nil
        }
        #expect(patterns.count == 3, "three patterns")
        for (before, block) in patterns {
            let code = try #require(block.components(separatedBy: "```").first)
            let prose = before.components(separatedBy: "```").last ?? ""
            let named = try #require(prose.range(of: #"examples/[a-z-]+\.lua"#, options: [.regularExpression, .backwards]))
            let example = try String(contentsOfFile: root + "/" + prose[named], encoding: .utf8)
            #expect(example.contains(code), "\(prose[named]) does not hold the guide's block:\n\(code)")
            #expect(Self.examples.contains { $0.arguments.contains(String(prose[named])) }, "\(prose[named]) runs in a test")
        }
    }
}
