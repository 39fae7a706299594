/// What a whole run did, for the scripts' `on("finish", fn)` (docs/lua.md): handed over once,
/// after the drain and every ending, when nothing more can happen.
package struct RunTotals: Sendable {
    /// Toasts that came in: shows, emitted toasts and summaries.
    package var toasts = 0
    /// Toasts presented.
    package var shown = 0
    /// Drops by the `stage` of their drop records (`rule`, `dedup`, `host`, …), in pipeline order.
    package var dropped: [(stage: String, count: Int)] = []
    /// Toasts of priority 2 or more shown, and dropped.
    package var errorsShown = 0
    package var errorsDropped = 0
    /// Input lines that were rejected.
    package var rejectedLines = 0

    package init(statistics: PipelineStatistics, rejectedLines: Int) {
        toasts = statistics.toastsIn
        shown = statistics.stages.last?.presented ?? 0
        for stage in statistics.stages {
            let count = stage.dropped.values.reduce(0, +)
            guard count > 0 else { continue }
            if let index = dropped.firstIndex(where: { $0.stage == stage.dropRecordStage }) {
                dropped[index].count += count
            } else {
                dropped.append((stage.dropRecordStage, count))
            }
        }
        errorsShown = statistics.errorsShown
        errorsDropped = statistics.errorsDropped.reduce(0) { $0 + $1.count }
        self.rejectedLines = rejectedLines
    }
}
