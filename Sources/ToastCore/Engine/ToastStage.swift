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

    /// A timer this stage set with `context.setTimer(at:token:)` is due. (Three forms over one
    /// timer queue, kept for plugin authors: a token for a stage that numbers its own timers,
    /// a `StageTimer` carrying any value, and `PluginStage`'s typed value on top of that.)
    func timerFired(token: Int, context: StageContext)

    /// A timer this stage set with `context.setTimer(at:value:)` is due (and was not cancelled).
    func timerFired(_ timer: StageTimer, context: StageContext)

    /// The scripts were reloaded while the run goes on (SIGHUP): `replacement` is this stage
    /// as the new settings make it. Take its settings and keep what this stage holds (toasts,
    /// caches, windows, timers). The default keeps this stage as it is.
    func reload(from replacement: any ToastStage)

    /// With screens on (`config{ screens = ... }`), the stage of a screen that is new: made
    /// with this stage's settings, holding nothing. Each screen then has its own (as debounce and
    /// digest do) and forgets it with the screen. The default, nil, keeps one instance for
    /// every screen.
    func forNewScreen() -> (any ToastStage)?

    /// With screens on, for a stage that `forNewScreen()` made: whether it holds nothing that
    /// its screen would lose if it were forgotten now (a screen with nothing visible, waiting
    /// or held is forgotten when an event arrives). The default says it holds nothing.
    func isIdle(at now: Duration) -> Bool

    /// `--state`: what the stage keeps between toasts (counts, windows, the handles of toasts
    /// it holds), so that a restarted run goes on as if it had never stopped. The default, nil,
    /// says it keeps nothing. Throw `SavedStateError` for what cannot be saved: the checkpoint
    /// fails and the run stops, the last saved state kept.
    func saveState() throws -> JSONValue?

    /// `--state`: takes back what `saveState()` gave, before any toast of the restarted run.
    /// Throw `SavedStateError` when it is not what this stage saves: the run stops before any
    /// input. The default takes nothing.
    func restoreState(from saved: JSONValue) throws

    /// `--state`: the value a timer set with `context.setTimer(at:value:)` carries, as JSON. The
    /// default throws: such a timer cannot be saved (a `PluginStage` whose `TimerValue` is
    /// `StateRepresentable` has it written for it).
    func saveTimerValue(_ timer: StageTimer) throws -> JSONValue

    /// `--state`: the timer's value from what `saveTimerValue(_:)` gave.
    func restoreTimerValue(from saved: JSONValue) throws -> any Sendable

    /// The toasts this stage leaves alone unless a script's `spare` says otherwise (docs/plugins.md,
    /// "Sparing errors"). A stage that holds or drops toasts for being many (a cap, a burst
    /// limit) should spare errors, `.errors`, as rate_limit and debounce do: a script's `when`
    /// then narrows what the stage takes and never lets an error in. The default spares nothing.
    var defaultSpare: DefaultSpare { get }
}

extension ToastStage {
    public func timerFired(token: Int, context: StageContext) {}
    public func timerFired(_ timer: StageTimer, context: StageContext) {}
    public func reload(from replacement: any ToastStage) {}
    public func forNewScreen() -> (any ToastStage)? { nil }
    public func isIdle(at now: Duration) -> Bool { true }
    public func saveState() throws -> JSONValue? { nil }
    public func restoreState(from saved: JSONValue) throws {}
    public func saveTimerValue(_ timer: StageTimer) throws -> JSONValue {
        throw SavedStateError("its timers carry \(type(of: timer.value)), which is not StateRepresentable")
    }
    public func restoreTimerValue(from saved: JSONValue) throws -> any Sendable {
        throw SavedStateError("its timers carry values it cannot restore")
    }
    public var defaultSpare: DefaultSpare { .nothing }
}

/// How long a built-in stage keeps its screen (docs/events.md, "Screens"): a window that ends
/// at a time is looked at again then, without waiting for the next event on the screen.
enum ScreenStateEnd {
    /// It holds nothing.
    case now
    /// It holds something until `time` (a dedup key, a rate-limit window), if nothing happens.
    case at(Microseconds)
    /// It holds something until one of its timers fires or a toast comes (a summary pending,
    /// a digest window open, a toast held).
    case onActivity
}

/// A built-in stage that changes no field, or only known ones: with screens on, a toast's
/// screen found before it still holds after it.
protocol FieldPreserving {
    func leaves(field: String) -> Bool
}

/// A built-in stage that keeps every screen's state in its own tables, keyed by the screen's
/// serial (dedup, rate_limit): a screen then costs an entry in them, where an instance of the
/// stage for each screen cost its object, its tables and a context (a million screens held at
/// once is a service's everyday load); what it keeps for each screen besides sits in the
/// screen's slot for the stage (`ScreenStageSlot`). The pipeline finds the toast's screen
/// before calling it (`ScreenTable.withSlotInHand`).
protocol ScreenKeyedStage: AnyObject {
    /// Screens are on: the state is kept by screen from now on, in `table`'s screens, each
    /// with its slot `slot` for this stage (called once, before any toast).
    func keyByScreen(in table: ScreenTable, slot: Int)
    /// When what `screen` keeps here ends (as `ScreenState.stateEnds`).
    func stateEnds(of screen: Screen, now: Microseconds) -> ScreenStateEnd
    /// The screen is forgotten (or ended by `screens.limit`): what it kept here goes, and its
    /// slot is emptied (the screen object may be reused for another screen).
    func forget(_ screen: Screen)
    /// Its saved state without the screens' parts (`screens` an empty list), and one screen's
    /// part, written into a checkpoint's writer when it has one: a checkpoint saves each part
    /// with its screen, so that it costs what the screens that changed keep.
    func savedSharedState() -> JSONValue?
    func hasSavedPart(of screen: Screen) -> Bool
    /// Called after `willWriteSavedParts`, for each screen of one save in turn.
    func writeSavedPart(of screen: Screen, to writer: inout JSONWriter)
    /// Before the screens' parts of one save are written: a stage readies, once for all the
    /// screens, what `writeSavedPart` reads of each.
    func willWriteSavedParts()
    /// Restores one screen's part, as `writeSavedPart` wrote it, after `restoreState` restored
    /// the rest (its `screens` are left to this): a restore reads one screen at a time, so that
    /// a state of many screens is not held whole while it is restored. The pipeline gives each
    /// screen its part, from the screen's row or from the list a whole saved state has.
    func restoreSavedPart(of screen: Screen, from saved: SavedObject, path: String) throws
}

extension ScreenKeyedStage {
    func willWriteSavedParts() {}

    /// A screen's part as a value (nil: none), as `saveState` lists them under `screens`.
    func savedPart(of screen: Screen) -> JSONValue? {
        guard hasSavedPart(of: screen) else { return nil }
        var writer = JSONWriter()
        writeSavedPart(of: screen, to: &writer)
        return writer.value
    }
}

/// A built-in stage kept per screen: it says when its screen's state ends, more precisely than
/// `isIdle(at:)`, and can be emptied for another screen instead of being freed with its screen
/// and made again (`ScreenTable` keeps a few forgotten screens for reuse).
protocol ScreenState: AnyObject {
    /// When its state ends; `isHeld` tells whether a toast it holds is still held (a
    /// `dismiss` may have cancelled it).
    func stateEnds(now: Microseconds, isHeld: (HoldHandle) -> Bool) -> ScreenStateEnd
    func empty()
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

    /// The value, as the type the stage set it with; nil for a value of another type.
    public func value<Value: Sendable>(as type: Value.Type) -> Value? {
        value as? Value
    }
}

/// A toast a stage holds: the stage keeps this to release or drop the toast later. A handle
/// whose toast is gone (released, dropped, cancelled by a `dismiss`, ended with the run) does
/// nothing.
public struct HoldHandle: Hashable, Sendable {
    let serial: Int
}

extension HoldHandle: StateRepresentable {
    /// A held toast's handle: the serial the pipeline's held table keeps it by.
    public var savedState: JSONValue { .integer(Int64(serial)) }
    public init(savedState: JSONValue) throws {
        guard case .integer(let serial) = savedState, let value = Int(exactly: serial) else {
            throw SavedStateError("not a held toast's serial")
        }
        self.serial = value
    }
}
