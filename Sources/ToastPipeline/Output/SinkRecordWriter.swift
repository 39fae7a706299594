/// Encodes records into a reusable buffer and hands it to a sink in large blocks.
public final class SinkRecordWriter: RecordWriter, TraceWriter {
    public let encoder: any RecordEncoder
    public let sink: any ByteSink
    /// In an unchecked cell (`UncheckedCell`): the encoder appends to it in one access and
    /// touches nothing of this writer meanwhile.
    private let buffer: UncheckedCell<ByteBuffer>
    private let blockSize: Int
    /// Lines written (a format may leave records out).
    public var linesWritten: Int { linesWrittenCell.value }
    /// Unchecked too: counted after the encoder's access has ended.
    private let linesWrittenCell = UncheckedCell(0)

    public init(encoder: any RecordEncoder, sink: any ByteSink, blockSize: Int = 1 << 16) {
        self.encoder = encoder
        self.sink = sink
        self.blockSize = blockSize
        buffer = UncheckedCell(ByteBuffer(capacity: blockSize + 4096))
    }

    public func write(_ record: Record) {
        if encoder.encode(record, into: &buffer.value) { linesWrittenCell.value += 1 }
        if buffer.value.count >= blockSize { flushBuffer() }
    }

    public func write(_ trace: TraceRecord) {
        if encoder.encode(trace, into: &buffer.value) { linesWrittenCell.value += 1 }
        if buffer.value.count >= blockSize { flushBuffer() }
    }

    /// Ends the output: the encoder's last words, then everything flushed.
    public func finish() {
        encoder.finish(into: &buffer.value)
        flush()
    }

    /// Writes out what is buffered and flushes the sink.
    public func flush() {
        flushBuffer()
        sink.flush()
    }

    private func flushBuffer() {
        guard !buffer.value.isEmpty else { return }
        buffer.value.withBytes { sink.write($0) }
        buffer.value.removeAll()
    }
}
