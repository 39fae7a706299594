import ToastCore

/// Reads a consumer group's entries on a thread of its own, a few batches ahead of the
/// pipeline, so that waiting for Redis and making its replies into entries does not hold the
/// pipeline up (docs/scale.md). It also says when the stream has nothing more ready
/// (`idle`: the run commits what it holds then) and, with `--once`, where the input ends.
///
/// Shared by the two threads (`@unchecked Sendable`): what both touch is the queue; the
/// consumer is the reading thread's alone once it has started.
package final class RedisReadAhead: @unchecked Sendable {
    package enum Item {
        case entries([RedisStreamEntry])
        /// Nothing more is ready now (said once, until entries come again).
        case idle
        /// `--once`: what the stream held at the start was read.
        case end
        /// Redis failed for good (after the client's retries).
        case failed(RedisError)
    }

    private var consumer: RedisStreamConsumer
    /// `--once`: the stream's last entry at the start (nil: it had none); nothing after it is
    /// handed on, and the entries after it stay pending for this consumer's next run.
    private let once: Bool
    private let lastEntry: RedisEntryID?
    private let count: Int
    /// Batches read but not yet taken; the reading thread waits when four are ready.
    private let ready = HandOverQueue<Item>(capacity: 4)
    private var thread: SystemThread?
    /// The longest a read waits in Redis for new entries: how soon the thread sees `stop()`.
    private static let longestWait = Duration.milliseconds(250)

    package init(consumer: RedisStreamConsumer, once: Bool, lastEntry: RedisEntryID?, count: Int) {
        self.consumer = consumer
        self.once = once
        self.lastEntry = lastEntry
        self.count = count
    }

    /// Starts the reading thread; false when the system would not give one.
    package func start() -> Bool {
        thread = SystemThread.start { [self] in produce() }
        return thread != nil
    }

    /// The next item, waiting at most `microseconds` for one; nil when none came in that time.
    package func next(waitingAtMost microseconds: Int64) -> Item? {
        switch ready.take(waitingAtMost: microseconds) {
        case .item(let item): item
        case .ended: .end
        case .timedOut: nil
        }
    }

    /// Stops reading and waits for the thread (at most the longest wait in Redis).
    package func stop() {
        ready.cancel()
        thread?.join()
        thread = nil
    }

    private func produce() {
        defer { ready.close() }
        var saidIdle = false
        while !ready.isCancelled {
            do {
                var entries = try consumer.next(count: count, wait: nil)
                if entries.isEmpty {
                    if once { return }
                    if !saidIdle {
                        guard ready.put(.idle) else { return }
                        saidIdle = true
                    }
                    entries = try consumer.next(count: count, wait: Self.longestWait)
                    if entries.isEmpty { continue }
                }
                saidIdle = false
                if once, let last = entries.last, isBeyondTheEnd(last) {
                    ready.put(.entries(Array(entries.prefix { !isBeyondTheEnd($0) })))
                    return
                }
                guard ready.put(.entries(entries)) else { return }
            } catch {
                ready.put(.failed(error))
                return
            }
        }
    }

    private func isBeyondTheEnd(_ entry: RedisStreamEntry) -> Bool {
        guard let lastEntry else { return true }
        return RedisEntryID(entry.id).map { $0 > lastEntry } ?? false
    }
}
