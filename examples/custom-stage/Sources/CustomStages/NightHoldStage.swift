import ToastPipeline

/// `night_hold`: between `from` and `to` o'clock (the run's clock times: local, or UTC with
/// `--tz utc`), toasts of roles other than `keep` are held, not dropped, and go on in the
/// order they came when the night ends; a role in `release_as` goes on as another (a night's
/// warning is old news by morning). A `dismiss` still reaches a held toast, and one still held
/// when the run ends is dropped by the pipeline. The morning's release reaches the host at
/// once: past its waiting line (`queue.limit`, 3 by default) the lowest-priority, oldest toasts
/// are evicted, so give a night's toasts a line long enough to wait in.
///
///     config{ night_hold = { from = 22, to = 7, keep = { "error" }, release_as = { warning = "info" } },
///             queue = { limit = 50 },
///             stages = { "rules", "night_hold", "dedup", "rate_limit", "priority", "style", "announce" } }
public final class NightHoldStage: PluginStage {
    public static let name = "night_hold"

    public struct Settings: PluginSettings {
        public var from = 22
        public var to = 7
        public var keep: [String] = ["error"]
        public var releaseAs: [String: String] = [:]

        public init() {}

        public static let fields: [SettingField<Settings>] = [
            .integer("from", \.from, atLeast: 0, atMost: 23),
            .integer("to", \.to, atLeast: 0, atMost: 23),
            .roles("keep", \.keep),
            .roleMap("release_as", \.releaseAs),
        ]
    }

    /// What the timer at the end of a night carries: nothing, saved as nothing (`--state`).
    public struct NightEnds: Sendable, StateRepresentable {
        public init() {}
        public var savedState: JSONValue { .null }
        public init(savedState: JSONValue) {}
    }

    public let settings: Settings
    /// The toasts held this night, in the order they came.
    private var held: [HoldHandle] = []

    public init(settings: Settings) {
        self.settings = settings
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        let hour = context.clockTime(of: context.now).hour
        let night = settings.from <= settings.to ? hour >= settings.from && hour < settings.to
                                                 : hour >= settings.from || hour < settings.to
        guard night, !settings.keep.contains(toast.role) else { return .pass }
        let morning = context.nextTime(hour: settings.to, after: context.now)
        if held.isEmpty { context.setTimer(at: morning, value: NightEnds()) }
        context.explain("night: held until \(context.describe(morning))")
        let handle = context.hold()
        held.append(handle)
        return .hold(handle)
    }

    /// The night is over: what it held goes on, in order, as `release_as` says (a toast a
    /// `dismiss` cancelled is no longer held, and `release` passes over it).
    public func timerFired(value: NightEnds, context: StageContext) {
        for handle in held {
            if let role = context.heldToast(handle).flatMap({ settings.releaseAs[$0.role] }) {
                context.changeHeld(handle) { $0.role = role }
            }
            context.release(handle)
        }
        held.removeAll()
    }

    /// `--state`: the toasts held this night (the pipeline keeps the toasts and the timer), so
    /// that a run restarted before morning still lets them go on then.
    public func saveState() -> JSONValue? {
        held.savedState
    }

    public func restoreState(from saved: JSONValue) throws {
        held = try [HoldHandle](savedState: saved)
    }
}
