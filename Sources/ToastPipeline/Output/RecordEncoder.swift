/// Turns records into output bytes, one line per record (or none, for records a format
/// leaves out).
public protocol RecordEncoder {
    /// Appends the record's line, newline included, to `out`; returns whether it wrote one.
    func encode(_ record: Record, into out: inout ByteBuffer) -> Bool
}

/// The `--format` choices.
public enum OutputFormat: String, Sendable, CaseIterable {
    case text, json, speech
}
