/// Writes each record to several writers in order: the output first, then the scripts'
/// hooks (docs/events.md: a hook runs after its record is written).
public final class RecordFanOut: RecordWriter {
    public let writers: [any RecordWriter]

    public init(_ writers: [any RecordWriter]) {
        self.writers = writers
    }

    public func write(_ record: Record) {
        for writer in writers { writer.write(record) }
    }
}
