import Foundation
import Testing

/// A state is never shared by accident (docs/service.md, "One run at a time"): one run holds
/// it, a restart reads on only in the file it was reading, and a fresh state writes a fresh
/// output. Each refusal stops the run before anything is read, written or emptied.
@Suite struct OneWriterTests {
    typealias Folder = StateTests.Folder

    static func command(_ folder: Folder, events: String = "e.jsonl") -> [String] {
        ["--format", "json", "--state", folder.file("state"), "--output", folder.file("out.jsonl"),
         "--events", folder.file(events)]
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func text(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    @Test func aSecondRunOnTheSameStateStopsNamingTheFirstAndChangesNothing() throws {
        let folder = try Folder()
        // The first run reads a pipe that stays open: it holds the state until the pipe closes.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: binary)
        // No checkpoint in between (`--checkpoint 0`): the state stays as the first line left it.
        first.arguments = ["--format", "json", "--state", folder.file("state"), "--output", folder.file("out.jsonl"), "-q",
                           "--checkpoint", "0"]
        let feed = Pipe()
        first.standardInput = feed
        first.standardError = FileHandle.nullDevice
        try first.run()
        feed.fileHandleForWriting.write(Data(#"{"message": "first", "duration": 0}"#.utf8 + [0x0A]))
        var waited = 0
        while (Self.text(folder.file("state.lock")) != "\(first.processIdentifier)\n" || Self.text(folder.file("out.jsonl")).isEmpty)
                && waited < 500 {
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        #expect(Self.text(folder.file("state.lock")) == "\(first.processIdentifier)\n")
        let stateBefore = Self.text(folder.file("state"))
        let outputBefore = Self.text(folder.file("out.jsonl"))
        for extra in [[], ["--state-reset"]] {
            let second = try runBinary(["--format", "json", "--state", folder.file("state"), "--output", folder.file("out.jsonl")]
                                       + extra, stdin: #"{"message": "second"}"# + "\n")
            #expect(second.status == 1)
            #expect(second.stderr == "toastscript: --state \(folder.file("state")) is in use by process \(first.processIdentifier) "
                    + "(it holds \(folder.file("state.lock"))); one run at a time keeps a state, and nothing was read, "
                    + "written or emptied\n")
            #expect(Self.text(folder.file("state")) == stateBefore)
            #expect(Self.text(folder.file("out.jsonl")) == outputBefore)
        }
        try feed.fileHandleForWriting.close()
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        // Once the first is gone, the state is free again (the lock went with the process).
        let after = try runBinary(["--format", "json", "--state", folder.file("state"), "--output", folder.file("out.jsonl")],
                                  stdin: #"{"message": "third"}"# + "\n")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(!Self.text(folder.file("out.jsonl")).contains("second"))
        #expect(Self.text(folder.file("out.jsonl")).contains("third"))
    }

    @Test func aKilledRunLeavesTheStateFree() throws {
        let folder = try Folder()
        let first = Process()
        first.executableURL = URL(fileURLWithPath: binary)
        first.arguments = ["--state", folder.file("state"), "--output", folder.file("out.jsonl"), "-q"]
        let feed = Pipe()
        first.standardInput = feed
        try first.run()
        var waited = 0
        while Self.text(folder.file("state.lock")).isEmpty && waited < 500 {
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let again = try runBinary(["--state", folder.file("state"), "--output", folder.file("out.jsonl")], stdin: "")
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// A run killed after it made the database but before its tables were committed leaves an
    /// empty file or a database of no tables: nothing to go on from, so the next run starts afresh.
    @Test(arguments: [false, true]) func aStateKilledBeforeItsTablesIsAFreshOne(withDatabase: Bool) throws {
        let folder = try Folder()
        if withDatabase {
            let made = try runBinary([folder.file("state"), "PRAGMA journal_mode = WAL"], program: "/usr/bin/sqlite3")
            #expect(made.status == 0)
        } else {
            try Self.write("", to: folder.file("state"))
        }
        let first = #"{"message": "after", "at": 1, "duration": 0}"# + "\n"
        try Self.write(first, to: folder.file("e.jsonl"))
        let run = try runBinary(Self.command(folder))
        #expect(run.status == 0, "\(run.stderr)")
        let firstRecords = Self.text(folder.file("out.jsonl"))
        #expect(firstRecords.contains("after"))
        // What that run wrote is a state like any other: a restart goes on from it.
        try Self.write(first + #"{"message": "later", "at": 2, "duration": 0}"# + "\n", to: folder.file("e.jsonl"))
        let again = try runBinary(Self.command(folder))
        #expect(again.status == 0, "\(again.stderr)")
        let records = Self.text(folder.file("out.jsonl"))
        #expect(records.hasPrefix(firstRecords))
        #expect(!records.dropFirst(firstRecords.count).contains("after"))
        #expect(records.contains("later"))
    }

    @Test func aFreshStateWithAnOutputOfAnotherRunIsRefusedAndStateResetEmptiesIt() throws {
        let folder = try Folder()
        try Self.write(#"{"message": "a", "at": 1}"# + "\n", to: folder.file("e.jsonl"))
        let first = try runBinary(Self.command(folder))
        #expect(first.status == 0, "\(first.stderr)")
        let records = Self.text(folder.file("out.jsonl"))
        let length = records.utf8.count
        #expect(length > 0)
        // The state is gone: the records in the output are of a run this one cannot go on from.
        try FileManager.default.removeItem(atPath: folder.file("state"))
        let refused = try runBinary(Self.command(folder))
        #expect(refused.status == 1)
        #expect(refused.stderr == "toastscript: --output \(folder.file("out.jsonl")) holds \(length) bytes of another run, and "
                + "--state \(folder.file("state")) has no saved run to go on from; --state-reset empties it and starts afresh\n")
        #expect(Self.text(folder.file("out.jsonl")) == records)
        #expect(!FileManager.default.fileExists(atPath: folder.file("state")))
        let reset = try runBinary(Self.command(folder) + ["--state-reset"])
        #expect(reset.status == 0)
        #expect(reset.stderr == "toastscript: note: --state-reset emptied \(folder.file("out.jsonl")) (\(length) bytes of an earlier run)\n")
        #expect(Self.text(folder.file("out.jsonl")) == records)
        // An output that is there but empty is no other run's.
        try FileManager.default.removeItem(atPath: folder.file("state"))
        try Self.write("", to: folder.file("out.jsonl"))
        #expect(try runBinary(Self.command(folder)).status == 0)
        #expect(Self.text(folder.file("out.jsonl")) == records)
    }

    @Test func aRestartOnAnotherInputFileIsRefusedAndOneThatGrewGoesOn() throws {
        let folder = try Folder()
        let lines = [#"{"message": "a", "at": 1}"#, #"{"message": "b", "at": 2}"#, #"{"message": "c", "at": 3}"#]
        try Self.write(lines[0] + "\n" + lines[1] + "\n", to: folder.file("e.jsonl"))
        #expect(try runBinary(Self.command(folder)).status == 0)
        // Another file, its first bytes other: refused, whatever its length.
        try Self.write(#"{"message": "X", "at": 1}"# + "\n" + lines[1] + "\n" + lines[2] + "\n", to: folder.file("other.jsonl"))
        let output = Self.text(folder.file("out.jsonl"))
        let refused = try runBinary(Self.command(folder, events: "other.jsonl"))
        #expect(refused.status == 1)
        #expect(refused.stderr == "toastscript: --state \(folder.file("state")): --events \(folder.file("other.jsonl")) is not the "
                + "file this state was reading (another inode and other first bytes); it was left as it is, and --state-reset "
                + "starts afresh\n")
        #expect(Self.text(folder.file("out.jsonl")) == output)
        // The same file rewritten in place: the same inode, other first bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("e.jsonl")))
        try handle.write(contentsOf: Data(#"{"message": "Y""#.utf8))
        try handle.close()
        let rewritten = try runBinary(Self.command(folder))
        #expect(rewritten.status == 1)
        #expect(rewritten.stderr.contains("(the same inode, but other first bytes)"), "\(rewritten.stderr)")
        // A copy with the same first bytes that grew (a log put back, then appended to): read on.
        try Self.write(lines.joined(separator: "\n") + "\n", to: folder.file("copy.jsonl"))
        let grown = try runBinary(Self.command(folder, events: "copy.jsonl"))
        #expect(grown.status == 0, "\(grown.stderr)")
        #expect(grown.stderr == "toastscript: note: went on from --state \(folder.file("state")) (input line 2)\n")
        #expect(Self.text(folder.file("out.jsonl")).contains(#""message":"c""#))
        #expect(!Self.text(folder.file("out.jsonl")).contains(#""message":"Y""#))
    }
}
