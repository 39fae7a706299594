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
    /// Room in a batch: its lines and the notes about them (a full batch is handed on early).
    static let batchCapacity = batchSize + 64
    /// Batches decoded but not yet taken; the producer waits when this many are ready.
    static let maxReady = 4

    private let reader: LineReader
    private var decoding: LineDecoding
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`:
    private var ready: [HandOverBatch<Item>] = []
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

    /// The next batch, in input order: take items with `popFirst()`, so that each leaves the
    /// batch as it is handled (a toast still held by the batch would be copied whole by the
    /// first stage that changes it). Nil once the input is done.
    func next() -> HandOverBatch<Item>? {
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
        // Items are appended here, not through a helper: passing a decoded line on once more
        // copies it (+750 instructions a line on this thread, measured).
        var batch = HandOverBatch<Item>(capacity: Self.batchCapacity)
        var lines = 0
        reading: while true {
            var last = false
            switch reader.next() {
            case .line(let bytes, let number):
                let line = decoding.decode(bytes, number: number)
                for note in decoding.takeNotes() {
                    guard makeRoom(in: &batch) else { return finish() }
                    batch.append(.note(note))
                }
                guard makeRoom(in: &batch) else { return finish() }
                batch.append(.line(line, number: number))
            case .tooLong(let number, let length):
                guard makeRoom(in: &batch) else { return finish() }
                batch.append(.line(decoding.tooLong(number: number, length: length, limit: reader.maxLineBytes), number: number))
            case .failed(let reason):
                guard makeRoom(in: &batch) else { return finish() }
                batch.append(.failed(reason))
                last = true
            case .looksBinary:
                guard makeRoom(in: &batch) else { return finish() }
                batch.append(.looksBinary)
                last = true
            case .end:
                last = true
            case .interrupted, .timedOut:
                continue
            }
            if last { break reading }
            lines += 1
            if lines >= Self.batchSize {
                guard handOn(&batch) else { return finish() }
                lines = 0
            }
        }
        _ = hand(batch)
        finish()
    }

    /// Hands `batch` on when it is full (notes about lines fill it before its lines do); false
    /// when the run loop wants no more.
    private func makeRoom(in batch: inout HandOverBatch<Item>) -> Bool {
        batch.room > 0 || handOn(&batch)
    }

    /// Hands `batch` on and starts the next; false when the run loop wants no more.
    private func handOn(_ batch: inout HandOverBatch<Item>) -> Bool {
        guard hand(batch) else { return false }
        decoding.startNewArena()
        batch = HandOverBatch(capacity: Self.batchCapacity)
        return true
    }

    /// Queues a batch, waiting while enough are ready; false when the run loop wants no more.
    private func hand(_ batch: HandOverBatch<Item>) -> Bool {
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
