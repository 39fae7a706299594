/// A stage declared once: its name, its settings and how it is made from them. Registering
/// it is then one line, `registry.register(PerSourceCap.self)`, and its `config{...}` table
/// is read and checked by its settings' declaration.
///
///     final class PerSourceCap: PluginStage {
///         static let name = "per_source_cap"
///         struct Settings: PluginSettings { ... }
///         let settings: Settings
///         init(settings: Settings) { self.settings = settings }
///         func process(_ toast: inout Toast, context: StageContext) -> StageVerdict { ... }
///     }
public protocol PluginStage: ToastStage {
    /// The stage's settings (`NoSettings` for none).
    associatedtype Settings: PluginSettings = NoSettings
    /// What the stage's timers carry (`context.setTimer(at:value:)`): its
    /// `timerFired(value:context:)` gets each one typed. `Never` for a stage without timers.
    associatedtype TimerValue: Sendable = Never
    /// The name `config{ stages = {...} }` places it by, and the name of its settings table
    /// (`config{ per_source_cap = {...} }`).
    static var name: String { get }
    /// The stage of one run, with the settings its scripts gave.
    init(settings: Settings)

    /// A timer this stage set with a `TimerValue` is due (and was not cancelled).
    func timerFired(value: TimerValue, context: StageContext)
}

extension PluginStage {
    public func timerFired(value: TimerValue, context: StageContext) {}

    /// Hands a due timer's value on as the stage's `TimerValue` (a stage that implements this
    /// itself gets the timer as it is).
    public func timerFired(_ timer: StageTimer, context: StageContext) {
        if let value = timer.value(as: TimerValue.self) { timerFired(value: value, context: context) }
    }
}

extension PluginStage where TimerValue: StateRepresentable {
    /// The timer's value, as its `TimerValue` saves itself.
    public func saveTimerValue(_ timer: StageTimer) throws -> JSONValue {
        guard let value = timer.value(as: TimerValue.self) else {
            throw SavedStateError("a timer carries \(type(of: timer.value)), not \(TimerValue.self)")
        }
        return value.savedState
    }

    public func restoreTimerValue(from saved: JSONValue) throws -> any Sendable {
        try TimerValue(savedState: saved)
    }
}
