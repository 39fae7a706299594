import Foundation
import Testing
@testable import ToastIO
import ToastCore

/// The Redis client (Debian's hiredis) against a real `redis-server` started here, on a Unix
/// socket in a folder of the test's own (`Scripts/setup --test` installs it).
@Suite(.serialized) struct RedisConnectionTests {
    /// A `redis-server` of the test's own, stopped when the value goes.
    final class Server: @unchecked Sendable {
        let folder: String
        let socket: String
        private let process = Process()

        /// A server on `socket` (a new folder's when nil).
        init(socket: String? = nil) throws {
            folder = socket.map { ($0 as NSString).deletingLastPathComponent }
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("ts-redis-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            self.socket = socket ?? folder + "/redis.sock"
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["redis-server", "--port", "0", "--unixsocket", self.socket, "--save", "", "--appendonly", "no",
                                 "--dir", folder]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var tries = 0
            while !FileManager.default.fileExists(atPath: self.socket) && tries < 200 {
                usleep(20_000)
                tries += 1
            }
        }

        deinit {
            // SIGKILL: a child may inherit a signal mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test func commandsAndRepliesGoThroughARealServer() throws {
        let server = try Server()
        let redis = try RedisConnection(RedisAddress(place: .unix(path: server.socket)), timeout: .seconds(2))
        #expect(try redis.command(["PING"]) == .status("PONG"))
        // Binary-safe arguments: a newline and an empty string are values like any other.
        guard case .string(let id) = try redis.command(["XADD", "events", "*", "event", "{\"message\":\"a\\nb\"}", "empty", ""]) else {
            Issue.record("XADD gave no id")
            return
        }
        #expect(try redis.command(["XLEN", "events"]) == .integer(1))
        #expect(try redis.command(["XRANGE", "events", "-", "+"]) == .array([
            .array([.string(id), .array([.string("event"), .string("{\"message\":\"a\\nb\"}"), .string("empty"), .string("")])]),
        ]))
        #expect(try redis.command(["GET", "missing"]) == .nil)
        #expect(try redis.command(["NO-SUCH-COMMAND"]) == .error("ERR unknown command 'NO-SUCH-COMMAND', with args beginning with: "))
    }

    @Test func aDatabaseIsSelected() throws {
        let server = try Server()
        let zero = try RedisConnection(RedisAddress(place: .unix(path: server.socket)), timeout: .seconds(2))
        let three = try RedisConnection(RedisAddress(place: .unix(path: server.socket), database: 3), timeout: .seconds(2))
        #expect(try three.command(["SET", "k", "v"]) == .status("OK"))
        #expect(try zero.command(["GET", "k"]) == .nil)
        #expect(try three.command(["GET", "k"]) == .string("v"))
    }

    @Test func noServerIsAnErrorThatNamesIt() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/ts-redis-none-\(getpid())"
        #expect(throws: RedisError(server: folder + "/redis.sock", problem: "cannot connect: No such file or directory", isConnectionFailure: true)) {
            try RedisConnection(RedisAddress(place: .unix(path: folder + "/redis.sock")), timeout: .seconds(1))
        }
        #expect(throws: RedisError(server: "redis://127.0.0.1:1", problem: "cannot connect: Connection refused", isConnectionFailure: true)) {
            try RedisConnection(RedisAddress(place: .tcp(host: "127.0.0.1", port: 1)), timeout: .seconds(1))
        }
    }

    @Test func aServerThatGoesAwayMidRunIsAnErrorThatNamesTheCommand() throws {
        var server: Server? = try Server()
        let redis = try RedisConnection(RedisAddress(place: .unix(path: try #require(server).socket)), timeout: .seconds(1))
        #expect(try redis.command(["PING"]) == .status("PONG"))
        server = nil
        #expect(throws: RedisError.self) { try redis.command(["XLEN", "events"]) }
        do {
            _ = try redis.command(["XLEN", "events"])
        } catch {
            #expect(error.description.hasPrefix("redis \(FileManager.default.temporaryDirectory.path)"), "\(error)")
            #expect(error.problem.hasPrefix("XLEN: "), "\(error)")
        }
    }

    @Test(arguments: [
        ("redis://localhost", RedisAddress(place: .tcp(host: "localhost", port: 6379))),
        ("redis://10.0.0.5:6380/2", RedisAddress(place: .tcp(host: "10.0.0.5", port: 6380), database: 2)),
        ("redis://[::1]:7000", RedisAddress(place: .tcp(host: "::1", port: 7000))),
        ("/run/redis/redis.sock", RedisAddress(place: .unix(path: "/run/redis/redis.sock"))),
        ("unix:///run/redis/redis.sock?db=4", RedisAddress(place: .unix(path: "/run/redis/redis.sock"), database: 4)),
    ])
    func addressesAreReadAsRedisWritesThem(text: String, address: RedisAddress) {
        #expect(RedisAddress(text) == address)
    }

    @Test(arguments: ["localhost:6379", "redis://", "redis://host:0", "redis://host:99999", "redis://host/x", "unix://relative",
                      "unix:///tmp/s?db=x"])
    func otherTextIsNoAddress(text: String) {
        #expect(RedisAddress(text) == nil)
    }
}

/// A consumer of a consumer group, against a real server: the group made when missing, its own
/// pending entries first after a restart, acknowledged ones never again, a batch committed whole.
@Suite(.serialized) struct RedisStreamConsumerTests {
    typealias Server = RedisConnectionTests.Server

    private func connect(_ server: Server) throws -> RedisConnection {
        try RedisConnection(RedisAddress(place: .unix(path: server.socket)), timeout: .seconds(2))
    }

    private func client(_ socket: String, retryFor: Microseconds = 0, replyTimeout: Duration = .seconds(2),
                        notes: NoteLog = NoteLog()) throws -> RedisClient {
        try RedisClient(address: RedisAddress(place: .unix(path: socket)), replyTimeout: replyTimeout, retryFor: retryFor,
                        clock: { Microseconds(Date().timeIntervalSince1970 * 1_000_000) }, note: { notes.lines.append($0) },
                        shouldStop: { false })
    }

    /// A server another thread starts (the test reads it after that thread said so).
    final class ServerSlot: @unchecked Sendable {
        var server: Server?
    }

    final class NoteLog: @unchecked Sendable {
        var lines: [String] = []
    }

    private func add(_ redis: RedisConnection, _ messages: [String]) throws -> [String] {
        try messages.map { message in
            guard case .string(let id) = try redis.command(["XADD", "events", "*", "event", #"{"message":"\#(message)"}"#]) else {
                throw RedisError(server: "test", problem: "XADD gave no id")
            }
            return id
        }
    }

    @Test func aRestartedConsumerTakesUpItsOwnPendingEntriesFirst() throws {
        let server = try Server()
        let producer = try connect(server)
        let ids = try add(producer, ["a", "b", "c"])
        var first = RedisStreamConsumer(client: try client(server.socket), stream: "events", group: "toasts", name: "c1")
        try first.joinGroup()
        try first.joinGroup()   // a group that exists is used as it is
        let read = try first.next(count: 10, wait: nil)
        #expect(read.map(\.id) == ids)
        #expect(read.map { $0.value(of: "event") } == [#"{"message":"a"}"#, #"{"message":"b"}"#, #"{"message":"c"}"#])
        try first.commit(records: nil, state: RedisHashChanges(key: "state", commit: 1), acknowledging: [ids[0]])
        // Killed before it acknowledged b and c; d came meanwhile.
        let later = try add(producer, ["d"])
        var again = RedisStreamConsumer(client: try client(server.socket), stream: "events", group: "toasts", name: "c1")
        try again.joinGroup()
        #expect(try again.next(count: 1, wait: nil).map(\.id) == [ids[1]])
        #expect(try again.next(count: 10, wait: nil).map(\.id) == [ids[2]])
        #expect(try again.next(count: 10, wait: .milliseconds(10)).map(\.id) == later)
        #expect(try again.next(count: 10, wait: .milliseconds(10)).isEmpty)
        #expect(try again.lastEntryID().map { "\($0.milliseconds)-\($0.sequence)" } == later[0])
    }

    /// Entries a read gave the consumer whose reply it never got (here another instance of the
    /// same consumer reads them, and then the connection is cut) are read again from its
    /// pending entries, in order, before anything new.
    @Test func entriesOfAReadWhoseReplyWasLostAreReadFromThePendingOnes() throws {
        let server = try Server()
        let admin = try connect(server)
        let ids = try add(admin, ["a", "b", "c"])
        var consumer = RedisStreamConsumer(client: try client(server.socket, retryFor: 5_000_000), stream: "events",
                                           group: "toasts", name: "c1")
        try consumer.joinGroup()
        #expect(try consumer.next(count: 1, wait: nil).map(\.id) == [ids[0]])
        var lostReply = RedisStreamConsumer(client: try client(server.socket), stream: "events", group: "toasts", name: "c1")
        #expect(try lostReply.next(count: 10, wait: nil).map(\.id) == [ids[0]])   // pending, then
        #expect(try lostReply.next(count: 10, wait: nil).map(\.id) == [ids[1], ids[2]])   // new ones, now c1's
        let later = try add(admin, ["d"])
        #expect(try admin.command(["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"]) == .integer(2))
        #expect(try consumer.next(count: 10, wait: nil).map(\.id) == [ids[1], ids[2]])
        #expect(try consumer.next(count: 10, wait: nil).map(\.id) == later)
        #expect(try consumer.next(count: 10, wait: nil).isEmpty)
    }

    @Test func aCommitAppendsTheRecordsSetsTheStateAndAcknowledgesTogether() throws {
        let server = try Server()
        let producer = try connect(server)
        let ids = try add(producer, ["a", "b"])
        var consumer = RedisStreamConsumer(client: try client(server.socket), stream: "events", group: "toasts", name: "c1")
        try consumer.joinGroup()
        _ = try consumer.next(count: 10, wait: nil)
        var state = RedisHashChanges(key: "toastscript:state:toasts:c1", commit: 7)
        state.set = [("part:clock", Array("{}".utf8)[...])]
        try consumer.commit(records: RecordLines(stream: "out", bytes: Array("{\"event\":\"present\"}\nx\ty\n".utf8)),
                            state: state, acknowledging: ids)
        guard case .entries(let entries) = try producer.streamEntries(["XRANGE", "out", "-", "+"]) else {
            Issue.record("no out stream")
            return
        }
        #expect(entries.map { $0.value(of: "record") } == ["{\"event\":\"present\"}", "x\ty"])
        #expect(try producer.command(["HGETALL", "toastscript:state:toasts:c1"])
                == .array([.string("commit"), .string("7"), .string("part:clock"), .string("{}")]))
        #expect(try producer.command(["XPENDING", "events", "toasts"]) == .array([.integer(0), .nil, .nil, .nil]))
    }

    /// A commit whose connection is cut before it is sent is made on a new one, once; and a
    /// commit that was made is found so (what a commit whose reply was lost asks before it is
    /// sent again), one that was not is not.
    @Test func aCommitIsTriedAgainOnANewConnectionOnlyWhenItWasNotMade() throws {
        let server = try Server()
        let admin = try connect(server)
        let ids = try add(admin, ["a", "b"])
        let notes = NoteLog()
        var consumer = RedisStreamConsumer(client: try client(server.socket, retryFor: 5_000_000, notes: notes), stream: "events",
                                           group: "toasts", name: "c1")
        try consumer.joinGroup()
        _ = try consumer.next(count: 10, wait: nil)
        let check = try connect(server)
        var state = RedisHashChanges(key: "state", commit: 1)
        state.set = [("part:clock", Array("{}".utf8)[...])]
        #expect(try consumer.isCommitted(state, on: check) == false)
        #expect(try admin.command(["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"]) == .integer(2))
        try consumer.commit(records: RecordLines(stream: "out", bytes: Array("x\ny\n".utf8)), state: state, acknowledging: ids)
        #expect(notes.lines.first?.contains("trying again") == true, "\(notes.lines)")
        #expect(try admin.command(["XLEN", "out"]) == .integer(2))
        let again = try connect(server)
        #expect(try consumer.isCommitted(state, on: again))
        #expect(try consumer.isCommitted(RedisHashChanges(key: "state", commit: 2), on: again) == false)
        // A state whose last commit is older than the one before this: the server lost writes.
        do {
            _ = try consumer.isCommitted(RedisHashChanges(key: "state", commit: 3), on: again)
            Issue.record("commit 1 found before commit 3 was not called lost writes")
        } catch {
            #expect(error.serverLostWrites)
            #expect(error.problem.hasPrefix("the state's last commit there is 1, not this consumer's 2: the server lost writes"), "\(error)")
        }
    }

    @Test func aServerThatComesBackWithinTheLimitIsUsedAgainWithANote() throws {
        var server: Server? = try Server()
        let socket = try #require(server).socket
        let notes = NoteLog()
        let redis = try client(socket, retryFor: 10_000_000, notes: notes)
        #expect(try redis.perform { connection, _ throws(RedisError) in try connection.command(["SET", "k", "1"]) } == .status("OK"))
        server = nil
        // A new server on the same socket a moment later: the command goes through on it.
        let later = ServerSlot()
        let started = DispatchSemaphore(value: 0)
        Thread {
            usleep(300_000)
            later.server = try? Server(socket: socket)
            started.signal()
        }.start()
        let reply = try redis.perform { connection, retried throws(RedisError) in
            try connection.command(["SET", "k", retried ? "again" : "first"])
        }
        #expect(reply == .status("OK"))
        #expect(redis.reconnections == 1)
        #expect(notes.lines.count == 2, "\(notes.lines)")
        #expect(notes.lines.first?.contains("trying again for up to 10 s (--redis-timeout)") == true, "\(notes.lines)")
        #expect(notes.lines.last?.hasPrefix("note: redis \(socket): back after ") == true, "\(notes.lines)")
        started.wait()
    }

    @Test func aServerThatStaysAwayEndsTheRetriesAtTheLimit() throws {
        var server: Server? = try Server()
        let socket = try #require(server).socket
        let redis = try client(socket, retryFor: 500_000)
        server = nil
        do {
            _ = try redis.perform { connection, _ throws(RedisError) in try connection.command(["PING"]) }
            Issue.record("a server that is gone answered")
        } catch {
            #expect(error.isConnectionFailure)
            #expect(error.problem.contains("; gave up after 0."), "\(error)")
        }
    }

    @Test func aGroupOnAKeyThatIsNoStreamIsAnErrorThatSaysSo() throws {
        let server = try Server()
        let redis = try connect(server)
        #expect(try redis.command(["SET", "events", "x"]) == .status("OK"))
        let consumer = RedisStreamConsumer(client: try client(server.socket), stream: "events", group: "toasts", name: "c1")
        do {
            try consumer.joinGroup()
            Issue.record("a group on a string key was made")
        } catch {
            #expect(!error.isConnectionFailure)
            #expect(error.problem.hasPrefix("XGROUP CREATE events toasts: WRONGTYPE"), "\(error)")
        }
    }
}
