#if canImport(Glibc)
import Glibc
#endif
import ToastCore

/// The connection a Redis run works through, made again when it fails (SPEC 11.5): a
/// command whose connection fails is tried again on a new one, waiting longer each time, for
/// up to `retryFor` (`--redis-timeout`), with a note when it fails and when it is back; then
/// the failure is the run's. A server that answers with an error is not tried again.
///
/// The first connection is made at once or not at all: a Redis that is not there at the start
/// is a mistake to report, not an outage to wait out.
package final class RedisClient {
    package let address: RedisAddress
    /// The longest wait for a reply; a reply that takes longer fails the connection.
    private let replyTimeout: Duration
    private let retryFor: Microseconds
    private let clock: () -> Microseconds
    private let note: (String) -> Void
    private let shouldStop: () -> Bool
    private var connection: RedisConnection?
    /// How many connections were made after the first: a consumer reads its pending entries
    /// again after a new one, since a reply lost with the old one may have given it entries.
    package private(set) var reconnections = 0

    package init(address: RedisAddress, replyTimeout: Duration, retryFor: Microseconds, clock: @escaping () -> Microseconds,
                 note: @escaping (String) -> Void, shouldStop: @escaping () -> Bool) throws(RedisError) {
        self.address = address
        self.replyTimeout = replyTimeout
        self.retryFor = retryFor
        self.clock = clock
        self.note = note
        self.shouldStop = shouldStop
        connection = try RedisConnection(address, timeout: replyTimeout)
    }

    /// Runs `body` on the connection, and again on a new one while its connection fails, within
    /// `retryFor`. `body` learns whether it runs again (`retried`): what it sent before may
    /// have been done, its reply lost.
    package func perform<Result>(_ body: (_ connection: RedisConnection, _ retried: Bool) throws(RedisError) -> Result)
        throws(RedisError) -> Result {
        var failedAt: Microseconds?
        var delay: Microseconds = 100_000
        while true {
            do {
                let current: RedisConnection
                if let connection {
                    current = connection
                } else {
                    current = try RedisConnection(address, timeout: replyTimeout)
                    connection = current
                    reconnections += 1
                }
                let result = try body(current, failedAt != nil)
                if let failedAt {
                    note("note: redis \(address): back after \(StreamTime.format(clock() - failedAt)) s")
                }
                return result
            } catch {
                guard error.isConnectionFailure else { throw error }
                connection = nil
                let now = clock()
                let start = failedAt ?? now
                if failedAt == nil {
                    failedAt = now
                    note("note: redis \(address): \(error.problem); trying again for up to \(StreamTime.format(retryFor)) s (--redis-timeout)")
                }
                guard now - start + delay <= retryFor, !shouldStop() else {
                    var last = error
                    last.problem += "; gave up after \(StreamTime.format(now - start)) s"
                    throw last
                }
                usleep(UInt32(delay))
                delay = min(delay * 2, 2_000_000)
            }
        }
    }
}
