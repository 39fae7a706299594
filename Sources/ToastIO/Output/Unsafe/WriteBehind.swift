import ToastCore

/// Encodes and writes records on a thread of their own, a few batches behind the pipeline, so
/// that a slow write (a large file with the page cache full of dirty pages) does not hold the
/// pipeline back: the pipeline's thread never waits on the disk unless `maxReady` batches are.
///
/// The pipeline's thread puts each record in a batch and hands full batches on; the writing
/// thread encodes them in order through a `SinkRecordWriter` and hands each batch back. The
/// pipeline's thread empties a returned batch before filling it again, so every toast a record
/// kept is released on the thread that made it (a toast freed on another thread makes the two
/// fight over the allocator's lock). A failed write is seen by the pipeline's thread when it
/// hands the next batch on, and at the end.
///
/// Where nothing waits for a record to appear (input from a regular file on the stream clock),
/// and for a followed file, whose run loop flushes before it waits (a flush hands the batch
/// on at once). If the system gives no thread, records are written on the caller's thread.
///
/// Shared by the two threads (`@unchecked Sendable`): what both touch is guarded by the
/// hand-off's lock; the batch being filled is the pipeline thread's alone, and the target is
/// used by one thread at a time (the writing thread once it has started).
package final class WriteBehind: RecordOutput, @unchecked Sendable {
    /// What comes between records: trace records (`--trace`, `--explain`, the HTML page) and
    /// flushes, each before the record at its position.
    private enum Between {
        case trace(TraceRecord)
        case flush
        /// Everything before it written, then the function called (`commit(then:)`).
        case commit(@Sendable () -> Void)
    }

    /// A batch of records and what comes between them. The records are read in place (binding
    /// an enum's payload would copy it, its references retained and released); the rare
    /// others are a list of their own.
    private final class Batch {
        let records = HandOverBatch<Record>(capacity: WriteBehind.batchCapacity)
        var between: [(position: Int, item: Between)] = []

        var isEmpty: Bool { records.isEmpty && between.isEmpty }

        func removeAll() {
            records.removeAll()
            between.removeAll(keepingCapacity: true)
        }
    }

    /// Records in a batch: few enough that the toasts they free together still fit the
    /// allocator's caches.
    package static let batchCapacity = 128
    /// Batches handed on but not yet written; the pipeline's thread waits when this many are.
    /// Enough records for the writing thread to lose a whole time slice to the other threads
    /// (three threads share two cores) without the pipeline's thread waiting for it; each batch
    /// in flight keeps its toasts alive a little longer.
    package static let maxReady = 32
    /// Batches the writing thread waits for (unless flushed or finished), then takes at once:
    /// woken for every batch, the two threads would switch places for every batch of records.
    package static let wakeAt = 2

    private let target: SinkRecordWriter
    /// The batch being filled: the pipeline's thread alone uses it, once for every record.
    private var filling = Batch()
    // Its own two lists under a lock, not a `HandOverQueue`: batches go back to the pipeline's
    // thread to be emptied there, and the writing thread wakes once for `wakeAt` batches; a
    // `HandOverQueue` hands items one way, one at a time.
    private let handOff = ThreadHandOff()
    // Guarded by `handOff`'s lock:
    private var ready: [Batch] = []
    private var written: [Batch] = []
    private var finishing = false
    /// A flush is among the ready batches: the writing thread takes them without waiting for more.
    private var flushing = false
    private var writtenFailure: SinkFailure?
    private var writtenLines = 0
    // The pipeline thread's own:
    private var thread: SystemThread?
    private var threadFailed = false
    private var failureSeen: SinkFailure?
    /// Counted by the target; read here once the writing thread has ended.
    private var linesSeen = 0

    package init(_ target: SinkRecordWriter) {
        self.target = target
    }

    package func write(_ record: consuming Record) {
        if filling.records.room == 0 { handOn() }
        filling.records.append(record)
    }

    package func write(_ trace: TraceRecord) {
        append(.trace(trace))
    }

    package func flush() {
        append(.flush)
        handOn(flushing: true)
    }

    package func commit(then: @escaping @Sendable () -> Void) {
        append(.commit(then))
        handOn(flushing: true)
    }

    package func finish() {
        handOn()
        if let thread {
            handOff.withLock {
                finishing = true
                handOff.wakeAll()
            }
            thread.join()
            self.thread = nil
            // The writing thread has ended, so what it shared is this thread's alone: the
            // toasts its last batches kept are released here.
            for batch in written { batch.removeAll() }
            written.removeAll()
        }
        target.finish()
        failureSeen = target.failure
        linesSeen = target.linesWritten
    }

    /// The lines written so far: while the writing thread runs, as it last said with a batch
    /// written (SIGUSR1's stats and `--metrics` ask mid-run); then the target's own count.
    package var linesWritten: Int {
        if thread != nil { return handOff.withLock { writtenLines } }
        return threadFailed ? target.linesWritten : linesSeen
    }
    package var failure: SinkFailure? { failureSeen }

    private func append(_ item: Between) {
        let batch = filling
        batch.between.append((batch.records.appended, item))
    }

    /// Hands the batch being filled to the writing thread (starting it the first time), and
    /// takes back one it has written to fill next.
    private func handOn(flushing: Bool = false) {
        let batch = filling
        guard !batch.isEmpty else { return }
        if thread == nil && !threadFailed {
            thread = SystemThread.start { [self] in writeBatches() }
            threadFailed = thread == nil
        }
        guard thread != nil else { return writeHere(batch) }
        let returned: Batch? = handOff.withLock {
            handOff.wait(while: { ready.count >= Self.maxReady })
            ready.append(batch)
            self.flushing = self.flushing || flushing
            if ready.count >= Self.wakeAt || self.flushing { handOff.wakeAll() }
            failureSeen = writtenFailure
            return written.popLast()
        }
        if let returned {
            returned.removeAll()
            filling = returned
        } else {
            filling = Batch()
        }
    }

    /// Without a writing thread: the batch's records written at once, on this thread.
    private func writeHere(_ batch: Batch) {
        write(batch)
        batch.removeAll()
        failureSeen = target.failure
    }

    /// The writing thread: batches in the order they came, until the run finishes.
    private func writeBatches() {
        var batches: [Batch] = []
        while takeReady(into: &batches) {
            for batch in batches where target.failure == nil { write(batch) }
            let failure = target.failure
            let lines = target.linesWritten
            handOff.withLock {
                written.append(contentsOf: batches)
                writtenFailure = failure
                writtenLines = lines
            }
            batches.removeAll(keepingCapacity: true)
        }
    }

    /// Takes the ready batches, once there are enough of them (or a flush, or the end);
    /// false once the run finishes and all are written.
    private func takeReady(into batches: inout [Batch]) -> Bool {
        handOff.withLock {
            handOff.wait(while: { ready.count < Self.wakeAt && !flushing && !finishing })
            guard !ready.isEmpty else { return false }
            swap(&batches, &ready)
            flushing = false
            handOff.wakeAll()
            return true
        }
    }

    /// The batch's records in order, each trace record or flush before the record at its position.
    private func write(_ batch: Batch) {
        var next = 0
        for (position, item) in batch.between {
            batch.records.forEach(at: next..<position) { target.write($0) }
            next = position
            switch item {
            case .trace(let trace): target.write(trace)
            case .flush: target.flush()
            case .commit(let then): target.commit(then: then)
            }
        }
        batch.records.forEach(at: next..<batch.records.appended) { target.write($0) }
    }
}
