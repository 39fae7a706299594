import ToastCore

/// The line a run ends with when a person watches stderr (a terminal): how many toasts came
/// in, how many were shown, and which stages dropped the rest, so drops are never silent.
///
///     toastscript: 856 toasts: 90 shown, 766 dropped (dedup 500, rate_limit 200, rule 66)
///
/// Stages are named by the `stage` of their drop records, in pipeline order, the host last.
/// When any error (a toast of priority 2 or more) was dropped, the line says so:
/// `; errors: 3 shown, 2 dropped (errors 2)`.
struct RunSummary {
    let programName: String
    let statistics: PipelineStatistics

    var line: String {
        let toasts = statistics.toastsIn
        let shown = statistics.host.presented
        var byStage: [(stage: String, count: Int)] = []
        for stage in statistics.stages {
            let count = stage.dropped.values.reduce(0, +)
            guard count > 0 else { continue }
            let name = stage.dropRecordStage
            if let index = byStage.firstIndex(where: { $0.stage == name }) {
                byStage[index].count += count
            } else {
                byStage.append((name, count))
            }
        }
        let dropped = byStage.reduce(0) { $0 + $1.count }
        var line = "\(programName): \(toasts) toast\(toasts == 1 ? "" : "s"): \(shown) shown, \(dropped) dropped"
        if !byStage.isEmpty {
            line += " (" + byStage.map { "\($0.stage) \($0.count)" }.joined(separator: ", ") + ")"
        }
        let errorDrops = Self.inPipelineOrder(statistics.errorsDropped, stages: statistics.stages.map(\.dropRecordStage))
        let errorsDropped = errorDrops.reduce(0) { $0 + $1.count }
        if errorsDropped > 0 {
            line += "; errors: \(statistics.errorsShown) shown, \(errorsDropped) dropped ("
                + errorDrops.map { "\($0.stage) \($0.count)" }.joined(separator: ", ") + ")"
        }
        if let screens = statistics.screens {
            line += "; \(screens.seen) screen\(screens.seen == 1 ? "" : "s")"
            if screens.endedByLimit > 0 { line += " (\(screens.endedByLimit) ended by the limit)" }
        }
        return line
    }

    /// Counts by drop-record stage, in the order of `stages` (a stage not among them, a
    /// plugin's own label, just before the host).
    static func inPipelineOrder(_ counts: [(stage: String, count: Int)], stages: [String]) -> [(stage: String, count: Int)] {
        func place(_ stage: String) -> Int {
            stage == BuiltInStage.host ? Int.max : stages.firstIndex(of: stage) ?? Int.max - 1
        }
        return counts.sorted { place($0.stage) < place($1.stage) }
    }
}
