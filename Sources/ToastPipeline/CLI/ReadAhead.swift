#if canImport(Glibc)
import Glibc
#endif

/// Reads and decodes input on a second thread, a few batches ahead of the pipeline, so a
/// recorded log keeps both cores busy: decoding is about a third of the work for a line.
///
/// Only for input from a regular file on the stream clock without `--strict`: reading such a
/// file never waits, so there is nothing to flush while waiting, no wall clock to stamp, and
/// signals are seen by the run loop between batches. Rejected lines go to the dead-letter file
/// here, in input order; their messages are printed by the run loop, in order with everything
/// else it prints.
final class ReadAhead: @unchecked Sendable {
    enum Item {
        case line(DecodedLine, number: Int)
        /// A warning about the line that follows (a field name that looks mistyped).
        case note(String)
        case looksBinary
        case failed(String)
    }

    static let batchSize = 1024
    /// Batches decoded but not yet taken; the producer waits when this many are ready.
    static let maxReady = 4

    private let reader: LineReader
    private var decoding: LineDecoding
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`:
    private var ready: [[Item]] = []
    private var finished = false
    private var cancelled = false
    private var thread = pthread_t()
    private var started = false

    init(reader: LineReader, decoding: LineDecoding) {
        self.reader = reader
        self.decoding = decoding
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Starts the reading thread; false when the system would not give one.
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<ReadAhead>.fromOpaque(context).takeRetainedValue().produce()
            return nil
        }, context)
        if status != 0 { Unmanaged<ReadAhead>.fromOpaque(context).release() }
        started = status == 0
        return started
    }

    /// The next batch, in input order *from its end*: take items with `popLast()`, so that each
    /// leaves the batch as it is handled (a toast still held by the batch would be copied whole
    /// by the first stage that changes it). Nil once the input is done.
    func next() -> [Item]? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while ready.isEmpty && !finished { pthread_cond_wait(changed, mutex) }
        guard !ready.isEmpty else { return nil }
        pthread_cond_broadcast(changed)
        return ready.removeFirst()
    }

    /// Stops reading (if it has not ended) and waits for the thread.
    func stop() {
        pthread_mutex_lock(mutex)
        cancelled = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        if started { pthread_join(thread, nil) }
        started = false
    }

    private func produce() {
        var batch: [Item] = []
        batch.reserveCapacity(Self.batchSize)
        reading: while true {
            switch reader.next() {
            case .line(let bytes, let number):
                let line = decoding.decode(bytes, number: number)
                for note in decoding.takeNotes() { batch.append(.note(note)) }
                batch.append(.line(line, number: number))
            case .tooLong(let number, let length):
                batch.append(.line(decoding.tooLong(number: number, length: length, limit: reader.maxLineBytes), number: number))
            case .failed(let reason):
                batch.append(.failed(reason))
                break reading
            case .looksBinary:
                batch.append(.looksBinary)
                break reading
            case .end:
                break reading
            case .interrupted, .timedOut:
                continue
            }
            if batch.count >= Self.batchSize {
                batch.reverse()
                guard hand(batch) else { return finish() }
                decoding.startNewArena()
                batch = []
                batch.reserveCapacity(Self.batchSize)
            }
        }
        batch.reverse()
        _ = hand(batch)
        finish()
    }

    /// Queues a batch, waiting while enough are ready; false when the run loop wants no more.
    private func hand(_ batch: [Item]) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while ready.count >= Self.maxReady && !cancelled { pthread_cond_wait(changed, mutex) }
        guard !cancelled else { return false }
        if !batch.isEmpty { ready.append(batch) }
        pthread_cond_broadcast(changed)
        return true
    }

    private func finish() {
        pthread_mutex_lock(mutex)
        finished = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }
}
