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
        try commands(RedisCommands(arguments))[0]
    }

    /// Sends the commands at once and then reads their replies, in order: one round trip for a
    /// batch (a transaction of many `XADD`s) instead of one a command. A connection that fails
    /// throws, naming the first command whose reply did not come.
    package func commands(_ list: RedisCommands) throws(RedisError) -> [RedisReply] {
        var replies: [RedisReply] = []
        replies.reserveCapacity(list.count)
        try exchange(list) { replies.append(Self.value(of: $0)) }
        return replies
    }

    /// Sends `XREADGROUP` (or `XRANGE`) and reads its reply straight into entries, without a
    /// `RedisReply` for each of their parts: what a consumer reads most.
    package func streamEntries(_ arguments: [String]) throws(RedisError) -> StreamEntriesReply {
        var result = StreamEntriesReply.entries([])
        try exchange(RedisCommands(arguments)) { reply in
            switch reply.pointee.type {
            case REDIS_REPLY_NIL:
                result = .entries([])
            case REDIS_REPLY_ARRAY where arguments.first == "XREADGROUP":
                // [[stream, [entry, …]], …]
                var entries: [RedisStreamEntry] = []
                for stream in Self.elements(of: reply) {
                    guard let list = Self.element(of: stream, at: 1) else { continue }
                    entries.reserveCapacity(entries.count + Self.count(of: list))
                    for index in 0..<Self.count(of: list) {
                        if let item = Self.element(of: list, at: index), let entry = Self.entry(item) { entries.append(entry) }
                    }
                }
                result = .entries(entries)
            case REDIS_REPLY_ARRAY:
                result = .entries(Self.elements(of: reply).compactMap { Self.entry($0) })
            default:
                result = .other(Self.value(of: reply))
            }
        }
        return result
    }

    /// Sends `list`, then hands each reply to `read` (which must not keep it) and frees it.
    /// A reply that says "not now" (`RedisReply.isNotNow`) throws once every reply is read, as
    /// a failure that trying again may mend.
    private func exchange(_ list: RedisCommands, read: (UnsafeMutablePointer<redisReply>) -> Void) throws(RedisError) {
        var notNow: (index: Int, reply: RedisReply)?
        let failed: Int? = Self.withoutBrokenPipeSignal {
            if let index = list.send(to: context) { return index }
            for index in 0..<list.count {
                var raw: UnsafeMutableRawPointer?
                guard redisGetReply(context, &raw) == REDIS_OK, let raw else { return index }
                let reply = raw.assumingMemoryBound(to: redisReply.self)
                if notNow == nil, reply.pointee.type == REDIS_REPLY_ERROR {
                    let value = Self.value(of: reply)
                    if value.isNotNow { notNow = (index, value) }
                }
                read(reply)
                freeReplyObject(raw)
            }
            return nil
        }
        if let failed {
            throw RedisError(server: address.description, problem: "\(list.name(of: failed)): \(Self.errorText(of: context))",
                             isConnectionFailure: true)
        }
        if let notNow, case .error(let message) = notNow.reply {
            throw RedisError(server: address.description, problem: "\(list.name(of: notNow.index)): \(message)",
                             isConnectionFailure: true, isNotNow: true)
        }
    }

    private static func elements(of reply: UnsafeMutablePointer<redisReply>) -> [UnsafeMutablePointer<redisReply>] {
        (0..<count(of: reply)).compactMap { element(of: reply, at: $0) }
    }

    private static func count(of reply: UnsafeMutablePointer<redisReply>) -> Int {
        reply.pointee.type == REDIS_REPLY_ARRAY ? reply.pointee.elements : 0
    }

    private static func element(of reply: UnsafeMutablePointer<redisReply>, at index: Int) -> UnsafeMutablePointer<redisReply>? {
        index < count(of: reply) ? reply.pointee.element?[index] : nil
    }

    private static func text(of reply: UnsafeMutablePointer<redisReply>?) -> String? {
        guard let reply, reply.pointee.type == REDIS_REPLY_STRING || reply.pointee.type == REDIS_REPLY_STATUS else { return nil }
        guard let characters = reply.pointee.str else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: characters, count: reply.pointee.len), as: UTF8.self)
    }

    /// `[id, [field, value, …]]` (the fields nil: an entry deleted while pending).
    private static func entry(_ reply: UnsafeMutablePointer<redisReply>) -> RedisStreamEntry? {
        guard count(of: reply) == 2, let id = text(of: element(of: reply, at: 0)) else { return nil }
        var fields: [RedisStreamField] = []
        if let flat = element(of: reply, at: 1) {
            let total = count(of: flat)
            fields.reserveCapacity(total / 2)
            var index = 0
            while index + 1 < total {
                if let name = text(of: element(of: flat, at: index)), let value = text(of: element(of: flat, at: index + 1)) {
                    fields.append(RedisStreamField(name: name, value: value))
                }
                index += 2
            }
        }
        return RedisStreamEntry(id: id, fields: fields)
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
