/// One step of the pipeline: it sees each toast on its way to the host and lets it pass
/// (perhaps changed) or drops it. Built-in stages and plugin stages use this protocol alike.
///
/// A stage never loses a toast: it returns `.drop` and the pipeline writes the record.
/// New toasts (summaries, say) go in through `StageContext.emit`, and timers through
/// `StageContext.setTimer`, so the pipeline keeps every toast accounted for and every
/// timer on the one stream clock.
public protocol ToastStage: AnyObject {
    /// Decides one toast's fate at `context.now`. Changes to `toast` go downstream.
    func process(_ toast: inout Toast, context: StageContext) -> StageVerdict

    /// A timer this stage set with `context.setTimer(at:token:)` is due.
    func timerFired(token: Int, context: StageContext)

    /// A timer this stage set with `context.setTimer(at:value:)` is due (and was not cancelled).
    func timerFired(_ timer: StageTimer, context: StageContext)

    /// The scripts were reloaded while the run goes on (SIGHUP): `replacement` is this stage
    /// as the new settings make it. Take its settings and keep what this stage holds (toasts,
    /// caches, windows, timers). The default keeps this stage as it is.
    func reload(from replacement: any ToastStage)
}

extension ToastStage {
    public func timerFired(token: Int, context: StageContext) {}
    public func timerFired(_ timer: StageTimer, context: StageContext) {}
    public func reload(from replacement: any ToastStage) {}
}

/// What a stage decided for one toast.
public enum StageVerdict: Equatable, Sendable {
    case pass
    case drop(Drop)
    /// The stage keeps the toast in hand (`context.hold()` gave the handle): it is neither
    /// passed nor dropped until the stage releases it (`context.release`: on from the next
    /// stage) or drops it (`context.drop(_:_:)`). The pipeline ends it if the stage never does.
    case hold(HoldHandle)
}

/// A timer a stage set, with the value it carries; `context.cancel(timer)` stops it.
public struct StageTimer: Sendable {
    let id: Int
    /// What the stage gave when it set the timer.
    public let value: any Sendable
}

/// A toast a stage holds: the stage keeps this to release or drop the toast later. A handle
/// whose toast is gone (released, dropped, cancelled by a `dismiss`, ended with the run) does
/// nothing.
public struct HoldHandle: Hashable, Sendable {
    let serial: Int
}
