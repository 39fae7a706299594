#if canImport(Glibc)
import Glibc
#endif
import ToastCore

/// The connection a Redis run works through, made again when it fails: a command whose
/// connection fails, or that the server answers with "not now" (`LOADING`, `BUSY`, `TRYAGAIN`,
/// `MASTERDOWN`, `READONLY`: a server restarting, running a long script, failing over), is
/// tried again on a new connection, waiting longer each time, for up to `retryFor`
/// (`--redis-timeout`) counted from the first failure, with a note when it fails and when it is
/// back; then the failure is the run's. Any other error reply is not tried again.
///
/// The first connection is made at once or not at all: a Redis that is not there at the start
/// is a mistake to report, not an outage to wait out. One that is there and says "not now" is
/// waited for, as during the run.
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
    /// Told what is wrong while a command is retried, and nil once it is back (`--metrics`'
    /// `/health`); called on the thread that retries.
    package var trouble: (@Sendable (String?) -> Void)?

    package init(address: RedisAddress, replyTimeout: Duration, retryFor: Microseconds, clock: @escaping () -> Microseconds,
                 note: @escaping (String) -> Void, shouldStop: @escaping () -> Bool) throws(RedisError) {
        self.address = address
        self.replyTimeout = replyTimeout
        self.retryFor = retryFor
        self.clock = clock
        self.note = note
        self.shouldStop = shouldStop
        do {
            connection = try RedisConnection(address, timeout: replyTimeout)
        } catch where error.isNotNow {
            // There, but not ready (loading its data): the first command waits it out.
            connection = nil
        }
    }

    /// Runs `body` on the connection, and again on a new one while its connection fails, within
    /// `retryFor`. `body` learns whether it runs again (`retried`): what it sent before may
    /// have been done, its reply lost.
    package func perform<Result>(_ body: (_ connection: RedisConnection, _ retried: Bool) throws(RedisError) -> Result)
        throws(RedisError) -> Result {
        var failedAt: Microseconds?
        var delay: Microseconds = 100_000
        // Whether the server said "not now" on the last try: when that changes (gone, then
        // back and loading), a note says so, and the operator knows what is waited for.
        var lastWasNotNow = false
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
                    trouble?(nil)
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
                } else if error.isNotNow != lastWasNotNow {
                    note("note: redis \(address): \(error.problem); still trying")
                }
                lastWasNotNow = error.isNotNow
                trouble?("redis \(address): \(error.problem); retrying")
                // The whole of `retryFor` counts: the last wait is cut to what is left of it.
                let left = retryFor - (now - start)
                guard left > 0, !shouldStop() else {
                    var last = error
                    last.problem += "; gave up after \(StreamTime.format(now - start)) s"
                    throw last
                }
                usleep(UInt32(min(delay, left)))
                delay = min(delay * 2, 2_000_000)
            }
        }
    }
}
