import ToastPipeline

/// `quiet_hours`: between `from` and `to` o'clock (the run's clock times: local, or UTC with
/// `--tz utc`), toasts of roles other than `keep` are dropped, or with `mode = "downgrade"` let
/// through quietly (bottom, short, lowest priority). When the quiet time ends, one summary
/// toast says how many toasts it held back.
///
///     config{ quiet_hours = { from = 22, to = 7, keep = { "error" }, mode = "drop" },
///             stages = { "rules", "quiet_hours", "dedup", "rate_limit", "priority", "style", "announce" } }
public final class QuietHoursStage: PluginStage {
    public static let name = "quiet_hours"

    public struct Settings: PluginSettings, Equatable {
        public var from = 22
        public var to = 7
        public var keep: [String] = ["error"]
        public var mode = "drop"

        public init() {}

        public static let fields: [SettingField<Settings>] = [
            .integer("from", \.from, atLeast: 0, atMost: 23),
            .integer("to", \.to, atLeast: 0, atMost: 23),
            .strings("keep", \.keep),
            .string("mode", \.mode, oneOf: ["drop", "downgrade"]),
        ]

        var downgrade: Bool { mode == "downgrade" }
    }

    public let settings: Settings
    /// Toasts held back since the quiet time began; nil when no summary is due.
    private var heldBack: Int?

    public init(settings: Settings) {
        self.settings = settings
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        guard !settings.keep.contains(toast.role), isQuiet(at: context.clockTime(of: context.now).hour) else { return .pass }
        if heldBack == nil {
            context.setTimer(at: context.nextTime(hour: settings.to, after: context.now), token: 0)
        }
        heldBack = (heldBack ?? 0) + 1
        guard settings.downgrade else {
            return .drop(Drop(stage: context.stageName, reason: "quiet_hours"))
        }
        toast.placement = .bottom
        toast.duration = .seconds(2)
        toast.priority = Int.min
        return .pass
    }

    public func timerFired(token: Int, context: StageContext) {
        guard let count = heldBack else { return }
        heldBack = nil
        var summary = context.makeToast(message: count == 1 ? "1 notification during quiet hours"
                                                            : "\(count) notifications during quiet hours")
        summary.source = Self.name
        context.emit(summary)
    }

    private func isQuiet(at hourOfDay: Int) -> Bool {
        if settings.from <= settings.to {
            return hourOfDay >= settings.from && hourOfDay < settings.to
        }
        return hourOfDay >= settings.from || hourOfDay < settings.to
    }
}
