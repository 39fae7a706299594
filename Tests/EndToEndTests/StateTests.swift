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

    @Test(arguments: ["after-records", "before-commit", "after-commit"])
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

extension StateTests {
    /// A state file in `folder`, saved by a short run of `examples/service.lua` with `--state`.
    static func saveState(in folder: Folder) throws {
        let input = folder.file("events.jsonl")
        try serviceStream(copies: 1, into: input)
        let run = try runBinary(command(folder, checkpoint: "1"), stdin: String(contentsOfFile: input, encoding: .utf8))
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// What `sqlite3` prints for `sql` on the database at `path`.
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        let run = try runBinary([path, sql], program: "/usr/bin/sqlite3")
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    /// Runs with the state `prepare` leaves in a folder: the run must stop before any input
    /// with `message`, and leave the state and the output as they were.
    static func expectRefused(_ message: String, script: String = "examples/service.lua",
                              stdin: String = #"{"message": "new"}"# + "\n", state prepare: (Folder) throws -> Void) throws {
        let folder = try Folder()
        try prepare(folder)
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: folder.file("out.jsonl")))
        let state = folder.bytes("state")
        let run = try runBinary(command(folder, script: script), stdin: stdin)
        #expect(run.status == 1)
        let path = folder.file("state")
        #expect(run.stderr == "toastscript: --state \(path): \(message); it was left as it is, and --state-reset starts afresh\n")
        #expect(folder.bytes("state") == state)
        #expect(folder.bytes("out.jsonl") == Data("kept\n".utf8))
    }

    @Test func aStateFromAnotherFormatIsRefused() throws {
        try Self.expectRefused("the file was saved by toastscript 0.1.0 in state format 2, and this toastscript reads format 3") { folder in
            try Data(#"{"toastscript_state":2,"written_by":"toastscript 0.1.0","stages":[]}"#.utf8 + [0x0A])
                .write(to: URL(fileURLWithPath: folder.file("state")))
        }
        try Self.expectRefused("the file was saved by toastscript 0.9.0 in state format 4, and this toastscript reads format 3") { folder in
            try Self.saveState(in: folder)
            _ = try Self.sqlite(folder.file("state"), #"UPDATE run SET value = '4' WHERE name = 'format'; "#
                                + #"UPDATE run SET value = '"toastscript 0.9.0"' WHERE name = 'written_by'"#)
        }
    }

    @Test func aStateOfOtherStagesIsRefused() throws {
        try Self.expectRefused("the file was saved by a run with the stages rules, debounce, dedup, digest, rate_limit, priority, style, "
                                   + "announce, and these scripts run rules, dedup, rate_limit, priority, style, announce",
                               script: "examples/app-session.lua") { try Self.saveState(in: $0) }
    }

    @Test func aDamagedStateIsRefusedSayingWhere() throws {
        try Self.expectRefused("the file is damaged (database disk image is malformed)") { folder in
            try Self.saveState(in: folder)
            // The checkpoints into the file first: a run leaves them in the WAL, which would stand
            // in for the half cut away.
            _ = try Self.sqlite(folder.file("state"), "PRAGMA wal_checkpoint(TRUNCATE)")
            let bytes = folder.bytes("state")
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: folder.file("state")))
        }
        try Self.expectRefused("the file is damaged (it is not a toastscript state: not an SQLite database)") { folder in
            try Data("hello\n".utf8).write(to: URL(fileURLWithPath: folder.file("state")))
        }
        try Self.expectRefused("the file is damaged (it is an SQLite database, but not a toastscript state: it has no table run)") { folder in
            _ = try Self.sqlite(folder.file("state"), "CREATE TABLE notes (text TEXT)")
        }
        try Self.expectRefused("the file is damaged (pipeline.hold_serial is not an integer)") { folder in
            try Self.saveState(in: folder)
            _ = try Self.sqlite(folder.file("state"), #"UPDATE parts SET value = replace(value, '"hold_serial":', '"hold_serial":"x","was":') "#
                                + "WHERE name = 'clock'")
        }
        try Self.expectRefused("the file is damaged (parts clock: invalid JSON at column 1: unexpected 'h', expected a value)") { folder in
            try Self.saveState(in: folder)
            _ = try Self.sqlite(folder.file("state"), "UPDATE parts SET value = 'hello' WHERE name = 'clock'")
        }
    }

    @Test func anInputShorterThanTheSavedOffsetIsRefused() throws {
        let sizing = try Folder()
        try Self.serviceStream(copies: 1, into: sizing.file("events.jsonl"))
        let size = try #require(FileManager.default.attributesOfItem(atPath: sizing.file("events.jsonl"))[.size] as? Int)
        try Self.expectRefused("the input has 19 bytes, fewer than the \(size) read when it was saved: "
                               + "it is not the input the state was saved with") { try Self.saveState(in: $0) }
    }

    @Test func stateResetStartsAfreshAndOverwritesIt() throws {
        let folder = try Folder()
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: folder.file("state")))
        let run = try runBinary(Self.command(folder) + ["--state-reset"], stdin: #"{"message": "new"}"# + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.sqlite(folder.file("state"), "SELECT value FROM run WHERE name = 'format'") == "3\n")
        #expect(String(decoding: folder.bytes("out.jsonl"), as: UTF8.self).contains(#""message":"new""#))
    }
}

extension StateTests {
    @Test func sigtermSavesWhatTheRunHoldsAndARestartGoesOn() throws {
        let folder = try Folder()
        let input = folder.file("events.jsonl")
        try Self.serviceStream(copies: 10, into: input)
        let whole = try Self.wholeRun(input, folder)
        var stopped = 0
        for delay in [0.05, 0.15, 0.3] {
            try? FileManager.default.removeItem(atPath: folder.file("state"))
            try? FileManager.default.removeItem(atPath: folder.file("out.jsonl"))
            let first = try Self.start(Self.command(folder, checkpoint: "1"), input: input, folder: folder)
            Thread.sleep(forTimeInterval: delay)
            kill(first.processIdentifier, SIGTERM)
            first.waitUntilExit()
            // 143: stopped by the signal and saved; a signal that comes before the run has set up
            // its handlers (a loaded machine, the shortest delay) ends it as it ends any process,
            // and the restart must still give the whole output.
            let killedAtStart = first.terminationReason == .uncaughtSignal && first.terminationStatus == SIGTERM
            #expect([0, 143].contains(first.terminationStatus) && first.terminationReason == .exit || killedAtStart)
            if first.terminationStatus == 143 { stopped += 1 }
            let again = try Self.start(Self.command(folder, checkpoint: "1"), input: input, folder: folder)
            again.waitUntilExit()
            #expect(again.terminationStatus == 0)
            let same = folder.bytes("out.jsonl") == whole
            #expect(same, "SIGTERM after \(delay) s; \(Self.firstDifference(folder.bytes("out.jsonl"), whole))")
        }
        #expect(stopped > 0)
    }

    @Test func fromAPipeTheStateIsRestoredAndTheInputTakenAsNew() throws {
        let folder = try Folder()
        let first = try runBinary(["--format", "json", "--state", folder.file("state"), "-q"], stdin: """
            {"message": "one", "at": 1, "duration": 100}
            {"message": "two", "at": 2}
            """ + "\n", stdinIsPipe: true)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains(#""id":"t2""#))
        let second = try runBinary(["--format", "json", "--state", folder.file("state")], stdin: """
            {"message": "three", "at": 3}
            {"message": "four", "at": 4
            """ + "\n", stdinIsPipe: true)
        // The ids go on (t3, not t1 again); the lines are the new input's.
        // (At 104, where the first run's drain left the clock: 3 is late.)
        #expect(second.stdout.hasPrefix(#"{"event":"present","t":104,"id":"t3","message":"three","#), "\(second.stdout)")
        #expect(second.stderr.contains("note: went on from --state \(folder.file("state")) (the input is taken as new)"), "\(second.stderr)")
        #expect(second.stderr.contains("input line 2: invalid JSON"), "\(second.stderr)")
    }

    @Test func restoreHooksRunAndANoteCountsTheLuaTimersNotKept() throws {
        let folder = try Folder()
        let script = folder.file("reminders.lua")
        try """
            store.reminders = store.reminders or 0
            local function remind()
              store.reminders = store.reminders + 1
              emit{ message = "reminder " .. store.reminders }
              if store.reminders < 3 then after(30, remind) end
            end
            after(30, remind)
            on("restore", function()
              log("restored after " .. store.reminders .. " reminders")
              after(30, remind)
            end)
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let input = folder.file("events.jsonl")
        try (0..<100).map { #"{"message": "m\#($0)", "at": \#($0)}"# }.joined(separator: "\n").appending("\n")
            .write(toFile: input, atomically: true, encoding: .utf8)
        let killed = try Self.start(Self.command(folder, script: script), input: input, folder: folder,
                                    environment: ["TOASTSCRIPT_TEST_KILL_AT": "after-commit:2"])
        killed.waitUntilExit()
        #expect(killed.terminationReason == .uncaughtSignal)
        let again = try runBinary(Self.command(folder, script: script).filter { $0 != "-q" }, stdinFile: nil,
                                  stdin: try String(contentsOfFile: input, encoding: .utf8))
        #expect(again.status == 0, "\(again.stderr)")
        let lines = again.stderr.split(separator: "\n")
        // Killed once the state before the first line was saved: the timer set while loading
        // was pending, and the hook sets it again.
        #expect(lines.contains { $0.hasSuffix("restored after 0 reminders") }, "\(again.stderr)")
        #expect(lines.contains("toastscript: note: went on from --state \(folder.file("state")) (input line 0); "
                               + "1 Lua timer (after) pending then was not kept"), "\(again.stderr)")
        let output = String(decoding: folder.bytes("out.jsonl"), as: UTF8.self)
        #expect(output.contains(#""message":"reminder 1""#) && output.contains(#""message":"reminder 3""#), "\(output)")
    }
}

extension StateTests {
    /// The `ExecStart=` lines of docs/service.md's units, run here with their paths in a
    /// folder of the test's own: the batch unit writes what one run writes, and a second start
    /// of a run that ended writes nothing more; the live unit's follows a log until it is stopped.
    @Test func theServicePagesUnitsRun() throws {
        let page = try String(contentsOfFile: root + "/docs/service.md", encoding: .utf8)
        let starts = page.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }.map { String($0.dropFirst("ExecStart=".count)) }
        try #require(starts.count == 3)
        let folder = try Folder()
        func local(_ line: String) -> String {
            line.replacingOccurrences(of: "/usr/local/bin/toastscript", with: binary)
                .replacingOccurrences(of: "/var/lib/toastscript/", with: folder.path + "/")
                .replacingOccurrences(of: "/var/spool/toasts/%i.jsonl", with: root + "/examples/service.jsonl")
                .replacingOccurrences(of: "tail -F -n 0 /var/log/app/events.jsonl", with: "cat \(root)/examples/service.jsonl")
                .replacingOccurrences(of: "/etc/toastscript/rules.lua", with: root + "/examples/service.lua")
                .replacingOccurrences(of: "%i", with: "service")
        }
        let batch = local(starts[0]).split(separator: " ").map(String.init)
        #expect(batch.first == binary)
        let whole = try runBinary(["--format", "json", "examples/service.lua"], stdinFile: "examples/service.jsonl")
        for _ in 0..<2 {
            let run = try runBinary(Array(batch.dropFirst()))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(String(decoding: folder.bytes("service.records.jsonl"), as: UTF8.self) == whole.stdout)
        }
        // The live unit follows a log until systemctl stop sends SIGTERM (exit 143, a clean stop).
        try FileManager.default.copyItem(atPath: root + "/examples/service.jsonl", toPath: folder.file("events.jsonl"))
        let follow = local(starts[1]).replacingOccurrences(of: "/var/log/app/events.jsonl", with: folder.file("events.jsonl"))
        #expect(follow.hasPrefix(binary + " --follow "))
        let live = try runShell("""
            \(follow) 2> /dev/null & pid=$!
            for i in $(seq 500); do grep -q 'Connection refused' '\(folder.file("live.records.jsonl"))' 2>/dev/null && break; sleep 0.01; done
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(live.stdout == "status 143\n", "\(live.stderr)")
        #expect(String(decoding: folder.bytes("live.records.jsonl"), as: UTF8.self).contains(#""message":"Connection refused""#))
        #expect(page.contains("SuccessExitStatus=130 143"))
        #expect(try Self.sqlite(folder.file("live.state"), "SELECT value FROM run WHERE name = 'format'") == "3\n")

        // The journal unit, on a folder of journal files in place of the local journal: a file
        // journald would add while it runs brings the backup unit's error, and another unit's.
        let journal = local(starts[2]).replacingOccurrences(of: "--journal ", with: "--journal --journal-dir \(folder.path)/journal ")
        try FileManager.default.createDirectory(atPath: folder.file("journal"), withIntermediateDirectories: true)
        try JournalTests.writeJournal([
            JournalTests.Entry(at: 1_764_928_800, [("MESSAGE", "backup failed"), ("PRIORITY", "3"), ("_SYSTEMD_UNIT", "backup.service")]),
            JournalTests.Entry(at: 1_764_928_801, [("MESSAGE", "nginx reloaded"), ("_SYSTEMD_UNIT", "nginx.service")]),
        ], to: folder.file("new.journal"))
        let watching = try runShell("""
            \(journal) 2> /dev/null & pid=$!
            sleep 0.5; mv '\(folder.file("new.journal"))' '\(folder.file("journal/new.journal"))'
            for i in $(seq 500); do grep -q 'backup failed' '\(folder.file("journal.records.jsonl"))' 2>/dev/null && break; sleep 0.01; done
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(watching.stdout == "status 143\n", "\(watching.stderr)")
        let records = String(decoding: folder.bytes("journal.records.jsonl"), as: UTF8.self)
        #expect(records.contains(#""message":"backup failed""#) && !records.contains("nginx"), "\(records)")
        #expect(try Self.sqlite(folder.file("journal.state"), "SELECT count(*) FROM run WHERE name = 'input_cursor'") == "1\n")
    }
}

extension StateTests {
    /// What `store` cannot keep is named by its key path at the first checkpoint, once a run,
    /// and the rest of `store` is saved.
    @Test func whatStoreCannotKeepIsNamedOnceAtACheckpoint() throws {
        let folder = try Folder()
        let script = """
            store.count = store.count or 0
            store.handlers = { on_error = function() end }
            rule(function(t) store.count = store.count + 1 end)
            """
        let events = (1...3).map { #"{"message":"m\#($0)","at":\#($0)}"# }.joined(separator: "\n") + "\n"
        let first = try runBinary(["--format", "json", "--state", folder.file("state"), "--checkpoint", "0.000001", "-e", script],
                                  stdin: events)
        #expect(first.status == 65)
        #expect(first.stderr.components(separatedBy: "store.handlers.on_error is a function, which cannot be kept (checkpoint)").count == 2,
                "\(first.stderr)")
        let store = try Self.sqlite(folder.file("state"), "SELECT value FROM run WHERE name = 'store'")
        #expect(store == #"[["count",3],["handlers",[]]]"# + "\n" || store == #"[["handlers",[]],["count",3]]"# + "\n", "\(store)")
    }
}
