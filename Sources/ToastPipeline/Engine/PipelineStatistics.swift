/// Counts of what happened in a run, per stage (SPEC §4 `--stats`).
public struct PipelineStatistics: Equatable, Sendable {
    public struct StageCounts: Equatable, Sendable {
        public var name: String
        /// Toasts that reached the stage.
        public var entered = 0
        public var passed = 0
        /// Drops by reason.
        public var dropped: [String: Int] = [:]
        /// Dismissals by reason (the host only).
        public var dismissed: [String: Int] = [:]
        /// Presentations (the host only).
        public var presented = 0
    }

    /// The stages in pipeline order, the host last.
    public var stages: [StageCounts]
    /// Events handled (input lines that were events).
    public var events = 0
    /// Events whose `at` was earlier than the clock.
    public var lateEvents = 0
    /// Toasts that came in: shows, emitted toasts and summaries.
    public var toastsIn = 0
    public var records = 0

    init(stageNames: [String]) {
        stages = (stageNames + [BuiltInStage.host]).map { StageCounts(name: $0) }
    }

    public var host: StageCounts { stages[stages.count - 1] }
}
