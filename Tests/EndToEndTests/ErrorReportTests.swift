import Foundation
import Testing

/// What stderr says when things go wrong: floods counted instead of printed, closing totals,
/// and hints that point to the fix.
@Suite struct ErrorReportTests {
    private func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "toastscript-errors-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aFailingRuleIsReportedTenTimesThenCounted() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "rule(function(t) return t.mesage:upper() end)\n".write(toFile: directory + "/typo.lua", atomically: true, encoding: .utf8)
        let events = (1...1000).map { #"{"message":"m\#($0)","at":\#($0)}"# }.joined(separator: "\n") + "\n"
        try events.write(toFile: directory + "/events.jsonl", atomically: true, encoding: .utf8)
        let result = try runBinary(["--format", "json", directory + "/typo.lua", "--events", directory + "/events.jsonl"])
        #expect(result.status == 65)
        let error = "\(directory)/typo.lua:1: attempt to index a nil value (field 'mesage')"
        #expect(result.stderr.split(separator: "\n").map(String.init) == (1...10).map { "toastscript: \(error) (input line \($0))" } + [
            "toastscript: (a complaint seen 10 times is counted from now on, not shown; --verbose shows every one)",
            "toastscript: … 990 more script errors like this: \(error)",
            "toastscript: 1000 script calls failed (--stats counts them by rule, hook and timer)",
        ])
        // Every toast still went on, and ended once.
        let endings = result.stdout.split(separator: "\n").filter { $0.hasPrefix(#"{"event":"dismiss""#) || $0.hasPrefix(#"{"event":"drop""#) }
        #expect(endings.count == 1000)
        let verbose = try runBinary(["--format", "json", "--verbose", directory + "/typo.lua", "--events", directory + "/events.jsonl"])
        #expect(verbose.stderr.split(separator: "\n").count == 1001)
    }

    @Test func rejectedLinesOfOneKindAreCountedApartFromTheirColumnsAndTheDeadLetterKeepsThemAll() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Thirty lines of bad JSON at different columns, and three with a missing message.
        let input = (1...30).map { String(repeating: " ", count: $0 % 4) + "{oops" }.joined(separator: "\n")
            + "\n{}\n{}\n{}\n"
        let result = try runBinary(["--dead-letter", directory + "/dead.jsonl"], stdin: input)
        #expect(result.status == 65)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 10 + 1 + 3 + 1 + 1)
        #expect(lines[0] == "toastscript: input line 1: invalid JSON at column 3: unexpected 'o', expected a member name")
        #expect(lines[10] == "toastscript: (a complaint seen 10 times is counted from now on, not shown; --verbose shows every one)")
        #expect(lines[11] == "toastscript: input line 31: missing message")
        #expect(lines[14] == "toastscript: … 20 more rejected lines like this: invalid JSON at column 5: unexpected 'o', expected a member name")
        #expect(lines[15] == "toastscript: 33 input lines rejected (--dead-letter has every rejected line; --stats counts them)")
        #expect(try String(contentsOfFile: directory + "/dead.jsonl", encoding: .utf8) == input)
    }

    @Test func binaryInputStopsAtOnce() throws {
        for arguments in [[], ["--input", "text"]] {
            let result = try runBinary(arguments + ["--events", binary])
            #expect(result.status == 65)
            #expect(result.stdout == "")
            #expect(result.stderr == "toastscript: input looks binary (NUL bytes or invalid UTF-8 in its first 64 KiB); "
                    + "nothing was read. toastscript reads JSON Lines, or text with --input text\n")
        }
        // A log with a stray Latin-1 byte is not binary: its bad line is rejected, the rest flows.
        let path = NSTemporaryDirectory() + "toastscript-latin1-\(UUID().uuidString.prefix(8)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes = Array(String(repeating: #"{"message":"ok"}"# + "\n", count: 20).utf8)
        bytes += Array(#"{"message":"caf"#.utf8) + [0xE9] + Array("\"}\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let latin1 = try runBinary(["--format", "json", "--events", path])
        #expect(latin1.status == 65)
        #expect(latin1.stderr.hasPrefix("toastscript: input line 21: not valid UTF-8\n"))
    }

    @Test func plainTextAsJSONSuggestsInputText() throws {
        let result = try runBinary([], stdin: "Build started\nBuild failed\n")
        #expect(result.status == 65)
        #expect(result.stderr == """
            toastscript: input line 1: invalid JSON at column 1: unexpected 'B', expected a value
            toastscript: hint: the input does not look like JSON Lines (its first line is not a JSON object); --input text shows each line as a message
            toastscript: input line 2: invalid JSON at column 1: unexpected 'B', expected a value
            toastscript: 2 input lines rejected (--dead-letter FILE keeps rejected lines; --stats counts them)

            """)
    }

    @Test func eventsGivenAsAScriptSuggestEvents() throws {
        let result = try runBinary(["examples/app-session.jsonl"])
        #expect(result.status == 1)
        #expect(result.stderr == """
            toastscript: examples/app-session.jsonl:1: unexpected symbol near '{'
                1 | {"at":0,"message":"Welcome back, Sam","source":"app"}
            toastscript: hint: examples/app-session.jsonl looks like events, not a Lua script: read it with --events examples/app-session.jsonl or < examples/app-session.jsonl

            """)
    }

    @Test func aScriptArgumentThatOpensWithAJSONObjectSuggestsEvents() throws {
        let path = NSTemporaryDirectory() + "toastscript-events-\(UUID().uuidString.prefix(8)).log"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "\n  {\"message\":\"A\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try runBinary([path])
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("toastscript: hint: \(path) looks like events, not a Lua script: read it with --events \(path) or < \(path)\n"))
        // A real script that fails to load gets no such hint.
        try "rule(function(t)\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try runBinary([path]).stderr.contains("hint") == false)
    }

    @Test func aMistypedFieldGetsOneDidYouMeanPerName() throws {
        let result = try runBinary(["--format", "json"], stdin: """
            {"message":"a","sorce":"sync"}
            {"message":"b","sorce":"sync","at":1}
            {"mesage":"c","at":2}
            {"message":"d","level":"debug","at":3}

            """)
        #expect(result.status == 65)
        #expect(result.stderr == """
            toastscript: input line 1: unknown field "sorce"; did you mean "source"? (kept as an extra field)
            toastscript: input line 3: unknown field "mesage"; did you mean "message"? (kept as an extra field)
            toastscript: input line 3: missing message
            toastscript: 1 input line rejected (--dead-letter FILE keeps rejected lines; --stats counts them)

            """)
        #expect(result.stdout.contains(#""extra":{"sorce":"sync"}"#))
    }
}
