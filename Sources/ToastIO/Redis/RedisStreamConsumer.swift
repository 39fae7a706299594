import ToastCore

/// One consumer of a Redis Streams consumer group (SPEC 11.5): it reads the entries the group
/// gives it, its own pending ones first — those delivered to it before and never acknowledged,
/// which a consumer started again after a crash takes up before anything new — and
/// acknowledges them once they are handled.
package struct RedisStreamConsumer {
    package let client: RedisClient
    package let stream: String
    package let group: String
    package let name: String
    /// The id after which its own pending entries are read next; nil once they are all read.
    private var pendingAfter: String? = "0"
    /// The last entry handed out, and the client's count of new connections after the last read.
    private var lastHandedOut: String?
    private var reconnectionsSeen = 0
    /// The client's count of new connections at the last commit: a commit on a newer one reads
    /// the state's commit number first.
    private var reconnectionsAtCommit = 0
    /// The start's number this consumer commits under, and the key that holds the newest
    /// (nil: it does not commit).
    package var epoch: RedisEpoch?

    package init(client: RedisClient, stream: String, group: String, name: String) {
        self.client = client
        self.stream = stream
        self.group = group
        self.name = name
        reconnectionsSeen = client.reconnections
        reconnectionsAtCommit = client.reconnections
    }

    private var server: String { client.address.description }

    /// Makes the group when it is missing, reading the stream from its start (and the stream,
    /// when that is missing too); a group that exists is used as it is.
    package func joinGroup() throws(RedisError) {
        let reply = try client.perform { connection, _ throws(RedisError) in
            try connection.command(["XGROUP", "CREATE", stream, group, "0", "MKSTREAM"])
        }
        if case .error(let message) = reply, !message.hasPrefix("BUSYGROUP") {
            throw RedisError(server: server, problem: "XGROUP CREATE \(stream) \(group): \(message)")
        }
    }

    /// Takes the next number of the consumer's starts (`INCR key`): from now on, a consumer of
    /// the same group and name started earlier can no longer commit.
    package func takeEpoch(key: String) throws(RedisError) -> RedisEpoch {
        let reply = try client.perform { connection, _ throws(RedisError) in try connection.command(["INCR", key]) }
        guard case .integer(let number) = reply else { throw RedisError(server: server, problem: "INCR \(key): \(reply)") }
        return RedisEpoch(key: key, number: number)
    }

    /// The id of the stream's last entry (nil: it has none): `--once` reads up to it.
    package func lastEntryID() throws(RedisError) -> RedisEntryID? {
        let reply = try client.perform { connection, _ throws(RedisError) in
            try connection.streamEntries(["XREVRANGE", stream, "+", "-", "COUNT", "1"])
        }
        switch reply {
        case .entries(let entries):
            return entries.first.flatMap { RedisEntryID($0.id) }
        case .other(.error(let message)):
            throw RedisError(server: server, problem: "XREVRANGE \(stream): \(message)")
        case .other:
            throw RedisError(server: server, problem: "XREVRANGE \(stream): an unexpected reply")
        }
    }

    /// The next entries, at most `count`: its own pending ones while there are any, then new
    /// ones, waiting up to `wait` for them (nil: not at all). Empty when there are none.
    ///
    /// A read whose reply was lost with its connection may have given it entries: they are its
    /// pending ones after the last it handed out, and are read from there, in order, before
    /// anything new (so also after a command on the same client was tried again).
    package mutating func next(count: Int, wait: Duration?) throws(RedisError) -> [RedisStreamEntry] {
        if client.reconnections != reconnectionsSeen { pendingAfter = lastHandedOut ?? "0" }
        var arguments = ["COUNT", String(count)]
        if pendingAfter == nil, let wait { arguments += ["BLOCK", String(max(1, StreamTime.microseconds(wait) / 1_000))] }
        let pending = ["COUNT", String(count), "STREAMS", stream, pendingAfter ?? lastHandedOut ?? "0"]
        let (entries, readPending) = try read { retried in
            retried || pendingAfter != nil ? pending : arguments + ["STREAMS", stream, ">"]
        }
        reconnectionsSeen = client.reconnections
        if let last = entries.last { lastHandedOut = last.id }
        guard readPending else { return entries }
        pendingAfter = entries.last?.id
        // Its pending entries all read: new ones now, in the same call.
        return entries.isEmpty ? try next(count: count, wait: wait) : entries
    }

    /// Commits a batch in one transaction (`MULTI`/`EXEC`): its records appended to `records.stream`,
    /// the state's changed fields set and its forgotten ones deleted, and the entries it handled
    /// acknowledged, so that after a crash either all of it happened or none did. A commit whose
    /// reply was lost with the connection is looked up before it is sent again: it happened when
    /// the state's `commit` field holds its number.
    ///
    /// On a connection made after the last commit, the state's `commit` field is read first: a
    /// number that is neither this commit's nor the one before it means the server lost
    /// writes it had confirmed, and the commit throws an error that says so
    /// (`serverLostWrites`), nothing sent.
    package mutating func commit(records: RecordLines?, state: RedisHashChanges, acknowledging ids: [String]) throws(RedisError) {
        let connectionsChecked = reconnectionsAtCommit
        try client.perform { connection, retried throws(RedisError) in
            if retried || client.reconnections != connectionsChecked {
                if try isCommitted(state, on: connection) { return }
            }
            if let epoch { try watch(epoch, on: connection) }
            var commands = RedisCommands(["MULTI"])
            records?.appendAdds(to: &commands)
            state.appendCommands(to: &commands)
            if !ids.isEmpty { commands.append(["XACK", stream, group] + ids) }
            commands.append(["EXEC"])
            let replies = try connection.commands(commands)
            // EXEC answers nil when a key it watched changed: another start took the epoch.
            if let epoch, replies.last == .nil { throw tookOver(epoch, by: nil) }
            try Self.checkTransaction(replies, commands: commands, server: server)
        }
        reconnectionsAtCommit = client.reconnections
    }

    /// Whether the commit of `state` was made: the state's `commit` field holds its number (a
    /// transaction is made whole or not at all). When it holds neither that number nor the
    /// one before (the last this consumer made, or the one it started from), the server lost
    /// writes: that throws. A commit that replaces the whole state follows no number of its own.
    package func isCommitted(_ state: RedisHashChanges, on connection: RedisConnection) throws(RedisError) -> Bool {
        let reply = try connection.command(["HGET", state.key, RedisHashChanges.commitField])
        if reply == .string(String(state.commit)) { return true }
        guard !state.replacesAll else { return false }
        let found: Int64? = if case .string(let text) = reply { Int64(text) } else { nil }
        if found == state.commit - 1 || (found == nil && state.commit == 1) { return false }
        throw RedisError(server: server, problem: "the state's last commit there is \(found.map(String.init) ?? "none"), not this consumer's "
                         + "\(state.commit - 1): the server lost writes it had confirmed (a restart from older data, a failover to a "
                         + "replica behind it)", serverLostWrites: true)
    }

    /// The other consumers of the group that hold pending entries and have been idle longer
    /// than `idle` (a shard moved under a new name, a consumer gone for good): their entries
    /// are handled by nobody until a consumer of that name starts.
    package func idleConsumersWithPending(idleLongerThan idle: Microseconds) throws(RedisError) -> [(name: String, pending: Int64, idle: Microseconds)] {
        let reply = try client.perform { connection, _ throws(RedisError) in
            try connection.command(["XINFO", "CONSUMERS", stream, group])
        }
        guard case .array(let consumers) = reply else {
            throw RedisError(server: server, problem: "XINFO CONSUMERS \(stream) \(group): \(reply)")
        }
        return consumers.compactMap { consumer in
            guard case .array(let fields) = consumer else { return nil }
            let info = Self.pairs(fields)
            guard case .string(let other)? = info["name"], other != name, case .integer(let pending)? = info["pending"],
                  pending > 0, case .integer(let idleMilliseconds)? = info["idle"], idleMilliseconds &* 1_000 > idle else { return nil }
            return (other, pending, idleMilliseconds &* 1_000)
        }
    }

    /// Removes the stream's entries that every group has acknowledged (`--trim`): those before
    /// the first one some group still has pending, or has not been given yet. Exact
    /// (`XTRIM MINID`), so an entry a group may still need is never removed.
    package func trimAcknowledged() throws(RedisError) {
        try client.perform { connection, _ throws(RedisError) in
            guard case .array(let groups) = try connection.command(["XINFO", "GROUPS", stream]) else {
                throw RedisError(server: server, problem: "XINFO GROUPS \(stream): an unexpected reply")
            }
            var keepFrom: RedisEntryID?
            for case .array(let fields) in groups {
                let info = Self.pairs(fields)
                guard case .string(let groupName)? = info["name"], case .string(let lastID)? = info["last-delivered-id"],
                      var first = RedisEntryID(lastID) else { continue }
                first.sequence += 1
                if case .integer(let pending)? = info["pending"], pending > 0,
                   case .array(let summary) = try connection.command(["XPENDING", stream, groupName]),
                   summary.count > 1, case .string(let smallest) = summary[1], let oldest = RedisEntryID(smallest) {
                    first = min(first, oldest)
                }
                keepFrom = min(keepFrom ?? first, first)
            }
            guard let keepFrom else { return }
            let reply = try connection.command(["XTRIM", stream, "MINID", keepFrom.description])
            if case .error(let message) = reply { throw RedisError(server: server, problem: "XTRIM \(stream): \(message)") }
        }
    }

    /// A reply's `name, value, name, value…` list as a table.
    private static func pairs(_ list: [RedisReply]) -> [String: RedisReply] {
        var table: [String: RedisReply] = [:]
        for index in stride(from: 0, to: list.count - 1, by: 2) {
            if case .string(let name) = list[index] { table[name] = list[index + 1] }
        }
        return table
    }

    /// Watches the epoch's key until the transaction's `EXEC`, and checks that it still holds
    /// this consumer's number: a start after this one fences it, so that two processes under
    /// one name never both commit.
    private func watch(_ epoch: RedisEpoch, on connection: RedisConnection) throws(RedisError) {
        var commands = RedisCommands(["WATCH", epoch.key])
        commands.append(["GET", epoch.key])
        let replies = try connection.commands(commands)
        guard case .string(let text)? = replies.last, let current = Int64(text) else {
            throw RedisError(server: server, problem: "GET \(epoch.key): \(replies.last.map { "\($0)" } ?? "no reply")")
        }
        if current != epoch.number {
            _ = try? connection.command(["UNWATCH"])
            throw tookOver(epoch, by: current)
        }
    }

    private func tookOver(_ epoch: RedisEpoch, by current: Int64?) -> RedisError {
        let later = current.map { "its start \($0) came after this one's, \(epoch.number)" } ?? "a start came after this one's, \(epoch.number)"
        return RedisError(server: server, problem: "another consumer took over \(group)/\(name) (\(later))")
    }

    /// A transaction's replies: `OK`, `QUEUED` for each command, then `EXEC`'s list of results.
    private static func checkTransaction(_ replies: [RedisReply], commands: RedisCommands, server: String) throws(RedisError) {
        for (index, reply) in replies.enumerated() {
            if case .error(let message) = reply { throw RedisError(server: server, problem: "\(commands.name(of: index)): \(message)") }
        }
        guard case .array(let results)? = replies.last else {
            throw RedisError(server: server, problem: "EXEC: the transaction was not run (\(replies.last.map { "\($0)" } ?? "no reply"))")
        }
        for (index, result) in results.enumerated() {
            if case .error(let message) = result { throw RedisError(server: server, problem: "\(commands.name(of: index + 1)): \(message)") }
        }
    }

    /// `XREADGROUP` with the arguments `query` gives (for a first try, or a try again); the
    /// entries, and whether they are pending ones (read after an id, not `>`).
    private func read(_ query: (_ retried: Bool) -> [String]) throws(RedisError) -> (entries: [RedisStreamEntry], pending: Bool) {
        var arguments: [String] = []
        let reply = try client.perform { connection, retried throws(RedisError) in
            arguments = query(retried)
            return try connection.streamEntries(["XREADGROUP", "GROUP", group, name] + arguments)
        }
        switch reply {
        case .entries(let entries):
            // A deleted entry still pending comes without fields.
            return (entries, arguments.last != ">")
        case .other(.error(let message)):
            throw RedisError(server: server, problem: "XREADGROUP \(stream) \(group): \(message)")
        case .other:
            throw RedisError(server: server, problem: "XREADGROUP \(stream) \(group): an unexpected reply")
        }
    }
}

/// What a commit writes of a consumer's state hash: the fields set and deleted, and the
/// commit's number in the field `commit`.
package struct RedisHashChanges: Sendable {
    /// The field that holds the number of the last commit.
    package static let commitField = "commit"
    package var key: String
    package var commit: Int64
    package var set: [(field: String, value: ArraySlice<UInt8>)] = []
    package var deleted: [String] = []
    /// The key is emptied first: a fresh state (or `--state-reset`) keeps nothing of the old.
    package var replacesAll = false

    package init(key: String, commit: Int64) {
        self.key = key
        self.commit = commit
    }

    /// `DEL` (when it replaces all), `HSET` of the fields and the commit number, `HDEL`.
    func appendCommands(to commands: inout RedisCommands) {
        if replacesAll { commands.append(["DEL", key]) }
        commands.start()
        commands.add("HSET")
        commands.add(key)
        commands.add(Self.commitField)
        commands.add(String(commit))
        for (field, value) in set {
            commands.add(field)
            value.withUnsafeBufferPointer { commands.add($0) }
        }
        if !deleted.isEmpty { commands.append(["HDEL", key] + deleted) }
    }
}

/// A consumer's start number, and the key that holds the newest (`RedisOptions.epochKey`).
package struct RedisEpoch: Equatable, Sendable {
    package var key: String
    package var number: Int64

    package init(key: String, number: Int64) {
        self.key = key
        self.number = number
    }
}

/// The records of a batch, one a line (each ending in a newline), and the stream they go to
/// as entries with field `record`.
package struct RecordLines {
    package var stream: String
    package var bytes: [UInt8]
    /// `--to-maxlen`: the stream is capped near this many entries.
    package var maxLength: Int?

    package init(stream: String, bytes: [UInt8], maxLength: Int? = nil) {
        self.stream = stream
        self.bytes = bytes
        self.maxLength = maxLength
    }

    /// An `XADD STREAM [MAXLEN ~ N] * record LINE` for each line.
    package func appendAdds(to commands: inout RedisCommands) {
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while let end = buffer[start...].firstIndex(of: 0x0A) {
                commands.start()
                commands.add("XADD")
                commands.add(stream)
                if let maxLength {
                    commands.add("MAXLEN")
                    commands.add("~")
                    commands.add(String(maxLength))
                }
                commands.add("*")
                commands.add("record")
                commands.add(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end + 1
            }
        }
    }
}

/// A stream entry's id, `MILLISECONDS-SEQUENCE`, as numbers that sort as the stream does.
package struct RedisEntryID: Comparable, Sendable, CustomStringConvertible {
    package var milliseconds: UInt64
    package var sequence: UInt64

    package init?(_ text: String) {
        guard let dash = text.utf8.firstIndex(of: UInt8(ascii: "-")),
              let milliseconds = UInt64(text[..<dash]), let sequence = UInt64(text[text.index(after: dash)...]) else { return nil }
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    package static func < (left: Self, right: Self) -> Bool {
        (left.milliseconds, left.sequence) < (right.milliseconds, right.sequence)
    }

    package var description: String { "\(milliseconds)-\(sequence)" }
}

/// An entry of a stream: its id and its fields, in order.
package struct RedisStreamEntry: Equatable, Sendable {
    package var id: String
    package var fields: [RedisStreamField]

    package init(id: String, fields: [RedisStreamField]) {
        self.id = id
        self.fields = fields
    }

    /// The value of the field `name` (the first one).
    package func value(of name: String) -> String? {
        fields.first { $0.name == name }?.value
    }
}

package struct RedisStreamField: Equatable, Sendable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
