/// What a stage may see and do besides deciding a toast's fate: the clock, the roles,
/// new toasts and timers. One context belongs to one stage of one pipeline.
public final class StageContext {
    /// The stage's name in `stages`.
    public let stageName: String
    /// `stageName` as its drop records' `stage` (a built-in name as its word).
    package let stageLabel: DropLabel
    /// The stage's position; emitted toasts enter just after it (-1: the pipeline's entry
    /// context, whose toasts enter at the first stage).
    let position: Int
    /// The pipeline owns its contexts, so it is never gone while one is used
    /// (`unowned(unsafe)`: no reference count on every toast).
    package unowned(unsafe) let pipeline: Pipeline

    /// The settings of the run, as the pipeline has them (not kept here: a screen has contexts
    /// of its own, and a copy of the settings in each made every screen heavier by as much).
    package var settings: PipelineSettings { pipeline.settings }
    /// The roles the run knows (kept here: stages read them for every toast).
    public let roles: RoleTable

    /// With screens on, the screen whose own instance of the stage this context serves (nil:
    /// the stage every screen shares, or screens off).
    unowned let screenNode: Screen?

    init(stageName: String, position: Int, pipeline: Pipeline, screen: Screen? = nil) {
        self.stageName = stageName
        self.stageLabel = DropLabel(stageName)
        self.position = position
        self.pipeline = pipeline
        self.screenNode = screen
        self.roles = pipeline.settings.roles
    }

    /// The current time on the stream clock: the span since the stream's zero (for a stream
    /// with Unix times, since 1970).
    public var now: Duration { .microseconds(pipeline.now) }

    /// `now` in the microseconds the pipeline counts in (the built-in stages use it).
    package var nowMicros: Microseconds { pipeline.now }

    /// With screens on, the screen of this stage when each screen has its own (see
    /// `ToastStage.forNewScreen()`): the value of its field `screens.by`. Nil otherwise.
    public var screen: JSONValue? { screenNode?.key.jsonValue }

    /// The number of the input line being handled (0 when none is, as at the end of a run).
    public var inputLine: Int { pipeline.currentLine }

    /// A new toast with the defaults of a show event, the next `e<N>` id and the current time.
    /// A new toast with the next `e<N>` id, the defaults of a show (the queue's duration and
    /// policy) and the fields given; set any other field on it before `emit`.
    public func makeToast(message: String, role: String = "info", subtitle: String? = nil, source: String? = nil) -> Toast {
        var toast = pipeline.makeGeneratedToast(message: message, role: role)
        toast.subtitle = subtitle
        toast.source = source
        return toast
    }

    /// Brings a new toast in, once the current step is done: made by this stage (its
    /// `madeBy`), it first goes through the rules, as every toast from input does, then on
    /// from just after this stage.
    public func emit(_ toast: Toast) {
        emit(toast, onScreen: screenNode)
    }

    /// `emit`, onto `screen` (nil: where the toast's own field says).
    func emit(_ toast: Toast, onScreen screen: Screen?) {
        guard position >= 0 else { return pipeline.emit(toast, atStage: 0) }
        var made = toast
        made.madeBy = stageName
        if let screen, let field = pipeline.screenTable?.settings.by { made.moveToScreen(screen.key, by: field) }
        pipeline.emit(made, atStage: position + 1)
    }

    /// The screen with `serial` while the run remembers it (nil once it is forgotten or ended),
    /// as used now: a stage that keys its state by screen acts on it from a timer.
    func rememberedScreen(_ serial: Int) -> Screen? {
        guard let table = pipeline.screenTable, let screen = table.bySerial[serial] else { return nil }
        table.touch(screen)
        return screen
    }

    /// Brings a new toast in at the first stage, as a show event would (a script's `emit`).
    package func emitAtFirstStage(_ toast: Toast) {
        pipeline.emit(toast, atStage: 0)
    }

    /// Calls this stage's `timerFired(_:context:)` at `time` on the stream clock with the
    /// timer, which carries `value`, unless it is cancelled first.
    @discardableResult
    public func setTimer(at time: Duration, value: any Sendable) -> StageTimer {
        pipeline.scheduleStageTimer(stage: position, screen: screenNode?.serial ?? 0, value: value, at: StreamTime.microseconds(time))
    }

    /// The timer does not fire; cancelling twice, or after it fired, does nothing.
    public func cancel(_ timer: StageTimer) {
        pipeline.cancelStageTimer(timer)
    }

    // MARK: Holding

    /// A handle for the toast in hand, to return as `.hold(handle)` and keep: the toast waits
    /// in this stage (same id) until the stage releases or drops it. Within the call that made
    /// it, `isHeld` is true already; give the toast (`hold(toast)`) for `heldToast` to show it.
    public func hold() -> HoldHandle {
        pipeline.newHold(of: nil)
    }

    /// `hold()`, with the toast as it is held, which `heldToast` shows already within this call.
    public func hold(_ toast: Toast) -> HoldHandle {
        pipeline.newHold(of: toast)
    }

    /// Changes a held toast's fields before it goes on (a debounce that counts its burst, a
    /// night's warnings that are old news by morning): traced as a change. False when it is no
    /// longer held.
    @discardableResult
    public func changeHeld(_ handle: HoldHandle, _ change: (inout Toast) -> Void) -> Bool {
        pipeline.changeHeld(handle, stage: position, change)
    }

    /// The held toast goes on from the next stage, now (once the current step is done).
    /// False when it is no longer held.
    @discardableResult
    public func release(_ handle: HoldHandle) -> Bool {
        pipeline.release(handle)
    }

    /// The held toast ends with a `drop` record of `drop`. False when it is no longer held.
    @discardableResult
    public func drop(_ handle: HoldHandle, _ drop: Drop) -> Bool {
        pipeline.dropHeld(handle, drop)
    }

    /// Whether the toast is still held (a `dismiss` may have cancelled it).
    public func isHeld(_ handle: HoldHandle) -> Bool {
        pipeline.isHeld(handle)
    }

    /// The held toast, as it was held; nil when it is no longer held.
    public func heldToast(_ handle: HoldHandle) -> Toast? {
        pipeline.heldToast(handle)
    }

    /// The next `e<N>` id, for a toast this stage makes.
    public func nextGeneratedID() -> String {
        pipeline.nextGeneratedID()
    }

    /// Calls this stage's `timerFired(token:context:)` at `time` on the stream clock.
    public func setTimer(at time: Duration, token: Int) {
        setTimer(atMicros: StreamTime.microseconds(time), token: token)
    }

    /// `setTimer(at:token:)` in microseconds.
    func setTimer(atMicros time: Microseconds, token: Int) {
        pipeline.scheduleStageTimer(stage: position, screen: screenNode?.serial ?? 0, token: token, at: time)
    }

    // MARK: The clock as a person reads it

    /// The hour (0–23) and minute of `time` (on the stream clock, read as Unix time) as a clock
    /// shows it: local time (the `TZ` environment), or UTC with `--tz utc`, as the run shows
    /// dates. For stages that act on the time of day (quiet hours, a night).
    public func clockTime(of time: Duration) -> (hour: Int, minute: Int) {
        pipeline.timeDisplay.clockTime(StreamTime.microseconds(time))
    }

    /// The first moment after `time` at which that clock shows `hour:minute`: when the night
    /// that a stage holds toasts in ends, say.
    public func nextTime(hour: Int, minute: Int = 0, after time: Duration) -> Duration {
        .microseconds(pipeline.timeDisplay.next(hour: hour, minute: minute, after: StreamTime.microseconds(time)))
    }

    // MARK: Tracing

    /// `time` as an explanation says it: `6.5 s`, or the date and time of a log's own timestamp.
    public func describe(_ time: Microseconds) -> String {
        pipeline.timeDisplay.moment(time)
    }

    /// `time` (on the stream clock) as an explanation says it.
    public func describe(_ time: Duration) -> String {
        describe(StreamTime.microseconds(time))
    }

    /// Whether decisions are traced (`--trace`, `--explain`, `--format html`). A stage that
    /// explains its decisions does the work only then.
    public var isTracing: Bool { pipeline.tracer != nil }

    /// Says in words why this stage decides as it does on the toast in hand, with the settings
    /// behind it ("same message and role as t1 at 2 s, within the 3 s window"). The text is
    /// made only when tracing.
    @inline(__always)
    public func explain(_ because: @autoclosure () -> String) {
        guard isTracing else { return }
        pipeline.explainStage(because())
    }

    /// Traces one step inside this stage (the rules stage traces each rule this way). A stage
    /// that traces its own steps for a toast gets no trace record of its own for it.
    public func trace(_ toast: Toast, verdict: TraceVerdict, rule: String? = nil, changedFields: [String] = [],
                      details: [JSONMember] = [], because: String? = nil, messageBefore: String? = nil) {
        guard isTracing else { return }
        var record = TraceRecord(time: nowMicros, toast: toast, stage: stageName, verdict: verdict, rule: rule,
                                 changedFields: changedFields, details: details, because: because)
        record.messageBefore = messageBefore
        pipeline.trace(record)
    }
}
