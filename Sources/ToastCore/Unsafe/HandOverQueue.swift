/// Items handed from one thread to another in order, at most `capacity` waiting: the putting
/// side waits for room, the taking side for an item. Either side can end it: the putting side
/// `close()`s it when it has no more (the taker gets what is left, then nil), the taking side
/// `cancel()`s it when it wants no more (what waits is dropped, and `put` says no). The reading
/// threads hand their batches to the run this way, and the run its checkpoints and commits to
/// the threads that save them.
///
/// Shared by the threads (`@unchecked Sendable`): everything is guarded by the hand-off's lock.
package final class HandOverQueue<Item>: @unchecked Sendable {
    private let handOff = ThreadHandOff()
    private let capacity: Int
    // Guarded by `handOff`'s lock:
    private var items: [Item] = []
    private var closed = false
    private var cancelled = false

    /// What `take(waitingAtMost:)` found.
    package enum Taken {
        case item(Item)
        /// Closed (or cancelled) with nothing left.
        case ended
        case timedOut
    }

    package init(capacity: Int = .max) {
        self.capacity = capacity
    }

    /// Puts `item` last, waiting while the queue is full; false when the taker wants no more.
    @discardableResult
    package func put(_ item: Item) -> Bool {
        handOff.withLock {
            handOff.wait(while: { items.count >= capacity && !cancelled })
            guard !cancelled else { return false }
            items.append(item)
            handOff.wakeAll()
            return true
        }
    }

    /// The next item, waiting for one; nil once the queue is closed (or cancelled) and empty.
    package func take() -> Item? {
        handOff.withLock {
            handOff.wait(while: { items.isEmpty && !closed && !cancelled })
            return removeFirst()
        }
    }

    /// The next item, waiting at most `microseconds` for one.
    package func take(waitingAtMost microseconds: Int64) -> Taken {
        handOff.withLock {
            let came = handOff.wait(while: { items.isEmpty && !closed && !cancelled }, atMost: microseconds)
            if let item = removeFirst() { return .item(item) }
            return came ? .ended : .timedOut
        }
    }

    /// No more items will come.
    package func close() {
        handOff.withLock {
            closed = true
            handOff.wakeAll()
        }
    }

    /// The taker wants no more: what waits is dropped, and a `put` waiting for room returns.
    package func cancel() {
        handOff.withLock {
            cancelled = true
            items.removeAll()
            handOff.wakeAll()
        }
    }

    package var isCancelled: Bool { handOff.withLock { cancelled } }

    /// Called holding the lock.
    private func removeFirst() -> Item? {
        guard !items.isEmpty else { return nil }
        handOff.wakeAll()
        return items.removeFirst()
    }
}
