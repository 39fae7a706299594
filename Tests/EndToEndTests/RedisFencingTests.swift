import Foundation
import Testing

/// Two processes under one consumer name never both commit (docs/scale.md): each start takes
/// the next epoch, and a consumer a later start took over stops at its next commit, nothing of
/// that batch written; the entries it held stay pending and the next start handles them once.
@Suite(.serialized) struct RedisFencingTests {
    typealias Folder = StateTests.Folder

    @Test func aConsumerTakenOverStopsWithItsBatchUncommittedAndTheNextStartWritesItOnce() throws {
        let folder = try Folder()
        let server = try RedisServer()
        let arguments = RedisStreamTests.consumer(server, scripts: ["-e", "config{}"], quiet: false)
        let first = try RedisStreamTests.start(arguments, folder: folder)
        try server.add(to: "events", field: "event", [#"{"message":"Saved","duration":100}"#])
        #expect(try RedisStreamTests.waitForRecords(server, count: 1).count == 1)
        #expect(try server.cli(["GET", "toastscript:epoch:toasts:c1"]) == "1\n")
        // A later start of toasts/c1 (as a second process would take it).
        try server.cli(["INCR", "toastscript:epoch:toasts:c1"])
        try server.add(to: "events", field: "event", [#"{"type":"dismiss_all"}"#])
        first.waitUntilExit()
        #expect(first.terminationStatus == 1)
        let lastLine = RedisStreamTests.stderr(folder).split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine == "toastscript: redis \(server.socket): another consumer took over toasts/c1 (its start 2 came after "
                + "this one's, 1); the last commit is kept, and nothing after it was acknowledged")
        #expect(try server.records(of: "out").count == 1)

        let next = try runBinary(RedisStreamTests.consumer(server, ["--once"], scripts: ["-e", "config{}"]))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try server.records(of: "out").map { RedisStreamTests.field($0, "event") ?? "" } == ["present", "dismiss"])
        #expect(try server.cli(["GET", "toastscript:epoch:toasts:c1"]) == "3\n")
    }
}
