import ToastCore

/// Reads and decodes input on a second thread, a few batches ahead of the pipeline, so a
/// recorded log keeps both cores busy: decoding is a large share of the work for a line.
///
/// For input from a regular file on the stream clock without `--strict`, and for a followed
/// file (`--follow`): reading a regular file never waits, so there is nothing to flush while
/// waiting, no wall clock to stamp, and signals are seen by the run loop between batches; a
/// followed file waits at its end, so the lines read before a wait are handed on at once (a
/// batch that is not full), and the run loop takes batches waiting a while at most, to keep
/// its clock, checkpoints and signals. Rejected lines go to the dead-letter file here, in
/// input order; their messages are printed by the run loop, in order with everything else it
/// prints.
///
/// Shared by the two threads (`@unchecked Sendable`): what both touch is the queue; the reader
/// and the decoder are used by the reading thread alone.
package final class ReadAhead: @unchecked Sendable {
    package enum Item {
        case line(DecodedLine, number: Int)
        /// A warning about the line that follows (a field name that looks mistyped).
        case note(String)
        case looksBinary
        case failed(String)
    }

    package static let batchSize = 1024
    /// Room in a batch: its lines and the notes about them (a full batch is handed on early).
    package static let batchCapacity = batchSize + 64
    /// Batches decoded but not yet taken; the producer waits when this many are ready.
    package static let maxReady = 4

    private let reader: LineReader
    /// The reading thread alone uses it, a line at a time.
    private var decoding: LineDecoding
    /// Batches decoded and not yet taken, and where the input stands after each.
    private let ready = HandOverQueue<(batch: HandOverBatch<Item>, end: InputPosition)>(capacity: maxReady)
    private var thread: SystemThread?

    package init(reader: LineReader, decoding: LineDecoding) {
        self.reader = reader
        self.decoding = decoding
    }

    /// Starts the reading thread; false when the system would not give one.
    package func start() -> Bool {
        thread = SystemThread.start { [self] in produce() }
        return thread != nil
    }

    /// The next batch, in input order, and where the input stands after its last line: take
    /// items with `popFirst()`, so that each leaves the batch as it is handled (a toast still
    /// held by the batch would be copied whole by the first stage that changes it). Nil once
    /// the input is done.
    package func next() -> (batch: HandOverBatch<Item>, end: InputPosition)? {
        ready.take()
    }

    /// `next()` for a followed file: the next batch, or word that none came within
    /// `microseconds` (0: none is ready now), or that the input ended.
    package func next(waitingAtMost microseconds: Int64) -> HandOverQueue<(batch: HandOverBatch<Item>, end: InputPosition)>.Taken {
        ready.take(waitingAtMost: microseconds)
    }

    /// Stops reading (if it has not ended) and waits for the thread.
    package func stop() {
        ready.cancel()
        thread?.join()
        thread = nil
    }

    private func produce() {
        // Items are appended here, not through a helper: passing a decoded line on once more
        // copies it, a few hundred bytes a line.
        var batch = HandOverBatch<Item>(capacity: Self.batchCapacity)
        var lines = 0
        reading: while true {
            var last = false
            // A followed file's end: what was read is handed on before the wait for more.
            var handedEarly = true
            let item = reader.next {
                if lines > 0 {
                    handedEarly = handOn(&batch)
                    lines = 0
                }
            }
            guard handedEarly else { return finish() }
            switch item {
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
                // A wait cut short (a signal): the run loop may want no more.
                if ready.isCancelled { return finish() }
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
        decoding.startNewBatch()
        batch = HandOverBatch(capacity: Self.batchCapacity)
        return true
    }

    /// Queues a batch, waiting while enough are ready; false when the run loop wants no more.
    private func hand(_ batch: HandOverBatch<Item>) -> Bool {
        batch.isEmpty ? !ready.isCancelled : ready.put((batch, decoding.position(after: reader)))
    }

    private func finish() {
        ready.close()
    }
}
