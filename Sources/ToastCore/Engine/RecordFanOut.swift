/// Writes each record to several writers in order: the output first, then the scripts'
/// hooks (docs/events.md: a hook runs after its record is written).
package final class RecordFanOut: RecordWriter {
    package let writers: [any RecordWriter]

    package init(_ writers: [any RecordWriter]) {
        self.writers = writers
    }

    package func write(_ record: consuming Record) {
        for writer in writers { writer.write(copy record) }
    }
}
