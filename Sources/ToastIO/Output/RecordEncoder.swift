import ToastCore

/// Turns records into output bytes, one line per record (or none, for records a format
/// leaves out).
package protocol RecordEncoder {
    /// Appends the record's line, newline included, to `out`; returns whether it wrote one.
    func encode(_ record: Record, into out: inout ByteBuffer) -> Bool
    /// Appends a trace record's line (`--trace`); formats that show no traces write nothing.
    func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool
    /// Appends what comes after the last record, once, at the end of the run (a page's
    /// closing, or the whole page for a format that draws the run at once).
    func finish(into out: inout ByteBuffer)
}

extension RecordEncoder {
    package func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool { false }
    package func finish(into out: inout ByteBuffer) {}
}

/// The `--format` choices.
package enum OutputFormat: String, Sendable, CaseIterable {
    case text, json, speech, html
}
