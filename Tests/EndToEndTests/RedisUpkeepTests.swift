import Foundation
import Testing

/// What keeps a Redis deployment tidy (docs/scale.md): `--to-maxlen` caps the records stream,
/// `--trim` removes the input entries every group has acknowledged and no others, and a start
/// names the entries another consumer name left pending.
@Suite(.serialized) struct RedisUpkeepTests {
    static func events(_ count: Int) -> [String] {
        (1...count).map { #"{"at":\#($0),"message":"event \#($0)","duration":0.5}"# }
    }

    @Test func toMaxlenKeepsTheRecordsStreamNearItsLastEntries() throws {
        let server = try RedisServer()
        // Small stream nodes, so that MAXLEN ~ trims close to the number asked.
        try server.cli(["CONFIG", "SET", "stream-node-max-entries", "10"])
        let input = Self.events(500).joined(separator: "\n") + "\n"
        let whole = try runBinary(["--format", "json", "-e", "config{}"], stdin: input)
        let run = try runBinary(["--redis", server.socket, "--to", "records", "--to-maxlen", "100", "-e", "config{}"], stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        let records = try server.records(of: "records")
        #expect(records.count >= 100 && records.count <= 110, "\(records.count)")
        #expect(records == Array(whole.stdout.split(separator: "\n").map(String.init).suffix(records.count)))

        let alone = try runBinary(["--to-maxlen", "100", "-e", "config{}"], stdin: "")
        #expect(alone.status == 2)
        #expect(alone.stderr.hasPrefix("toastscript: --to-maxlen needs --redis URL|SOCKET\n"))
        let noStream = try runBinary(["--redis", server.socket, "--from", "events", "--group", "g", "--consumer", "c",
                                      "--to-maxlen", "0", "-e", "config{}"], stdin: "")
        #expect(noStream.status == 2)
        #expect(noStream.stderr.hasPrefix("toastscript: --to-maxlen takes a number of entries ≥ 1, not '0'\n"))
    }

    @Test func trimRemovesOnlyWhatEveryGroupAcknowledged() throws {
        let server = try RedisServer()
        try server.add(to: "events", field: "event", Self.events(10))
        try server.cli(["XGROUP", "CREATE", "events", "audit", "0"])
        let arguments = ["--redis", server.socket, "--from", "events", "--group", "toasts", "--consumer", "c1", "--to", "out",
                         "--once", "--trim", "-q", "-e", "config{}"]
        let first = try runBinary(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        // The group audit has read nothing: every entry stays.
        #expect(try server.cli(["XLEN", "events"]) == "10\n")
        // audit reads four and acknowledges two: what is before its first pending entry can go.
        let read = try server.cli(["XREADGROUP", "GROUP", "audit", "a1", "COUNT", "4", "STREAMS", "events", ">"])
        let ids = read.split(separator: "\n").map(String.init).filter { $0.contains("-") && !$0.contains("{") && $0 != "events" }
        try #require(ids.count == 4, "\(read)")
        try server.cli(["XACK", "events", "audit", ids[0], ids[1]])
        try server.add(to: "events", field: "event", [#"{"at":11,"message":"late","duration":0.5}"#])
        let second = try runBinary(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try server.cli(["XLEN", "events"]) == "9\n")
        #expect(try server.cli(["XRANGE", "events", "-", "+", "COUNT", "1"]).hasPrefix(ids[2] + "\n"))
        #expect(try server.records(of: "out").count == 22)
    }

    @Test func aStartNamesEntriesPendingUnderAnotherIdleConsumer() throws {
        let server = try RedisServer()
        try server.add(to: "events", field: "event", Self.events(3))
        try server.cli(["XGROUP", "CREATE", "events", "toasts", "0"])
        // A consumer of an old name took two entries and never acknowledged them.
        try server.cli(["XREADGROUP", "GROUP", "toasts", "shard-old", "COUNT", "2", "STREAMS", "events", ">"])
        usleep(50_000)
        let run = try runBinary(["--redis", server.socket, "--from", "events", "--group", "toasts", "--consumer", "c1",
                                 "--to", "out", "--once", "--redis-timeout", "0.01", "-e", "config{}"])
        #expect(run.status == 0, "\(run.stderr)")
        let warning = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(warning.hasPrefix("toastscript: warning: 2 entries of events are pending in group toasts under consumer shard-old, idle for 0."),
                "\(run.stderr)")
        #expect(warning.hasSuffix(" s: nobody handles them until a consumer of that name starts"), "\(run.stderr)")
        // c1 got only the entry nobody had taken.
        #expect(try server.records(of: "out").count == 2)
        let patient = try runBinary(["--redis", server.socket, "--from", "events", "--group", "toasts", "--consumer", "c1",
                                     "--to", "out", "--once", "-e", "config{}"])
        #expect(!patient.stderr.contains("pending"), "idle for less than --redis-timeout: \(patient.stderr)")
    }
}
