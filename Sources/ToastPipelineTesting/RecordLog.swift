import ToastPipeline
import ToastCore
import ToastIO

/// A record writer that keeps every record: what tests and plugin authors assert on.
package final class RecordLog: RecordWriter {
    package private(set) var records: [Record] = []

    package init() {}

    package func write(_ record: consuming Record) {
        records.append(record)
    }

    /// Each record as its `--format json` line, without the newline.
    package var jsonLines: [String] {
        let encoder = JSONRecordEncoder()
        return records.map { record in
            var buffer = ByteBuffer()
            _ = encoder.encode(record, into: &buffer)
            return buffer.withBytes { String(decoding: $0.dropLast(), as: UTF8.self) }
        }
    }
}
