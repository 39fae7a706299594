import Foundation
import Testing

/// The state as rows (docs/service.md, "The state file"): a checkpoint writes what changed,
/// and a run with screens, held toasts, timers and windows, killed at any moment and started
/// again, still writes the output of one that never stopped. Debug builds (these tests) also
/// check at every checkpoint that each screen left out as unchanged saves as it did.
@Suite(.serialized) struct StateRowsTests {
    typealias Folder = StateTests.Folder

    /// Screens by user, fewer at once than there are users, each with its own debounce,
    /// digest and rate-limit summaries; sticky toasts, so screens hold a visible toast.
    static let script = """
        config{
          screens = { by = "user", limit = 40 },
          debounce = { window = 0.5, max_wait = 2, fields = { "role" } },
          digest = { window = 3, min = 2 },
          rate_limit = { limit = 2, window = 4, summary = true },
          dedup = { window = 5 },
        }
        """

    /// `count` events for 60 users, a few seconds apart each, some sticky, some errors,
    /// some taps.
    static func events(_ count: Int) -> String {
        var lines: [String] = []
        for index in 0..<count {
            let user = "u\((index * 7) % 60)"
            let at = Double(index) * 0.25
            switch index % 9 {
            case 0: lines.append(#"{"message":"disk \#(index % 4)","user":"\#(user)","role":"error","duration":0,"at":\#(at)}"#)
            case 4: lines.append(#"{"type":"tap","user":"\#(user)","at":\#(at)}"#)
            default: lines.append(#"{"message":"sync \#(index % 5)","user":"\#(user)","role":"info","at":\#(at)}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func command(_ folder: Folder) -> [String] {
        ["--format", "json", "--state", folder.file("state"), "--checkpoint", "0.000001", "--output", folder.file("out.jsonl"),
         "-q", "--events", folder.file("events.jsonl"), folder.file("screens.lua")]
    }

    static func prepare(_ folder: Folder, events count: Int) throws -> Data {
        try script.write(toFile: folder.file("screens.lua"), atomically: true, encoding: .utf8)
        try events(count).write(toFile: folder.file("events.jsonl"), atomically: true, encoding: .utf8)
        let whole = try runBinary(["--format", "json", "--events", folder.file("events.jsonl"), folder.file("screens.lua")])
        #expect(whole.status == 0, "\(whole.stderr)")
        return Data(whole.stdout.utf8)
    }

    @Test func aRunOfScreensKilledAtTheCheckpointsGoesOnAsIfItHadNeverStopped() throws {
        let folder = try Folder()
        // A checkpoint after each batch of up to 1,024 lines: 12 of them, and the last.
        let whole = try Self.prepare(folder, events: 12_000)
        #expect(whole.count > 1_000_000)
        try Self.expectEachKillGoesOn(folder, killedAt: [("after-records", 3), ("before-commit", 4), ("after-commit", 5),
                                                         ("before-commit", 9), ("after-commit", 12)], whole: whole)
    }

    /// Kills the run at each kill point (a point of a checkpoint, by number), then runs it again
    /// to its end: the output is `whole`, as if it had never stopped; `check` looks at the rest.
    static func expectEachKillGoesOn(_ folder: Folder, killedAt points: [(point: String, checkpoint: Int)], whole: Data,
                                     check: () throws -> Void = {}) throws {
        for (point, checkpoint) in points {
            for name in ["state", "state-wal", "state-shm", "out.jsonl"] { try? FileManager.default.removeItem(atPath: folder.file(name)) }
            let killed = try StateTests.start(command(folder), input: "/dev/null", folder: folder,
                                              environment: ["TOASTSCRIPT_TEST_KILL_AT": "\(point):\(checkpoint)"])
            killed.waitUntilExit()
            #expect(killed.terminationReason == .uncaughtSignal, "\(point):\(checkpoint) was not reached")
            let again = try runBinary(command(folder))
            #expect(again.status == 0, "\(again.stderr)")
            let same = folder.bytes("out.jsonl") == whole
            #expect(same, "killed at \(point) of checkpoint \(checkpoint); \(StateTests.firstDifference(folder.bytes("out.jsonl"), whole))")
            try check()
        }
    }

    /// A checkpoint of thousands of screens hands their rows to the state's thread a few
    /// thousand at a time, before its records are written; killed while they are in its open
    /// transaction, or just after it committed, the run still goes on as if it never stopped.
    @Test func aRunOfManyScreensKilledWhileTheirRowsAreWrittenGoesOnAsIfItHadNeverStopped() throws {
        let folder = try Folder()
        // 9,000 users shown a toast that stays, then each another: checkpoints of thousands of
        // screens (in debug builds every checkpoint offers every screen, to check the unchanged).
        try #"config{ screens = { by = "user" }, rate_limit = { limit = 1, window = 5 } }"#
            .write(toFile: folder.file("screens.lua"), atomically: true, encoding: .utf8)
        let events = (0..<18_000).map { index in
            #"{"message":"note \#(index / 9_000)","user":"u\#(index % 9_000)","duration":null,"at":\#(Double(index) * 0.001)}"#
        }
        try (events.joined(separator: "\n") + "\n").write(toFile: folder.file("events.jsonl"), atomically: true, encoding: .utf8)
        let whole = try runBinary(["--format", "json", "--events", folder.file("events.jsonl"), folder.file("screens.lua")])
        #expect(whole.status == 0, "\(whole.stderr)")
        try Self.expectEachKillGoesOn(folder, killedAt: [("before-commit", 12), ("after-records", 15), ("after-commit", 13)],
                                      whole: Data(whole.stdout.utf8)) {
            let screens = try StateTests.sqlite(folder.file("state"), "SELECT count(*) FROM screens")
            #expect(screens == "9000\n")
        }
    }

    @Test func aRunOfScreensKilledAtRandomMomentsGoesOnAsIfItHadNeverStopped() throws {
        let folder = try Folder()
        let whole = try Self.prepare(folder, events: 40_000)
        // How long a whole run with --state takes here: kills land within it.
        let started = Date()
        let timing = try StateTests.start(Self.command(folder), input: "/dev/null", folder: folder)
        timing.waitUntilExit()
        let duration = Date().timeIntervalSince(started)
        for name in ["state", "state-wal", "state-shm", "out.jsonl"] { try? FileManager.default.removeItem(atPath: folder.file(name)) }
        var random = SystemRandomNumberGenerator()
        var kills = 0
        var runs = 0
        while true {
            runs += 1
            let process = try StateTests.start(Self.command(folder), input: "/dev/null", folder: folder)
            if runs < 25 {
                // Within the first tenth of a whole run's time: a run that goes on from a state has
                // less left to do, and one that ends before its kill ends the trials.
                Thread.sleep(forTimeInterval: Double.random(in: 0..<(duration * 0.1), using: &random))
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            if process.terminationReason == .exit {
                #expect(process.terminationStatus == 0, "\(String(decoding: folder.bytes("stderr"), as: UTF8.self))")
                break
            }
            kills += 1
        }
        let same = folder.bytes("out.jsonl") == whole
        #expect(same, "killed \(kills) times; \(StateTests.firstDifference(folder.bytes("out.jsonl"), whole))")
        #expect(kills >= 5, "killed only \(kills) times")
    }

    @Test func theTablesHoldWhatTheRunKeepsAndACheckpointWritesWhatChanged() throws {
        let folder = try Folder()
        _ = try Self.prepare(folder, events: 3_000)
        // Stopped after the second batch's checkpoint: screens hold toasts, timers wait.
        let killed = try StateTests.start(Self.command(folder), input: "/dev/null", folder: folder,
                                          environment: ["TOASTSCRIPT_TEST_KILL_AT": "after-commit:4"])
        killed.waitUntilExit()
        #expect(killed.terminationReason == .uncaughtSignal)
        let state = folder.file("state")
        // At most the limit of screens, each with its key; each held toast and timer a row.
        let screens = Int(try StateTests.sqlite(state, "SELECT count(*) FROM screens").dropLast()) ?? -1
        #expect(screens > 0 && screens <= 40)
        #expect(try StateTests.sqlite(state, "SELECT count(*) FROM screens WHERE key LIKE 'u%'") == "\(screens)\n")
        #expect(try StateTests.sqlite(state, "SELECT value FROM run WHERE name = 'format'") == "3\n")
        let timers = try StateTests.sqlite(state, "SELECT count(*) FROM timers")
        #expect(timers != "0\n")
        // A screen's row holds its visible toast, as an operator would look it up.
        let user = try StateTests.sqlite(state, "SELECT key FROM screens WHERE json_array_length(value, '$.host.visible') > 0 "
                                                + "ORDER BY serial LIMIT 1").dropLast()
        #expect(!user.isEmpty)
        let row = try StateTests.sqlite(state, "SELECT json_extract(value, '$.host.visible[0].toast.extra.user') FROM screens WHERE key = '\(user)'")
        #expect(row == "\(user)\n", "\(row)")
    }

    /// A stage's keys read as what they are made of, as an operator looks them up.
    @Test func keysReadAsTheValuesTheyAreMadeOf() throws {
        let folder = try Folder()
        _ = try Self.prepare(folder, events: 3_000)
        let run = try runBinary(Self.command(folder))
        #expect(run.status == 0, "\(run.stderr)")
        let keys = try StateTests.sqlite(folder.file("state"), "SELECT DISTINCT json_extract(key.value, '$.key') FROM screens, "
                                                              + "json_each(screens.value, '$.keyed.dedup.keys') AS key ORDER BY 1 LIMIT 2")
        #expect(keys == "[\"disk 0\",null,\"error\"]\n[\"disk 1\",null,\"error\"]\n")
    }

    /// A run's last checkpoint stays in the WAL (synced) instead of being copied into the
    /// database before the run ends; the next run's first checkpoint copies a WAL that long.
    @Test func theLastCheckpointStaysInTheWALForTheNextRun() throws {
        let folder = try Folder()
        // 10,000 screens with a long toast each: a last checkpoint of more than 1,000 pages.
        let text = String(repeating: "x", count: 1_800)
        let events = (0..<10_000).map { #"{"message":"\#(text) \#($0)","user":"u\#($0)","duration":null}"# }
        try (events.joined(separator: "\n") + "\n").write(toFile: folder.file("events.jsonl"), atomically: true, encoding: .utf8)
        try #"config{ screens = { by = "user" } }"#.write(toFile: folder.file("screens.lua"), atomically: true, encoding: .utf8)
        let state = folder.file("state")
        let command = ["--format", "json", "--state", state, "--checkpoint", "0", "--output", folder.file("out.jsonl"), "-q",
                       "--events", folder.file("events.jsonl"), folder.file("screens.lua")]
        // The database alone is a copy without its WAL, made before `sqlite3` reads the state
        // (it copies the WAL in when it closes).
        func databaseAlone(_ name: String, _ query: String) throws -> String {
            try FileManager.default.copyItem(atPath: state, toPath: folder.file(name))
            return try StateTests.sqlite(folder.file(name), query)
        }
        let first = try runBinary(command)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try databaseAlone("alone-1", "SELECT count(*) FROM sqlite_master") == "0\n")
        let again = try runBinary(command)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try databaseAlone("alone-2", "SELECT count(*) FROM screens") == "10000\n")
    }
}
