import ToastCore

/// Reads a consumer group's entries on a thread of its own, a few batches ahead of the
/// pipeline, so that waiting for Redis and making its replies into entries does not hold the
/// pipeline up (docs/scale.md). It also says when the stream has nothing more ready
/// (`idle`: the run commits what it holds then) and, with `--once`, where the input ends.
///
/// Shared by the two threads (`@unchecked Sendable`): the queue and the flags are guarded by
/// the hand-off's lock; the consumer is the reading thread's alone once it has started.
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
    private let handOff = ThreadHandOff()
    // Guarded by `handOff`'s lock:
    private var ready: [Item] = []
    private var cancelled = false
    private var done = false
    private var thread: SystemThread?

    /// Batches read but not yet taken; the reading thread waits when this many are ready.
    private static let maxReady = 4
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
        handOff.withLock {
            guard handOff.wait(while: { ready.isEmpty && !done }, atMost: microseconds), !ready.isEmpty else {
                return done && ready.isEmpty ? .end : nil
            }
            handOff.wakeAll()
            return ready.removeFirst()
        }
    }

    /// Stops reading and waits for the thread (at most the longest wait in Redis).
    package func stop() {
        handOff.withLock {
            cancelled = true
            handOff.wakeAll()
        }
        thread?.join()
        thread = nil
    }

    private func produce() {
        defer {
            handOff.withLock {
                done = true
                handOff.wakeAll()
            }
        }
        var saidIdle = false
        while !isCancelled {
            do {
                var entries = try consumer.next(count: count, wait: nil)
                if entries.isEmpty {
                    if once { return }
                    if !saidIdle {
                        guard hand(.idle) else { return }
                        saidIdle = true
                    }
                    entries = try consumer.next(count: count, wait: Self.longestWait)
                    if entries.isEmpty { continue }
                }
                saidIdle = false
                if once, let last = entries.last, isBeyondTheEnd(last) {
                    _ = hand(.entries(Array(entries.prefix { !isBeyondTheEnd($0) })))
                    return
                }
                guard hand(.entries(entries)) else { return }
            } catch {
                _ = hand(.failed(error))
                return
            }
        }
    }

    private func isBeyondTheEnd(_ entry: RedisStreamEntry) -> Bool {
        guard let lastEntry else { return true }
        return RedisEntryID(entry.id).map { $0 > lastEntry } ?? false
    }

    private var isCancelled: Bool { handOff.withLock { cancelled } }

    /// Queues an item, waiting while enough are ready; false when the run wants no more.
    private func hand(_ item: Item) -> Bool {
        handOff.withLock {
            handOff.wait(while: { ready.count >= Self.maxReady && !cancelled })
            guard !cancelled else { return false }
            ready.append(item)
            handOff.wakeAll()
            return true
        }
    }
}
