import Synchronization
import ToastCore

/// Commits a consumer group's batches on a thread of its own, on a connection of its own, in
/// the order they were made: the pipeline goes on with the next batch while Redis takes the
/// last one's records, state and acknowledgements (one transaction each, so a crash leaves
/// some prefix of them done). At most two wait; the pipeline waits for room beyond that.
///
/// Shared by the threads (`@unchecked Sendable`): what both touch is the queue and the failure;
/// the consumer is the committing thread's alone.
package final class RedisCommitThread: @unchecked Sendable {
    package struct Commit: Sendable {
        package var records: RecordLines?
        package var state: RedisHashChanges
        package var entries: [String]

        package init(records: RecordLines?, state: RedisHashChanges, entries: [String]) {
            self.records = records
            self.state = state
            self.entries = entries
        }
    }

    private var consumer: RedisStreamConsumer
    /// Commits not yet made; at most two wait.
    private let queue = HandOverQueue<Commit>(capacity: 2)
    private let failed = Mutex<RedisError?>(nil)
    private var thread: SystemThread?

    /// `--trim`: after a commit, at most once a second, the stream loses what every group
    /// acknowledged.
    private let trims: Bool
    private var lastTrim: ContinuousClock.Instant?
    private var finished = false

    /// `consumer` commits; its client should be the thread's own connection.
    package init(consumer: RedisStreamConsumer, trims: Bool = false) {
        self.consumer = consumer
        self.trims = trims
    }

    /// The first commit that failed for good: later ones are not sent.
    package var failure: RedisError? { failed.withLock { $0 } }

    /// Queues a commit (starting the thread the first time; without one, it is made here).
    package func submit(_ commit: Commit) {
        if thread == nil {
            thread = SystemThread.start { [self] in run() }
            if thread == nil { return send(commit) }
        }
        queue.put(commit)
    }

    /// Makes what is queued and stops the thread.
    package func finish() {
        if let thread {
            queue.close()
            thread.join()
            self.thread = nil
        }
        // Called again (by the run's end, then `deinit`): the last trim is made once.
        guard !finished, failure == nil else { return }
        finished = true
        do {
            try trimIfDue(ending: true)
        } catch {
            failed.withLock { $0 = $0 ?? error }
        }
    }

    private func trimIfDue(ending: Bool) throws(RedisError) {
        guard trims else { return }
        let now = ContinuousClock.now
        guard ending || lastTrim.map({ now - $0 >= .seconds(1) }) ?? true else { return }
        lastTrim = now
        try consumer.trimAcknowledged()
    }

    private func run() {
        while let next = queue.take() { send(next) }
    }

    /// Told how long each commit took, in seconds (`--metrics`).
    package var timed: (@Sendable (Double) -> Void)?

    private func send(_ commit: Commit) {
        guard failure == nil else { return }
        do {
            let started = ContinuousClock.now
            try consumer.commit(records: commit.records, state: commit.state, acknowledging: commit.entries)
            if let timed {
                let took = ContinuousClock.now - started
                timed(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
            }
            try trimIfDue(ending: false)
        } catch {
            failed.withLock { $0 = $0 ?? error }
            queue.cancel()
        }
    }
}
