import ToastCore

/// `--explain ID`: passes on only the records and trace records of the toasts asked about,
/// and remembers which of them it saw, so a mistyped id can be reported.
package final class ExplainFilter: RecordWriter, TraceWriter {
    package let ids: Set<String>
    private let records: any RecordWriter
    private let traces: any TraceWriter
    /// The ids asked about that some record or trace carried.
    package private(set) var seen: Set<String> = []

    package init(ids: Set<String>, writingTo output: any RecordWriter & TraceWriter) {
        self.ids = ids
        self.records = output
        self.traces = output
    }

    package func write(_ record: consuming Record) {
        let id = record.toast.id
        guard ids.contains(id) else { return }
        seen.insert(id)
        records.write(record)
    }

    package func write(_ trace: TraceRecord) {
        let id = trace.toast.id
        guard ids.contains(id) else { return }
        seen.insert(id)
        traces.write(trace)
    }

    /// The ids asked about that no toast had, in the order given.
    package func unseen(of asked: [String]) -> [String] {
        asked.filter { !seen.contains($0) }
    }
}
