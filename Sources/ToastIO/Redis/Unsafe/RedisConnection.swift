#if canImport(Glibc)
import Glibc
#endif
import CHiredis
import ToastCore

/// A connection to one Redis server through Debian's hiredis, for the Redis Streams source and
/// sink (docs/scale.md): a command is a list of arguments, sent binary-safe, and its reply comes
/// back as a `RedisReply` value. Blocking, with a limit on every wait.
///
/// Safe to use: the hiredis context is this object's alone, made in `init` and freed once in
/// `deinit`; a reply is copied into Swift values and freed before `command` returns, so no
/// pointer into hiredis's memory outlives the call that got it.
package final class RedisConnection {
    package let address: RedisAddress
    private let context: UnsafeMutablePointer<redisContext>

    /// Connects, waiting at most `timeout` for the server and then for each reply, and selects
    /// the address's database. Throws a `RedisError` that names the server.
    package init(_ address: RedisAddress, timeout: Duration) throws(RedisError) {
        self.address = address
        let micros = max(StreamTime.microseconds(timeout), 1_000)
        let limit = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
        let made: UnsafeMutablePointer<redisContext>? = switch address.place {
        case .tcp(let host, let port): redisConnectWithTimeout(host, Int32(port), limit)
        case .unix(let path): redisConnectUnixWithTimeout(path, limit)
        }
        guard let made else { throw RedisError(server: address.description, problem: "cannot make a connection (out of memory)") }
        guard made.pointee.err == 0 else {
            let problem = Self.errorText(of: made)
            redisFree(made)
            throw RedisError(server: address.description, problem: "cannot connect: \(problem)", isConnectionFailure: true)
        }
        context = made
        _ = redisSetTimeout(context, limit)
        if address.database != 0 {
            let reply = try command(["SELECT", String(address.database)])
            if case .error(let message) = reply { throw RedisError(server: address.description, problem: "SELECT: \(message)") }
        }
    }

    deinit {
        redisFree(context)
    }

    /// Sends one command and waits for its reply. A Redis error reply (`ERR …`) is a reply, not
    /// a throw; a connection that fails (closed, timed out) throws, naming the command.
    package func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try commands([RedisCommand(arguments)])[0]
    }

    /// Sends the commands at once and then reads their replies, in order: one round trip for a
    /// batch (a transaction of many `XADD`s) instead of one a command. A connection that fails
    /// throws, naming the first command whose reply did not come.
    package func commands(_ list: [RedisCommand]) throws(RedisError) -> [RedisReply] {
        var replies: [RedisReply] = []
        replies.reserveCapacity(list.count)
        let failed: Int? = Self.withoutBrokenPipeSignal {
            for (index, command) in list.enumerated() where !command.append(to: context) { return index }
            for index in list.indices {
                var raw: UnsafeMutableRawPointer?
                guard redisGetReply(context, &raw) == REDIS_OK, let raw else { return index }
                replies.append(Self.value(of: raw.assumingMemoryBound(to: redisReply.self)))
                freeReplyObject(raw)
            }
            return nil
        }
        if let failed {
            throw RedisError(server: address.description, problem: "\(list[failed].name): \(Self.errorText(of: context))",
                             isConnectionFailure: true)
        }
        return replies
    }

    /// Runs `body` with SIGPIPE held back on this thread: a server that went away makes the
    /// write fail (EPIPE), as it should, instead of ending a process that did not ignore the
    /// signal (an embedding program). A SIGPIPE the write raised is taken, not left pending.
    private static func withoutBrokenPipeSignal<Result>(_ body: () -> Result) -> Result {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var before = sigset_t()
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        let wasPending = sigismember(&pendingBefore, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &before)
        let result = body()
        var pending = sigset_t()
        sigpending(&pending)
        if !wasPending && sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeOnly, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &before, nil)
        return result
    }

    private static func value(of reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let node = reply.pointee
        func text() -> String {
            guard let characters = node.str else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: characters, count: node.len), as: UTF8.self)
        }
        switch node.type {
        case REDIS_REPLY_STATUS: return .status(text())
        case REDIS_REPLY_ERROR: return .error(text())
        case REDIS_REPLY_INTEGER: return .integer(node.integer)
        case REDIS_REPLY_STRING: return .string(text())
        case REDIS_REPLY_ARRAY:
            var items: [RedisReply] = []
            items.reserveCapacity(node.elements)
            for index in 0..<node.elements {
                if let element = node.element?[index] { items.append(value(of: element)) } else { items.append(.nil) }
            }
            return .array(items)
        default: return .nil
        }
    }

    private static func errorText(of context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
