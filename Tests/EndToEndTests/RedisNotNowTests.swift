import Foundation
import Testing

/// A Redis that is there but answers "not now" — `LOADING` while it reads its data after a
/// restart, `BUSY` while a script runs — is waited for like a lost connection, at the start
/// and during a run, within `--redis-timeout` counted in full (docs/scale.md).
@Suite(.serialized) struct RedisNotNowTests {
    typealias Folder = StateTests.Folder

    @Test func aServerRestartedWithALargeDatasetIsWaitedForWhileItLoads() throws {
        let folder = try Folder()
        let server = try RedisServer(keepsData: true)
        let arguments = RedisStreamTests.consumer(server, scripts: ["-e", "config{}"], quiet: false)
        let consumer = try RedisStreamTests.start(arguments, folder: folder)
        try server.add(to: "events", field: "event", [#"{"message":"Saved","duration":100}"#])
        _ = try RedisStreamTests.waitForRecords(server, count: 1)
        // 30,000 keys in the append-only file, each loaded 100 µs late: some 3 s of LOADING.
        try server.cli(["DEBUG", "POPULATE", "30000"])
        try server.cli(["BGREWRITEAOF"])
        while try server.cli(["INFO", "persistence"]).contains("aof_rewrite_in_progress:1") { usleep(20_000) }
        usleep(200_000)
        server.stop()
        // The consumer tries again every 0.1 to 2 s: it is answered LOADING (fatal before).
        try server.start(["--key-load-delay", "100"])
        // A command other than PING waits until the data is loaded.
        try server.cli(["DBSIZE"])
        try server.add(to: "events", field: "event", [#"{"type":"dismiss_all"}"#])
        let records = try RedisStreamTests.waitForRecords(server, count: 2)
        #expect(records.map { RedisStreamTests.field($0, "event") ?? "" } == ["present", "dismiss"])
        kill(consumer.processIdentifier, SIGTERM)
        consumer.waitUntilExit()
        #expect(consumer.terminationStatus == 143, "\(RedisStreamTests.stderr(folder))")
        #expect(RedisStreamTests.stderr(folder).contains("note: redis \(server.socket): back after "))
        #expect(RedisStreamTests.stderr(folder).contains(": LOADING Redis is loading the dataset in memory; still trying\n"),
                "\(RedisStreamTests.stderr(folder))")
        #expect(!RedisStreamTests.stderr(folder).contains("toastscript: redis"), "no failure: \(RedisStreamTests.stderr(folder))")
    }

    @Test func aServerBusyWithAScriptAtTheStartIsWaitedFor() throws {
        let folder = try Folder()
        let server = try RedisServer()
        try server.add(to: "events", field: "event", [#"{"at":1,"message":"Saved","duration":1}"#])
        try server.cli(["CONFIG", "SET", "busy-reply-threshold", "50"])
        // A script that never ends: every other command is answered BUSY until it is killed.
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        script.arguments = ["redis-cli", "-s", server.socket, "EVAL", "while true do end", "0"]
        script.standardOutput = FileHandle.nullDevice
        script.standardError = FileHandle.nullDevice
        try script.run()
        usleep(300_000)
        let arguments = RedisStreamTests.consumer(server, ["--once"], scripts: ["-e", "config{}"], quiet: false)
        let consumer = try RedisStreamTests.start(arguments, folder: folder)
        usleep(800_000)
        #expect(consumer.isRunning, "\(RedisStreamTests.stderr(folder))")
        try server.cli(["SCRIPT", "KILL"])
        script.waitUntilExit()
        consumer.waitUntilExit()
        #expect(consumer.terminationStatus == 0, "\(RedisStreamTests.stderr(folder))")
        #expect(try server.records(of: "out").map { RedisStreamTests.field($0, "event") ?? "" } == ["present", "dismiss"])
        let stderr = RedisStreamTests.stderr(folder)
        #expect(stderr.contains("note: redis \(server.socket): TYPE: BUSY Redis is busy running a script. You can only call "
                                + "SCRIPT KILL or SHUTDOWN NOSAVE.; trying again for up to 30 s (--redis-timeout)\n"), "\(stderr)")
        #expect(stderr.contains("note: redis \(server.socket): back after "), "\(stderr)")
    }
}
