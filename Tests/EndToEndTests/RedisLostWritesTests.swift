import Foundation
import Testing

/// A Redis that comes back without writes it had confirmed — restarted from an older
/// append-only file here, as after a power loss with `appendfsync everysec` or a failover to a
/// replica behind it — is found out by the state's commit number at the consumer's next commit;
/// the consumer says so and goes on from the server's state and pending entries, as a restart
/// would (docs/scale.md). Its records then equal one run over the entries the server kept.
@Suite(.serialized) struct RedisLostWritesTests {
    typealias Folder = StateTests.Folder

    /// `--state-reset` empties the state at the start it was given to, not at the start again.
    @Test(arguments: [[], ["--state-reset"]])
    func aServerThatLostCommitsIsFollowedFromItsOwnState(options: [String]) throws {
        let folder = try Folder()
        let server = try RedisServer(keepsData: true)
        let arguments = RedisStreamTests.consumer(server, options, scripts: ["-e", "config{}"], quiet: false)
        let consumer = try RedisStreamTests.start(arguments, folder: folder)
        // Times far apart and long durations: the follow clock's wall-time drift changes nothing.
        try server.add(to: "events", field: "event", [#"{"at":0,"id":"a","message":"Saved","duration":10000}"#])
        #expect(try RedisStreamTests.waitForRecords(server, count: 1).count == 1)
        let saved = folder.file("appendonlydir-then")
        try FileManager.default.copyItem(atPath: server.folder + "/appendonlydir", toPath: saved)

        // Committed, then lost: the dismissal of "a" never happened as far as the server knows.
        try server.add(to: "events", field: "event", [#"{"at":1000,"type":"dismiss_all"}"#])
        #expect(try RedisStreamTests.waitForRecords(server, count: 2).count == 2)
        server.stop()
        try FileManager.default.removeItem(atPath: server.folder + "/appendonlydir")
        try FileManager.default.copyItem(atPath: saved, toPath: server.folder + "/appendonlydir")
        try server.start()
        #expect(try server.records(of: "out").count == 1)

        try server.add(to: "events", field: "event", [#"{"at":2000,"id":"b","message":"Synced","duration":10000}"#])
        for _ in 0..<2_000 where !RedisStreamTests.stderr(folder).contains("lost writes") { usleep(10_000) }
        try server.add(to: "events", field: "event", [#"{"at":3000,"type":"dismiss","id":"a"}"#])
        _ = try RedisStreamTests.waitForRecords(server, count: 3)
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        #expect(consumer.terminationStatus == 143, "\(RedisStreamTests.stderr(folder))")
        let warning = "warning: redis \(server.socket): the state's last commit there is 2, not this consumer's 3: the server lost "
            + "writes it had confirmed (a restart from older data, a failover to a replica behind it); going on from its state and "
            + "pending entries there, as a restart would\n"
        #expect(RedisStreamTests.stderr(folder).contains(warning), "\(RedisStreamTests.stderr(folder))")
        let finish = try runBinary(RedisStreamTests.consumer(server, ["--once"], scripts: ["-e", "config{}"]))
        #expect(finish.status == 0, "\(finish.stderr)")

        // One run over the entries the server kept, in a group of its own.
        let reference = try runBinary(RedisStreamTests.consumer(server, group: "reference", to: "reference", ["--once"],
                                                                scripts: ["-e", "config{}"]))
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try server.records(of: "reference")
        #expect(expected.map { RedisStreamTests.field($0, "event") ?? "" } == ["present", "dismiss", "present", "dismiss"])
        #expect(try server.records(of: "out") == expected)
        #expect(try server.cli(["XPENDING", "events", "toasts"]).hasPrefix("0\n"))
    }
}
