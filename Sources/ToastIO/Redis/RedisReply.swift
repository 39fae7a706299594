/// A Redis reply as a value (RESP2): what `RedisConnection.command` returns.
package indirect enum RedisReply: Equatable, Sendable {
    /// A simple status (`OK`, `PONG`).
    case status(String)
    /// An error reply (`ERR unknown command …`): the server's words, not a failed connection.
    case error(String)
    case integer(Int64)
    /// A bulk string (a stream entry's field or value, an id).
    case string(String)
    case array([RedisReply])
    case `nil`
}

/// The reply to a command that reads a stream's entries: the entries, or any other reply (an
/// error) as it came.
package enum StreamEntriesReply: Equatable, Sendable {
    case entries([RedisStreamEntry])
    case other(RedisReply)
}

/// A connection to Redis that failed, or a server that cannot be used: says which server, and
/// what went wrong (and with which command).
package struct RedisError: Error, Equatable, CustomStringConvertible {
    package var server: String
    package var problem: String
    /// Whether the connection failed (no server, closed, timed out), which trying again on a
    /// new one may mend, rather than the server answering with an error, which it will not.
    package var isConnectionFailure: Bool

    package init(server: String, problem: String, isConnectionFailure: Bool = false) {
        self.server = server
        self.problem = problem
        self.isConnectionFailure = isConnectionFailure
    }

    package var description: String { "redis \(server): \(problem)" }
}
