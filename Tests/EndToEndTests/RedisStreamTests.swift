import Foundation
import Testing

/// Redis Streams (docs/scale.md), against a `redis-server` each test starts: a consumer killed
/// at any moment and started again writes each record once, in one run's order; bad entries are
/// rejected by id, kept and acknowledged; a live consumer follows the stream's clock and a
/// signal commits what it holds; a server that goes away is waited for, then given up on.
@Suite(.serialized) struct RedisStreamTests {
    typealias Folder = StateTests.Folder

    /// A consumer's arguments; `quiet: false` keeps its notes (a server's outage, a takeover).
    static func consumer(_ server: RedisServer, group: String = "toasts", to output: String = "out", _ options: [String] = [],
                         scripts: [String] = ["examples/service.lua"], quiet: Bool = true) -> [String] {
        ["--redis", server.socket, "--from", "events", "--group", group, "--consumer", "c1", "--to", output]
            + (quiet ? ["-q"] : []) + options + scripts
    }

    /// Starts the binary (stdin empty; stderr appended to the folder's `stderr`).
    static func start(_ arguments: [String], folder: Folder) throws -> Process {
        try StateTests.start(arguments, input: "/dev/null", folder: folder)
    }

    static func stderr(_ folder: Folder) -> String {
        String(decoding: folder.bytes("stderr"), as: UTF8.self)
    }

    /// Waits until `stream` holds `count` records (for at most 20 s), and returns them.
    static func waitForRecords(_ server: RedisServer, _ stream: String = "out", count: Int) throws -> [String] {
        for _ in 0..<2_000 {
            let records = try server.records(of: stream)
            if records.count >= count { return records }
            usleep(10_000)
        }
        return try server.records(of: stream)
    }

    static func field(_ record: String, _ name: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any] else { return nil }
        return object[name].map { "\($0)" }
    }

    @Test func aConsumerKilledAtRandomMomentsWritesEachRecordOnceInTheOrderOfOneRun() throws {
        let folder = try Folder()
        let server = try RedisServer()
        let input = folder.file("events.jsonl")
        try StateTests.serviceStream(copies: 20, into: input)
        let whole = String(decoding: try StateTests.wholeRun(input, folder), as: UTF8.self)
        try server.add(to: "events", field: "event", try String(contentsOfFile: input, encoding: .utf8)
            .split(separator: "\n").map(String.init))
        // How long a whole run takes here (a group of its own): kills land within it.
        let started = Date()
        let timing = try Self.start(Self.consumer(server, group: "timing", to: "timing", ["--once"]), folder: folder)
        timing.waitUntilExit()
        let duration = Date().timeIntervalSince(started)
        var random = SystemRandomNumberGenerator()
        var kills = 0
        for trial in 0..<3 {
            let arguments = Self.consumer(server, group: "trial\(trial)", to: "out\(trial)", ["--once", "--checkpoint", "0.000001"])
            var runs = 0
            while true {
                runs += 1
                let process = try Self.start(arguments, folder: folder)
                if runs < 80 {
                    Thread.sleep(forTimeInterval: Double.random(in: 0..<(duration * 0.2), using: &random))
                    kill(process.processIdentifier, SIGKILL)
                }
                process.waitUntilExit()
                if process.terminationReason == .exit {
                    #expect(process.terminationStatus == 0, "\(Self.stderr(folder))")
                    break
                }
                kills += 1
            }
            let records = try server.records(of: "out\(trial)")
            // A Bool: a failed comparison of megabytes would be described byte by byte.
            let same = records.joined(separator: "\n") + "\n" == whole
            let difference = StateTests.firstDifference(Data((records.joined(separator: "\n") + "\n").utf8), Data(whole.utf8))
            #expect(same, "trial \(trial): killed \(runs - 1) times; \(difference)")
            #expect(try server.cli(["XPENDING", "events", "trial\(trial)"]).hasPrefix("0\n"))
        }
        #expect(kills >= 16, "killed only \(kills) times")
    }

    @Test func entriesWithoutAnEventAreRejectedByIdKeptAndAcknowledged() throws {
        let folder = try Folder()
        let server = try RedisServer()
        try server.add(to: "events", field: "event", [#"{"at":1,"message":"Saved","role":"success"}"#])
        try server.add(to: "events", field: "line", [#"{"at":2,"message":"Sync failed","role":"error"}"#])
        try server.add(to: "events", field: "note", ["hello\u{1b}[2J"])
        try server.add(to: "events", field: "event", ["not json"])
        let ids = try server.cli(["XRANGE", "events", "-", "+"]).split(separator: "\n").enumerated()
            .filter { $0.offset % 3 == 0 }.map { String($0.element) }
        try #require(ids.count == 4)
        let arguments = Self.consumer(server, ["--once", "--dead-letter", folder.file("bad")], scripts: ["-e", "config{}"])
        let run = try runBinary(arguments)
        #expect(run.status == 65)
        #expect(run.stderr == """
            toastscript: entry \(ids[2]) of events: has no field event or line (its fields: note)
            toastscript: entry \(ids[3]) of events: invalid JSON at column 1: unexpected 'n', expected a value
            toastscript: 2 input lines rejected (--dead-letter has every rejected line; --stats counts them)

            """)
        let records = try server.records(of: "out")
        #expect(records.map { Self.field($0, "event") ?? "" } == ["present", "dismiss", "present", "dismiss"])
        #expect(records.map { Self.field($0, "id") ?? "" } == ["t1", "t1", "t2", "t2"])
        #expect(String(decoding: folder.bytes("bad"), as: UTF8.self)
                == #"{"id":"\#(ids[2])","fields":{"note":"hello\u001b[2J"}}"# + "\nnot json\n")
        #expect(try server.cli(["XPENDING", "events", "toasts"]).hasPrefix("0\n"))
        // Started again, it has nothing to do: every entry was acknowledged.
        let again = try runBinary(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try server.records(of: "out").count == 4)
    }

    /// An entry without `at` happens at its ID's time (its milliseconds), event or line alike,
    /// so a consumer that restarts gives it the same time again; one with `at` keeps its own.
    @Test func anEntryWithoutATimeHappensAtItsIdsTime() throws {
        let server = try RedisServer()
        try server.cli(["XADD", "events", "1000-0", "event", #"{"message":"Saved","role":"success"}"#])
        try server.cli(["XADD", "events", "2500-0", "line", "2026-11-28 [error] disk gone"])
        try server.cli(["XADD", "events", "2600-0", "event", #"{"at":2.75,"message":"Later"}"#])
        let run = try runBinary(Self.consumer(server, ["--once", "--input", "text"], scripts: ["-e", "config{ queue = { policy = 'stack' } }"]))
        #expect(run.status == 0, "\(run.stderr)")
        let presents = try server.records(of: "out").filter { Self.field($0, "event") == "present" }
        #expect(presents.map { "\(Self.field($0, "id") ?? "") \(Self.field($0, "t") ?? "") \(Self.field($0, "role") ?? "")" }
                == ["t1 1 success", "t2 2.5 error", "t3 2.75 info"])
    }

    @Test func recordsFromAnyInputGoToAStreamWithTo() throws {
        let server = try RedisServer()
        let whole = try runBinary(["--format", "json", "examples/service.lua"], stdinFile: "examples/service.jsonl")
        let run = try runBinary(["--redis", server.socket, "--to", "records", "examples/service.lua"], stdinFile: "examples/service.jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let records = try server.records(of: "records")
        #expect(records.count > 100)
        #expect(records.joined(separator: "\n") + "\n" == whole.stdout)
    }

    @Test func aRedisThatCannotBeUsedStopsTheRunAtTheStart() throws {
        let server = try RedisServer()
        let missing = server.folder + "/none.sock"
        var run = try runBinary(["--redis", missing, "--from", "events", "--group", "g", "--consumer", "c", "-e", "config{}"])
        #expect(run.status == 1)
        #expect(run.stderr == "toastscript: redis \(missing): cannot connect: No such file or directory\n")
        run = try runBinary(["--redis", "redis://127.0.0.1:1", "--to", "out", "-e", "config{}"], stdin: "")
        #expect(run.stderr == "toastscript: redis redis://127.0.0.1:1: cannot connect: Connection refused\n")
        #expect(run.status == 1)
        try server.cli(["SET", "events", "x"])
        run = try runBinary(Self.consumer(server, ["--once"]))
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("toastscript: redis \(server.socket): XGROUP CREATE events toasts: WRONGTYPE"), "\(run.stderr)")
        try server.cli(["DEL", "events"])
        try server.cli(["SET", "out", "x"])
        run = try runBinary(Self.consumer(server, ["--once"]))
        #expect(run.status == 1)
        #expect(run.stderr == "toastscript: redis \(server.socket): --to out is a string, not a stream\n")
    }

    @Test func aDamagedStateIsRefusedUntilReset() throws {
        let server = try RedisServer()
        try server.add(to: "events", field: "event", [#"{"at":1,"message":"Saved"}"#])
        try server.cli(["SET", "toastscript:state:toasts:c1", "garbage"])
        let key = "redis \(server.socket) key toastscript:state:toasts:c1"
        let run = try runBinary(Self.consumer(server, ["--once"]))
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("toastscript: \(key): the state is damaged ("), "\(run.stderr)")
        #expect(run.stderr.hasSuffix("); it was left as it is, and --state-reset starts afresh\n"), "\(run.stderr)")
        #expect(try server.cli(["GET", "toastscript:state:toasts:c1"]) == "garbage\n")
        #expect(run.stderr.contains("the state is damaged (it is not a toastscript state)"), "\(run.stderr)")
        #expect(try server.records(of: "out").isEmpty)
        let reset = try runBinary(Self.consumer(server, ["--once", "--state-reset"]))
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try server.records(of: "out").count == 2)
        #expect(try server.cli(["HGET", "toastscript:state:toasts:c1", "run:format"]) == "3\n")
        #expect(Int(try server.cli(["HGET", "toastscript:state:toasts:c1", "commit"]).dropLast()).map { $0 >= 1 } == true)
    }

    @Test func aLiveConsumerFollowsTheStreamAndASignalCommitsWhatItHolds() throws {
        let folder = try Folder()
        let server = try RedisServer()
        let arguments = Self.consumer(server, scripts: ["-e", "config{}"])
        let first = try Self.start(arguments, folder: folder)
        // A toast of 0.2 s: its timeout falls in real time while the stream is quiet.
        try server.add(to: "events", field: "event", [#"{"message":"Saved","duration":0.2}"#])
        var records = try Self.waitForRecords(server, count: 2)
        #expect(records.map { Self.field($0, "event") ?? "" } == ["present", "dismiss"])
        #expect(Self.field(records[1], "reason") == "timeout")
        try server.add(to: "events", field: "event", [#"{"message":"Sticky","duration":100}"#])
        records = try Self.waitForRecords(server, count: 3)
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 143, "\(Self.stderr(folder))")
        // The signal saved the visible toast instead of ending it; a new run goes on with it.
        #expect(try server.records(of: "out").count == 3)
        let second = try Self.start(arguments, folder: folder)
        try server.add(to: "events", field: "event", [#"{"type":"dismiss_all"}"#])
        records = try Self.waitForRecords(server, count: 4)
        kill(second.processIdentifier, SIGTERM)
        second.waitUntilExit()
        #expect(records.count == 4)
        #expect(records.last.map { Self.field($0, "id") } == "t2")
        #expect(records.last.map { Self.field($0, "reason") } == "programmatic")
    }

    @Test func aServerThatComesBackIsUsedAgainAndOneThatStaysAwayEndsTheRun() throws {
        let folder = try Folder()
        let server = try RedisServer(keepsData: true)
        let arguments = Self.consumer(server, scripts: ["-e", "config{}"], quiet: false)
        let consumer = try Self.start(arguments, folder: folder)
        try server.add(to: "events", field: "event", [#"{"message":"Saved","duration":100}"#])
        _ = try Self.waitForRecords(server, count: 1)
        server.stop()
        usleep(500_000)
        try server.start()
        try server.add(to: "events", field: "event", [#"{"type":"dismiss_all"}"#])
        let records = try Self.waitForRecords(server, count: 2)
        #expect(records.map { Self.field($0, "event") ?? "" } == ["present", "dismiss"])
        #expect(Self.stderr(folder).contains("; trying again for up to 30 s (--redis-timeout)\n"), "\(Self.stderr(folder))")
        #expect(Self.stderr(folder).contains("note: redis \(server.socket): back after "), "\(Self.stderr(folder))")
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        #expect(consumer.terminationStatus == 143)

        // Away for longer than --redis-timeout: exit 1, the last commit kept.
        let impatient = try Self.start(arguments + ["--redis-timeout", "0.5"], folder: folder)
        try server.add(to: "events", field: "event", [#"{"message":"Again","duration":100}"#])
        _ = try Self.waitForRecords(server, count: 3)
        server.stop()
        impatient.waitUntilExit()
        #expect(impatient.terminationStatus == 1)
        let lastLine = Self.stderr(folder).split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.hasPrefix("toastscript: redis \(server.socket): "), "\(lastLine)")
        #expect(lastLine.hasSuffix("; the last commit is kept, and nothing after it was acknowledged"), "\(lastLine)")
        // --redis-timeout counts in full: the last wait is cut to what is left, not skipped.
        let gaveUpAfter = lastLine.components(separatedBy: "; gave up after ").last?.prefix { $0 != " " } ?? ""
        #expect(Double(gaveUpAfter).map { $0 >= 0.5 && $0 < 1 } == true, "\(lastLine)")
    }
}

extension RedisStreamTests {
    /// docs/scale.md's producer line and its template unit's `ExecStart=` line, run here against
    /// the test's own server as shard 2: the entry the producer adds comes out as records.
    @Test func theScalePagesProducerAndUnitRun() throws {
        let page = try String(contentsOfFile: root + "/docs/scale.md", encoding: .utf8)
        let lines = page.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let producer = try #require(lines.first { $0.hasPrefix("redis-cli XADD ") })
        let start = try #require(lines.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let folder = try Folder()
        let server = try RedisServer()
        let arguments = start.replacingOccurrences(of: "/run/redis/redis.sock", with: server.socket)
            .replacingOccurrences(of: "/etc/toastscript/rules.lua", with: root + "/examples/service.lua")
            .replacingOccurrences(of: "%i", with: "2")
            .split(separator: " ").map(String.init)
        #expect(arguments.first == "/usr/local/bin/toastscript")
        let consumer = try Self.start(Array(arguments.dropFirst()), folder: folder)
        let added = try runShell(producer.replacingOccurrences(of: "redis-cli ", with: "redis-cli -s \(server.socket) "))
        #expect(added.status == 0, "\(added.stderr)")
        let records = try Self.waitForRecords(server, "records:2", count: 1)
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        #expect(consumer.terminationStatus == 143, "\(Self.stderr(folder))")
        #expect(records.first.map { Self.field($0, "message") } == "Saved")
        #expect(try server.cli(["HGET", "toastscript:state:toasts:shard2", "run:format"]) == "3\n")
    }
}
