import ToastCore

/// One consumer of a Redis Streams consumer group (SPEC 11.5): it reads the entries the group
/// gives it, its own pending ones first — those delivered to it before and never acknowledged,
/// which a consumer started again after a crash takes up before anything new — and
/// acknowledges them once they are handled.
package struct RedisStreamConsumer {
    package let connection: RedisConnection
    package let stream: String
    package let group: String
    package let name: String
    /// The id after which its own pending entries are read next; nil once they are all read.
    private var pendingAfter: String? = "0"

    package init(connection: RedisConnection, stream: String, group: String, name: String) {
        self.connection = connection
        self.stream = stream
        self.group = group
        self.name = name
    }

    /// Makes the group when it is missing, reading the stream from its start (and the stream,
    /// when that is missing too); a group that exists is used as it is.
    package func joinGroup() throws(RedisError) {
        let reply = try connection.command(["XGROUP", "CREATE", stream, group, "0", "MKSTREAM"])
        if case .error(let message) = reply, !message.hasPrefix("BUSYGROUP") {
            throw RedisError(server: connection.address.description, problem: "XGROUP CREATE \(stream) \(group): \(message)")
        }
    }

    /// The next entries, at most `count`: its own pending ones while there are any, then new
    /// ones, waiting up to `wait` for them (nil: not at all). Empty when there are none.
    package mutating func next(count: Int, wait: Duration?) throws(RedisError) -> [RedisStreamEntry] {
        if let after = pendingAfter {
            let entries = try read(["COUNT", String(count), "STREAMS", stream, after])
            if let last = entries.last {
                pendingAfter = last.id
                return entries
            }
            pendingAfter = nil
        }
        var arguments = ["COUNT", String(count)]
        if let wait { arguments += ["BLOCK", String(max(1, StreamTime.microseconds(wait) / 1_000))] }
        return try read(arguments + ["STREAMS", stream, ">"])
    }

    /// Acknowledges handled entries: the group gives them to no one again.
    package func acknowledge(_ ids: [String]) throws(RedisError) {
        guard !ids.isEmpty else { return }
        if case .error(let message) = try connection.command(["XACK", stream, group] + ids) {
            throw RedisError(server: connection.address.description, problem: "XACK \(stream) \(group): \(message)")
        }
    }

    private func read(_ arguments: [String]) throws(RedisError) -> [RedisStreamEntry] {
        let reply = try connection.command(["XREADGROUP", "GROUP", group, name] + arguments)
        switch reply {
        case .nil:
            return []
        case .error(let message):
            throw RedisError(server: connection.address.description, problem: "XREADGROUP \(stream) \(group): \(message)")
        case .array(let streams):
            // [[stream, [[id, [field, value, …]], …]]]; a deleted entry still pending has no fields.
            return streams.flatMap { item -> [RedisStreamEntry] in
                guard case .array(let parts) = item, parts.count == 2, case .array(let entries) = parts[1] else { return [] }
                return entries.compactMap(RedisStreamEntry.init(reply:))
            }
        default:
            throw RedisError(server: connection.address.description, problem: "XREADGROUP \(stream) \(group): an unexpected reply")
        }
    }
}

/// An entry of a stream: its id and its fields, in order.
package struct RedisStreamEntry: Equatable, Sendable {
    package var id: String
    package var fields: [RedisStreamField]

    package init(id: String, fields: [RedisStreamField]) {
        self.id = id
        self.fields = fields
    }

    /// An entry of an `XREADGROUP`/`XRANGE` reply: `[id, [field, value, …]]` (fields nil: deleted).
    init?(reply: RedisReply) {
        guard case .array(let parts) = reply, parts.count == 2, case .string(let id) = parts[0] else { return nil }
        self.id = id
        var fields: [RedisStreamField] = []
        if case .array(let flat) = parts[1] {
            var index = 0
            while index + 1 < flat.count {
                if case .string(let name) = flat[index], case .string(let value) = flat[index + 1] {
                    fields.append(RedisStreamField(name: name, value: value))
                }
                index += 2
            }
        }
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
