import Foundation
import Testing

/// Runs the built binary on three 100,000-event streams from the project's own generator,
/// `bench/workload.py` (the same arguments always give the same bytes), and compares the output
/// with `Tests/golden/`: changes to the model and speed work must never change a single byte.
@Suite struct GoldenStreamTests {
    struct Golden: CustomTestStringConvertible, Sendable {
        let file: String
        let generator: String
        let arguments: [String]
        var testDescription: String { file }
    }

    static let streams: [Golden] = [
        Golden(file: "steady-100k-rules.json.gz", generator: "--n 100000 --seed 1 --profile steady",
               arguments: ["--format", "json", "bench/rules.lua"]),
        Golden(file: "bursty-100k-text.txt.gz", generator: "--n 100000 --seed 2 --profile bursty",
               arguments: ["--format", "text", "--verbose", "--color", "always"]),
        Golden(file: "bursty-100k-limits.json.gz", generator: "--n 100000 --seed 3 --profile bursty",
               arguments: ["--format", "json", "bench/rules-five.lua", "Tests/golden/limits.lua"]),
    ]

    @Test(arguments: streams)
    func outputIsByteForByteTheRecordedOne(_ golden: Golden) throws {
        try compare(golden, environment: [:])
    }

    /// The streams with scripts, with the Lua bridge's shortcuts off: the same bytes.
    @Test(arguments: streams.filter { $0.arguments.contains { $0.hasSuffix(".lua") } })
    func outputIsTheSameWithoutTheLuaFastPath(_ golden: Golden) throws {
        try compare(golden, environment: ["TOASTSCRIPT_LUA_FAST_PATH": "off"])
    }

    private func compare(_ golden: Golden, environment: [String: String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ts-golden-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.jsonl").path
        let actual = directory.appendingPathComponent("actual").path
        let expected = directory.appendingPathComponent("expected").path
        try shell("python3 bench/workload.py \(golden.generator) > \(events)")
        try shell("gzip -dc Tests/golden/\(golden.file) > \(expected)")
        let run = try runBinary(golden.arguments + ["--events", events, "--output", actual], environment: environment)
        #expect(run.status == 0)
        #expect(run.stderr == "")
        let actualLines = try String(contentsOfFile: actual, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = try String(contentsOfFile: expected, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(actualLines.count == expectedLines.count)
        if let first = zip(actualLines, expectedLines).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at output line \(first + 1):\n  got      \(actualLines[first])\n  expected \(expectedLines[first])")
        }
    }

    private func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "set -e; " + command]
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "`\(command)` failed")
    }
}
