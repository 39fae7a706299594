import ToastPipeline

/// Runs stages in a real pipeline, with a host and an in-memory record log, on a clock the
/// test moves. `finish()` ends the run and reports any toast that did not end in exactly
/// one record pair or drop.
///
///     let harness = StageHarness(stages: [("dedup", DedupStage(settings: .init()))])
///     harness.show(Toast(id: "a", message: "Saved"), at: 0)
///     harness.show(Toast(id: "b", message: "Saved"), at: 1)
///     let problems = harness.finish()   // [] when every toast ended once
///     harness.log.jsonLines             // what happened
public final class StageHarness {
    public let log = RecordLog()
    public let pipeline: Pipeline
    private var toastsIn: [String: Int] = [:]

    public init(settings: PipelineSettings = PipelineSettings(),
                stages: [(name: String, stage: any ToastStage)]) {
        pipeline = Pipeline(settings: settings, stages: stages, output: log)
    }

    /// Sends a toast in at `at` seconds (fractions allowed).
    public func show(_ toast: Toast, at seconds: Double) {
        toastsIn[toast.id, default: 0] += 1
        pipeline.handle(Event(.show(toast), at: StreamTime.microseconds(fromSeconds: seconds)))
    }

    /// Sends an interaction in at `at` seconds.
    public func send(_ kind: Event.Kind, at seconds: Double) {
        pipeline.handle(Event(kind, at: StreamTime.microseconds(fromSeconds: seconds)))
    }

    /// Moves the clock, firing due timers.
    public func advance(to seconds: Double) {
        pipeline.advance(to: StreamTime.microseconds(fromSeconds: seconds) ?? 0)
    }

    /// Drains (or not) and returns the invariant's violations; toasts the stages emitted
    /// count as having come in.
    @discardableResult
    public func finish(drain: Bool = true) -> [String] {
        pipeline.finish(drain: drain)
        var expected = toastsIn
        let generated = pipeline.generatedIDs.count
        if generated > 0 {
            for number in 1...generated { expected["e\(number)", default: 0] += 1 }
        }
        return RecordInvariant.violations(in: log.records, toastsIn: expected)
    }
}
