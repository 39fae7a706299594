/// The text of a batch of decoded lines (messages, subtitles, extra fields), written by the
/// decoder and read when each toast is made. Decoding on the reading thread puts no `String`
/// and no per-toast object on the heap: the toast's own storage is made on the pipeline's
/// thread, which also frees it. (A toast allocated on one thread and freed on the other costs
/// far more than its copy: the two threads then fight over the allocator's lock.)
///
/// Safe to use: one thread writes, and only before it hands the batch on (the reading thread
/// starts a new arena for every batch, and the hand-over is ordered by the batch queue's lock);
/// after that the arena is only read. `TextRange`s come from `append`, so every read lies within
/// what was written.
package final class TextArena: @unchecked Sendable {
    /// Appended to and read on one thread at a time (see above).
    private var buffer: ByteBuffer

    package init(capacity: Int = 16_384) {
        buffer = ByteBuffer(capacity: capacity)
    }

    package var count: Int { buffer.count }

    /// Appends `bytes`; returns where they are.
    package func append(_ bytes: UnsafeRawBufferPointer) -> TextRange {
        let start = buffer.count
        buffer.append(bytes)
        return TextRange(start: start, count: bytes.count)
    }

    /// Appends `bytes` and then `more` as one text (a message and the lines that continue it).
    package func append(_ bytes: UnsafeRawBufferPointer, then more: UnsafeRawBufferPointer) -> TextRange {
        let start = buffer.count
        buffer.append(bytes)
        buffer.append(more)
        return TextRange(start: start, count: bytes.count + more.count)
    }

    /// The bytes of `range`, for the duration of `body`; nil when `range` is.
    package func withBytes<Result>(_ range: TextRange?, _ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        guard let range else { return try body(nil) }
        return try buffer.withBytes { all in try body(UnsafeRawBufferPointer(rebasing: all[range.start..<range.end])) }
    }
}
