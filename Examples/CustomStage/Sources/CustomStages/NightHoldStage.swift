import ToastPipeline

/// `night_hold`: between `from` and `to` o'clock on the stream clock (read as Unix time, UTC),
/// toasts of roles other than `keep` are held, not dropped, and go on in the order they came
/// when the night ends. Nothing is lost: a `dismiss` still reaches a held toast, and one still
/// held when the run ends is dropped by the pipeline.
///
///     config{ night_hold = { from = 22, to = 7, keep = { "error" } },
///             stages = { "rules", "night_hold", "dedup", "rate_limit", "priority", "style", "announce" } }
public final class NightHoldStage: PluginStage {
    public static let name = "night_hold"

    public struct Settings: PluginSettings {
        public var from = 22
        public var to = 7
        public var keep: [String] = ["error"]

        public init() {}

        public static let fields: [SettingField<Settings>] = [
            .integer("from", \.from, atLeast: 0, atMost: 23),
            .integer("to", \.to, atLeast: 0, atMost: 23),
            .roles("keep", \.keep),
        ]
    }

    /// What the timer at the end of a night carries.
    private struct NightEnds: Sendable {}

    public let settings: Settings
    /// The toasts held this night, in the order they came.
    private var held: [HoldHandle] = []

    public init(settings: Settings) {
        self.settings = settings
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        let hour = Self.hour(at: context.now)
        let night = settings.from <= settings.to ? hour >= settings.from && hour < settings.to
                                                 : hour >= settings.from || hour < settings.to
        guard night, !settings.keep.contains(toast.role) else { return .pass }
        let morning = Self.next(settings.to, after: context.now)
        if held.isEmpty { context.setTimer(at: morning, value: NightEnds()) }
        context.explain("night: held until \(context.describe(morning))")
        let handle = context.hold()
        held.append(handle)
        return .hold(handle)
    }

    /// The night is over: what it held goes on, in order (a toast a `dismiss` cancelled is no
    /// longer held, and `release` passes over it).
    public func timerFired(_ timer: StageTimer, context: StageContext) {
        for handle in held { context.release(handle) }
        held.removeAll()
    }

    /// The hour of the day (UTC) at `time`.
    private static func hour(at time: Duration) -> Int {
        Int(((time.components.seconds % 86_400) + 86_400) % 86_400 / 3_600)
    }

    /// The next time it is `hour` o'clock after `time`.
    private static func next(_ hour: Int, after time: Duration) -> Duration {
        let seconds = time.components.seconds
        var next = Duration.seconds(seconds - ((seconds % 86_400) + 86_400) % 86_400 + Int64(hour) * 3_600)
        while next <= time { next += .seconds(86_400) }
        return next
    }
}
