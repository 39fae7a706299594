import ToastCore
import ToastIO

/// `--stats`: what the run did, for a person, on stderr (docs/events.md, "Records").
struct StatisticsReport {
    let programName: String
    /// `stats` at the end of a run, `stats so far (SIGUSR1)` while it goes on.
    var heading = "stats"
    let statistics: PipelineStatistics
    /// The stages whose `when` took none of the toasts that reached them.
    let idleScopes: IdleScopes
    let linesRead: Int
    let blankLines: Int
    /// Lines a `parse` function skipped; nil without one.
    let skippedLines: Int?
    let rejectedLines: Int
    /// Script errors by what failed: `rule "x"`, `on present`, `timer FILE:LINE`, `on end`,
    /// `parse` (whose errors also rejected their lines).
    let scriptErrors: [(source: String, count: Int)]
    let linesWritten: Int
    let elapsed: Microseconds

    var lines: [String] {
        var lines = ["\(programName): \(heading)"]
        // The names' column is as wide as the longest name (a plugin stage's may be long).
        let width = max(16, (statistics.stages.map { "stage \($0.name)".count }.max() ?? 0) + 2)
        func row(_ name: String, _ value: String) {
            lines.append("  " + name + String(repeating: " ", count: width - name.count) + value)
        }
        row("lines read", "\(linesRead) (\(blankLines) blank)")
        row("events", "\(statistics.events)")
        row("rejected lines", "\(rejectedLines)")
        if let skippedLines { row("skipped lines", "\(skippedLines)") }
        row("late events", "\(statistics.lateEvents)")
        let errorCount = scriptErrors.reduce(0) { $0 + $1.count }
        row("script errors", "\(errorCount)" + (scriptErrors.isEmpty ? ""
            : " (" + scriptErrors.map { "\(TerminalText.escaped($0.source)) \($0.count)" }.joined(separator: ", ") + ")"))
        if let screens = statistics.screens {
            row("screens", "\(screens.seen) (\(screens.endedByLimit) ended by the limit, at most \(screens.mostAtOnce) at once)")
        }
        row("toasts in", "\(statistics.toastsIn)")
        for stage in statistics.stages {
            var text = "in \(stage.entered)"
            if stage.name == BuiltInStage.host {
                text += ", presented \(stage.presented)"
                if !stage.dismissed.isEmpty { text += ", dismissed " + Self.counts(stage.dismissed) }
            } else {
                text += ", passed \(stage.passed)"
            }
            if stage.spared > 0 { text += ", spared \(stage.spared) (spare)" }
            if stage.skipped > 0 { text += ", skipped \(stage.skipped) (when)" }
            if let idle = idleScopes.stages.first(where: { $0.name == stage.name }) {
                text += ", took none (when: \(TerminalText.escaped(idle.when)))"
            }
            if stage.held > 0 { text += ", held \(stage.held), released \(stage.released)" }
            if !stage.dropped.isEmpty { text += ", dropped " + Self.counts(stage.dropped) }
            row("stage " + stage.name, text)
        }
        let errorDrops = RunSummary.inPipelineOrder(statistics.errorsDropped, stages: statistics.stages.map(\.dropRecordStage))
        let errorsDropped = errorDrops.reduce(0) { $0 + $1.count }
        let byRole = statistics.errorsDroppedByRole.map { "\(TerminalText.escaped($0.role)) \($0.count)" }
        row("errors", "\(statistics.errorsShown) shown, \(errorsDropped) dropped" + (errorDrops.isEmpty ? ""
            : " (" + errorDrops.map { "\(TerminalText.escaped($0.stage)) \($0.count)" }.joined(separator: ", ")
              + "; by role: " + byRole.joined(separator: ", ") + ")"))
        if statistics.summariesShown > 0 {
            row("stood for", "\(statistics.stoodFor) dropped toast\(statistics.stoodFor == 1 ? "" : "s") "
                + "(\(statistics.errorsStoodFor) error\(statistics.errorsStoodFor == 1 ? "" : "s")) in "
                + "\(statistics.summariesShown) summar\(statistics.summariesShown == 1 ? "y" : "ies") and digests shown")
        }
        row("records", "\(statistics.records) (\(linesWritten) lines written)")
        let seconds = Double(max(elapsed, 1)) / 1_000_000
        row("events/s", "\(Int((Double(statistics.events) / seconds).rounded()))")
        return lines
    }

    private static func counts(_ byReason: [String: Int]) -> String {
        byReason.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}
