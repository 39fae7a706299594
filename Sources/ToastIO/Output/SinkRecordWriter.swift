import ToastCore

/// Encodes records into a reusable buffer and hands it to a sink in large blocks.
package final class SinkRecordWriter: RecordOutput {
    package let encoder: any RecordEncoder
    package let sink: any ByteSink
    /// The encoder appends to it in one access and touches nothing of this writer meanwhile.
    private var buffer: ByteBuffer
    private let blockSize: Int
    /// Lines written (a format may leave records out).
    /// Unchecked too: counted after the encoder's access has ended.
    package private(set) var linesWritten = 0

    package init(encoder: any RecordEncoder, sink: any ByteSink, blockSize: Int = 1 << 16) {
        self.encoder = encoder
        self.sink = sink
        self.blockSize = blockSize
        buffer = ByteBuffer(capacity: blockSize + 4096)
    }

    package func write(_ record: consuming Record) {
        if encoder.encode(record, into: &buffer) { linesWritten += 1 }
        if buffer.count >= blockSize { flushBuffer() }
    }

    package func write(_ trace: TraceRecord) {
        if encoder.encode(trace, into: &buffer) { linesWritten += 1 }
        if buffer.count >= blockSize { flushBuffer() }
    }

    package var failure: SinkFailure? { sink.failure }

    /// Ends the output: the encoder's last words, then everything flushed.
    package func finish() {
        encoder.finish(into: &buffer)
        flush()
    }

    /// Writes out what is buffered and flushes the sink.
    package func flush() {
        flushBuffer()
        sink.flush()
    }

    package func commit(then: @escaping @Sendable () -> Void) {
        flushBuffer()
        then()
    }

    private func flushBuffer() {
        guard !buffer.isEmpty else { return }
        buffer.withBytes { sink.write($0) }
        buffer.removeAll()
    }
}
