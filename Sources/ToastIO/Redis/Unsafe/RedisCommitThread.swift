import ToastCore

/// Commits a consumer group's batches on a thread of its own, on a connection of its own, in
/// the order they were made: the pipeline goes on with the next batch while Redis takes the
/// last one's records, state and acknowledgements (one transaction each, so a crash leaves
/// some prefix of them done). At most two wait; the pipeline waits for room beyond that.
///
/// Shared by the threads (`@unchecked Sendable`): the queue, the failure and the flags are
/// guarded by the hand-off's lock; the consumer is the committing thread's alone.
package final class RedisCommitThread: @unchecked Sendable {
    package struct Commit: Sendable {
        package var records: RecordLines?
        package var stateKey: String
        package var state: [UInt8]
        package var entries: [String]

        package init(records: RecordLines?, stateKey: String, state: [UInt8], entries: [String]) {
            self.records = records
            self.stateKey = stateKey
            self.state = state
            self.entries = entries
        }
    }

    private let consumer: RedisStreamConsumer
    private let handOff = ThreadHandOff()
    // Guarded by `handOff`'s lock:
    private var queue: [Commit] = []
    private var finishing = false
    private var failed: RedisError?
    private var thread: SystemThread?

    private static let maxWaiting = 2

    /// `consumer` commits; its client should be the thread's own connection.
    package init(consumer: RedisStreamConsumer) {
        self.consumer = consumer
    }

    /// The first commit that failed for good: later ones are not sent.
    package var failure: RedisError? { handOff.withLock { failed } }

    /// Queues a commit (starting the thread the first time; without one, it is made here).
    package func submit(_ commit: Commit) {
        if thread == nil {
            thread = SystemThread.start { [self] in run() }
            if thread == nil { return send(commit) }
        }
        handOff.withLock {
            handOff.wait(while: { queue.count >= Self.maxWaiting && failed == nil })
            guard failed == nil else { return }
            queue.append(commit)
            handOff.wakeAll()
        }
    }

    /// Makes what is queued and stops the thread.
    package func finish() {
        guard let thread else { return }
        handOff.withLock {
            finishing = true
            handOff.wakeAll()
        }
        thread.join()
        self.thread = nil
    }

    private func run() {
        while true {
            let next: Commit? = handOff.withLock {
                handOff.wait(while: { queue.isEmpty && !finishing })
                guard !queue.isEmpty, failed == nil else { return nil }
                let next = queue.removeFirst()
                handOff.wakeAll()
                return next
            }
            guard let next else { return }
            send(next)
        }
    }

    private func send(_ commit: Commit) {
        do {
            try consumer.commit(records: commit.records, stateKey: commit.stateKey, state: commit.state, acknowledging: commit.entries)
        } catch {
            handOff.withLock {
                if failed == nil { failed = error }
                queue.removeAll()
                handOff.wakeAll()
            }
        }
    }
}
