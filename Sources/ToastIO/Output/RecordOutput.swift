import ToastCore

/// The end of the record path that a run drives: records and trace records in, flushed when
/// the input waits, finished once at the end, and checked for a failed write between events.
/// Records are encoded on the pipeline's thread (`SinkRecordWriter`) or on a thread of their
/// own (`WriteBehind`).
package protocol RecordOutput: RecordWriter, TraceWriter {
    /// Writes out what is buffered and flushes the sink.
    func flush()
    /// Writes out every record handed on so far, then calls `then` (on the thread that writes,
    /// in the order commits were asked for): a checkpoint of `--state` counts the output's
    /// length there.
    func commit(then: @escaping @Sendable () -> Void)
    /// Ends the output: the encoder's last words, then everything flushed.
    func finish()
    /// Lines written (a format may leave records out); all of them once `finish` has returned.
    var linesWritten: Int { get }
    /// The sink's first failure, as far as the caller can know it yet.
    var failure: SinkFailure? { get }
}
