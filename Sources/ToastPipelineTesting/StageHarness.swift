import ToastPipeline
import ToastCore
import ToastIO
import ToastLua

/// Runs stages in the pipeline `toastscript` runs, with its host, on a clock the test moves,
/// and keeps every record. Set it up from a script, as a run would be, or from stages you
/// made yourself with Swift settings:
///
///     let harness = try StageHarness(registry: .withMyStages, script: """
///         config{ per_source_cap = { limit = 2 }, stages = { "per_source_cap" } }
///         """)
///     harness.show(Toast(id: "a", message: "Saved", source: "sync"), at: .seconds(0))
///     harness.show(Toast(id: "b", message: "Saved", source: "sync"), at: .milliseconds(500))
///     let problems = harness.finish()     // [] when every toast ended once
///     harness.lines                       // ["t=0 present id=a message=\"Saved\" …", …]
///
/// A stage's clock times (`context.clockTime(of:)`, `nextTime`) are read in UTC here, as with
/// `--tz utc`, so a test gives the same lines on every machine.
public final class StageHarness {
    /// Every record so far, as values.
    public var records: [TestRecord] { log.records.map(TestRecord.init) }
    /// Every record so far, one stable line each (`TestRecord.description`).
    public var lines: [String] { records.map(\.description) }
    /// What each stage let through and dropped.
    public var statistics: PipelineStatistics { pipeline.statistics }
    /// How many toasts the stages and scripts brought in (`e1`, `e2`, …).
    public var emittedCount: Int { pipeline.generatedIDs.count }

    private let log = RecordLog()
    private var pipeline: Pipeline
    /// The scripts' Lua state, kept for as long as the run.
    private var runtime: LuaRuntime?
    /// Makes the run's pipeline again, holding nothing, for `restart()` (given the `store` the
    /// scripts kept); nil for a harness of stage instances, which cannot be made again.
    private let remake: ((StoredValue?) throws -> (Pipeline, LuaRuntime?))?
    private var toastsIn: [String: Int] = [:]

    /// A run of `registry`'s stages as `script` sets them up: the text of a Lua script, with
    /// `config{...}`, roles and rules, as a file given to the command would be. Throws what
    /// the command would report for a script that does not load.
    public init(registry: StageRegistry = .builtIn, script: String = "") throws {
        let log = self.log
        let remake = { (store: StoredValue?) throws -> (Pipeline, LuaRuntime?) in
            let runtime = try LuaRuntime(registry: registry)
            if let store { runtime.restoreStore(store) }
            try runtime.load(source: script, name: "script")
            let pipeline = try Pipeline(scripts: runtime.loaded, registry: registry, output: log, restoring: store != nil)
            pipeline.timeDisplay = TimeDisplay(zone: .utc)
            return (pipeline, runtime)
        }
        (pipeline, runtime) = try remake(nil)
        self.remake = remake
    }

    /// A run of `stages` alone, in order, then the host.
    public convenience init(stages: [(name: String, stage: any ToastStage)]) {
        self.init(stages: stages, settings: PipelineSettings())
    }

    /// A run of `stages` alone with the pipeline's settings given (the queue, the roles).
    package convenience init(stages: [(name: String, stage: any ToastStage)], settings: PipelineSettings) {
        self.init(settings: settings, stages: { stages }, remakes: false)
    }

    /// A run of one declared stage with the settings given in Swift, then the host.
    public convenience init<Stage: PluginStage>(_ stage: Stage.Type, settings: Stage.Settings = .init()) {
        self.init(settings: PipelineSettings(), stages: { [(Stage.name, Stage(settings: settings))] }, remakes: true)
    }

    private init(settings: PipelineSettings, stages: @escaping () -> [(name: String, stage: any ToastStage)], remakes: Bool) {
        let log = self.log
        let remake = { (_: StoredValue?) -> (Pipeline, LuaRuntime?) in
            let pipeline = Pipeline(settings: settings, stages: stages(), output: log)
            pipeline.timeDisplay = TimeDisplay(zone: .utc)
            return (pipeline, nil)
        }
        (pipeline, runtime) = remake(nil)
        self.remake = remakes ? remake : nil
    }

    /// Stops the run and starts it again from its saved state, as `toastscript --state` does
    /// after a restart: the host, the timers, each stage's `saveState()` and its timers' values,
    /// and the scripts' `store` go through the state file's JSON text into a run made anew,
    /// whose `on("restore")` hooks then run. The records go on in the same list. Throws what
    /// the restart would report (a stage that cannot save or restore what it keeps); a harness
    /// of stage instances (`init(stages:)`) cannot be made again and throws.
    public func restart() throws {
        guard let remake else {
            throw SavedStateError("a harness of stage instances cannot make them again: make it from a script or a stage type")
        }
        let saved = try JSONScanner.value(of: Array(JSONText.encode(try pipeline.savedState()).utf8))
        let store = try runtime.map { try StoredValue(savedState: JSONScanner.value(of: Array(JSONText.encode($0.keptStore(during: "checkpoint").savedState).utf8))) }
        let (restarted, restartedRuntime) = try remake(store ?? .table([]))
        try restarted.restore(from: saved)
        pipeline = restarted
        runtime = restartedRuntime
        pipeline.stateRestored()
    }

    /// Sends a toast in at `time` on the stream clock.
    public func show(_ toast: Toast, at time: Duration) {
        toastsIn[toast.id, default: 0] += 1
        pipeline.handle(Event(.show(toast), at: StreamTime.microseconds(time)))
    }

    /// Sends an event in at `time`: a tap, a dismiss, a drag, a tick.
    public func send(_ kind: Event.Kind, at time: Duration) {
        if case .show(let toast) = kind { toastsIn[toast.id, default: 0] += 1 }
        pipeline.handle(Event(kind, at: StreamTime.microseconds(time)))
    }

    /// Moves the clock to `time`, firing the timers due by then.
    public func advance(to time: Duration) {
        pipeline.advance(to: StreamTime.microseconds(time))
    }

    /// Ends the run (showing what waits, unless `drain` is false) and returns what breaks the
    /// promise that every toast ends once: in one drop, or one present and one dismiss.
    /// Toasts the stages and scripts brought in count as having come in.
    @discardableResult
    public func finish(drain: Bool = true) -> [String] {
        pipeline.finish(drain: drain)
        var expected = toastsIn
        if emittedCount > 0 {
            for number in 1...emittedCount { expected["e\(number)", default: 0] += 1 }
        }
        return RecordInvariant.violations(in: log.records, toastsIn: expected)
    }
}
