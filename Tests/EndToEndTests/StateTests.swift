import Foundation
import Testing

/// `--state` (docs/service.md): a run killed with SIGKILL at any moment and started again with
/// the same command writes exactly the output of one that never stopped; a state that does not
/// fit stops the run before any input and is left as it was.
@Suite(.serialized) struct StateTests {
    /// A folder of its own for each test, removed at the end.
    final class Folder {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("ts-state-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { path + "/" + name }
        func bytes(_ name: String) -> Data { FileManager.default.contents(atPath: file(name)) ?? Data() }
    }

    /// `examples/service.jsonl` `copies` times over, each copy later than the last (ids of
    /// dismisses moved with their copy): a long run through every stage that holds.
    static func serviceStream(copies: Int, into path: String) throws {
        let lines = try String(contentsOfFile: root + "/examples/service.jsonl", encoding: .utf8).split(separator: "\n")
        let events = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let span = ((events.last?["at"] as? Double) ?? 0) + 10
        var out = ""
        for copy in 0..<copies {
            for var event in events {
                event["at"] = ((event["at"] as? Double) ?? 0) + Double(copy) * span
                if let id = event["id"] as? String, let number = Int(id.dropFirst()) { event["id"] = "t\(number + copy * lines.count)" }
                out += String(decoding: try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]), as: UTF8.self) + "\n"
            }
        }
        try out.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Starts the binary with stdin from `input`; stdout and stderr to files in `folder`.
    static func start(_ arguments: [String], input: String, folder: Folder, environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        if !FileManager.default.fileExists(atPath: folder.file("stderr")) {
            _ = FileManager.default.createFile(atPath: folder.file("stderr"), contents: nil)
        }
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("stderr")))
        errors.seekToEndOfFile()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func command(_ folder: Folder, checkpoint: String = "0.000001", script: String = "examples/service.lua") -> [String] {
        ["--format", "json", "--state", folder.file("state"), "--checkpoint", checkpoint, "--output", folder.file("out.jsonl"),
         "-q", script]
    }

    /// The records of one uninterrupted run without `--state`.
    static func wholeRun(_ input: String, _ folder: Folder, script: String = "examples/service.lua") throws -> Data {
        let run = try runBinary(["--format", "json", "-q", script], stdinFile: nil, stdin: String(contentsOfFile: input, encoding: .utf8))
        #expect(run.status == 0, "\(run.stderr)")
        return Data(run.stdout.utf8)
    }

    /// Where two outputs part: the line number and both lines.
    static func firstDifference(_ output: Data, _ expected: Data) -> String {
        let got = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let want = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let line = zip(got, want).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
            return "\(got.count) lines, \(want.count) expected"
        }
        return "line \(line + 1): \(got[line].prefix(300)) instead of \(want[line].prefix(300))"
    }

    @Test func aRunKilledAtRandomMomentsWritesTheOutputOfOneThatNeverStopped() throws {
        let folder = try Folder()
        let input = folder.file("events.jsonl")
        try Self.serviceStream(copies: 20, into: input)
        let whole = try Self.wholeRun(input, folder)
        #expect(whole.count > 1_000_000)
        var random = SystemRandomNumberGenerator()
        var kills = 0
        for trial in 0..<3 {
            try? FileManager.default.removeItem(atPath: folder.file("state"))
            try? FileManager.default.removeItem(atPath: folder.file("out.jsonl"))
            // How long a whole run with --state takes here: kills land within it.
            let started = Date()
            let timing = try Self.start(Self.command(folder), input: input, folder: folder)
            timing.waitUntilExit()
            let duration = Date().timeIntervalSince(started)
            try? FileManager.default.removeItem(atPath: folder.file("state"))
            try? FileManager.default.removeItem(atPath: folder.file("out.jsonl"))
            var runs = 0
            while true {
                runs += 1
                let process = try Self.start(Self.command(folder), input: input, folder: folder)
                if runs < 60 {
                    Thread.sleep(forTimeInterval: Double.random(in: 0..<(duration * 0.2), using: &random))
                    kill(process.processIdentifier, SIGKILL)
                }
                process.waitUntilExit()
                if process.terminationReason == .exit {
                    #expect(process.terminationStatus == 0, "\(String(decoding: folder.bytes("stderr"), as: UTF8.self))")
                    break
                }
                kills += 1
            }
            // A Bool: a failed comparison of megabytes would be described byte by byte.
            let same = folder.bytes("out.jsonl") == whole
            #expect(same, "trial \(trial): killed \(runs - 1) times; \(Self.firstDifference(folder.bytes("out.jsonl"), whole))")
        }
        #expect(kills >= 24, "killed only \(kills) times")
    }

    @Test(arguments: ["after-records", "before-rename", "after-rename"])
    func aRunKilledAtTheMomentsThatMatterGoesOnAsIfItHadNeverStopped(point: String) throws {
        let folder = try Folder()
        let input = folder.file("events.jsonl")
        try Self.serviceStream(copies: 4, into: input)
        let whole = try Self.wholeRun(input, folder)
        // The first checkpoint says where the run began; the second is before the first line;
        // then one after each batch of lines, and the last at the end.
        for checkpoint in [1, 2, 3, 4, 6] {
            try? FileManager.default.removeItem(atPath: folder.file("state"))
            try? FileManager.default.removeItem(atPath: folder.file("out.jsonl"))
            let killed = try Self.start(Self.command(folder), input: input, folder: folder,
                                        environment: ["TOASTSCRIPT_TEST_KILL_AT": "\(point):\(checkpoint)"])
            killed.waitUntilExit()
            if point == "after-records" && checkpoint == 1 {
                #expect(killed.terminationReason == .exit, "the first checkpoint writes no records")
            } else {
                #expect(killed.terminationReason == .uncaughtSignal, "\(point):\(checkpoint) was not reached")
            }
            let again = try Self.start(Self.command(folder), input: input, folder: folder)
            again.waitUntilExit()
            #expect(again.terminationStatus == 0)
            let same = folder.bytes("out.jsonl") == whole
            #expect(same, "killed at \(point) of checkpoint \(checkpoint); \(Self.firstDifference(folder.bytes("out.jsonl"), whole))")
        }
    }
}
