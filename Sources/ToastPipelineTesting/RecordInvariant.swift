import ToastPipeline
import ToastCore

/// Checks docs/events.md, "Records"'s promise on a run's records: every toast that came in ends in exactly
/// one `drop`, or in one `present` followed by one `dismiss`; and records are in time order.
package enum RecordInvariant {
    /// The problems found (empty: the records keep the promise). `toastsIn` counts, per id,
    /// the toasts that came in; ids may repeat.
    package static func violations(in records: [Record], toastsIn: [String: Int]) -> [String] {
        var problems: [String] = []
        var visible: [String: Int] = [:]
        var ended: [String: Int] = [:]
        var lastTime = Microseconds.min
        for (index, record) in records.enumerated() {
            if record.time < lastTime {
                problems.append("record \(index + 1) at \(StreamTime.format(record.time)) is earlier than the one before it")
            }
            lastTime = max(lastTime, record.time)
            let id = record.toast.id
            switch record {
            case .present:
                visible[id, default: 0] += 1
            case .dismiss:
                guard (visible[id] ?? 0) > 0 else {
                    problems.append("record \(index + 1): \(id) dismissed without being presented")
                    continue
                }
                visible[id, default: 0] -= 1
                ended[id, default: 0] += 1
            case .drop:
                ended[id, default: 0] += 1
            }
        }
        for (id, count) in visible where count > 0 {
            problems.append("\(id) presented but never dismissed")
        }
        for id in Set(toastsIn.keys).union(ended.keys).sorted() where toastsIn[id] != nil || ended[id] != nil {
            let expected = toastsIn[id] ?? 0
            let actual = ended[id] ?? 0
            if expected != actual {
                problems.append("\(id): \(expected) came in, \(actual) ended")
            }
        }
        return problems
    }
}
