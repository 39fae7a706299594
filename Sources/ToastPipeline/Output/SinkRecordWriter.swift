/// Encodes records into a reusable buffer and hands it to a sink in large blocks.
public final class SinkRecordWriter: RecordWriter, TraceWriter {
    public let encoder: any RecordEncoder
    public let sink: any ByteSink
    /// Unchecked (see docs/performance.md, "Exclusivity checks"): the encoder appends to it in
    /// one access and touches nothing of this writer meanwhile.
    @exclusivity(unchecked) private var buffer: ByteBuffer
    private let blockSize: Int
    /// Lines written (a format may leave records out). Unchecked too: counted after the
    /// encoder's access has ended.
    @exclusivity(unchecked) public private(set) var linesWritten = 0

    public init(encoder: any RecordEncoder, sink: any ByteSink, blockSize: Int = 1 << 16) {
        self.encoder = encoder
        self.sink = sink
        self.blockSize = blockSize
        buffer = ByteBuffer(capacity: blockSize + 4096)
    }

    public func write(_ record: Record) {
        if encoder.encode(record, into: &buffer) { linesWritten += 1 }
        if buffer.count >= blockSize { flushBuffer() }
    }

    public func write(_ trace: TraceRecord) {
        if encoder.encode(trace, into: &buffer) { linesWritten += 1 }
        if buffer.count >= blockSize { flushBuffer() }
    }

    /// Ends the output: the encoder's last words, then everything flushed.
    public func finish() {
        encoder.finish(into: &buffer)
        flush()
    }

    /// Writes out what is buffered and flushes the sink.
    public func flush() {
        flushBuffer()
        sink.flush()
    }

    private func flushBuffer() {
        guard !buffer.isEmpty else { return }
        buffer.withBytes { sink.write($0) }
        buffer.removeAll()
    }
}
