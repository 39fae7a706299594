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

    /// The first words of the error replies of a server that is there but cannot answer now
    /// (loading its data, running a script, a cluster or a failover in progress, a replica
    /// that was a master): asked again a moment later, it may.
    static let notNowErrors = ["LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "READONLY"]

    /// Whether this is such an error reply (`BUSYGROUP` and `BUSYKEY` are not: they are answers).
    package var isNotNow: Bool {
        guard case .error(let message) = self else { return false }
        let word = message.prefix { $0 != " " }
        return Self.notNowErrors.contains { word == $0 }
    }
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
    /// Whether the connection failed (no server, closed, timed out) or the server answered
    /// "not now" (`RedisReply.isNotNow`), which trying again on a new connection may mend,
    /// rather than the server answering with an error, which it will not.
    package var isConnectionFailure: Bool
    /// Whether the server is there and said "not now": at the start, that is waited out
    /// rather than reported as a server that cannot be used.
    package var isNotNow: Bool
    /// Whether the server came back without writes it had confirmed (a restart from older
    /// data, a failover to a lagging replica): the consumer's run in hand no longer matches
    /// the server's state, and goes on from that state as a restart would.
    package var serverLostWrites: Bool

    package init(server: String, problem: String, isConnectionFailure: Bool = false, isNotNow: Bool = false,
                 serverLostWrites: Bool = false) {
        self.server = server
        self.problem = problem
        self.isConnectionFailure = isConnectionFailure
        self.isNotNow = isNotNow
        self.serverLostWrites = serverLostWrites
    }

    package var description: String { "redis \(server): \(problem)" }
}
