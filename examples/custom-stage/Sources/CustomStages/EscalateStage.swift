import ToastPipeline

/// `escalate`: the `count`-th toast of role `role` from the same source within `window`
/// seconds becomes a toast of role `to`, so repeated warnings are finally heard as errors.
///
///     config{ escalate = { count = 3, window = 60, role = "warning", to = "error" },
///             stages = { "rules", "escalate", "dedup", "rate_limit", "priority", "style", "announce" } }
public final class EscalateStage: PluginStage {
    public static let name = "escalate"

    public struct Settings: PluginSettings, Equatable {
        public var count = 3
        public var window: Duration = .seconds(60)
        public var role = "warning"
        public var to = "error"

        public init() {}

        public static let fields: [SettingField<Settings>] = [
            .integer("count", \.count, atLeast: 1),
            .duration("window", \.window, above: .zero),
            .role("role", \.role),
            .role("to", \.to),
        ]
    }

    public let settings: Settings
    /// Per source: times of the recent toasts of `settings.role`, oldest first. Sources
    /// with nothing recent are swept out once the table has doubled since the last sweep,
    /// so it holds about the sources active within one window, however many pass by.
    private var recent: [String?: [Duration]] = [:]
    private var sweepAt = 64

    public init(settings: Settings) {
        self.settings = settings
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        guard toast.role == settings.role else { return .pass }
        let now = context.now
        var times = (recent[toast.source] ?? []).filter { now - $0 < settings.window }
        times.append(now)
        recent[toast.source] = times
        if recent.count > sweepAt {
            recent = recent.filter { _, times in times.last.map { now - $0 < settings.window } ?? false }
            sweepAt = max(64, 2 * recent.count)
        }
        if times.count >= settings.count {
            toast.role = settings.to
            toast.priority = nil   // the new role's priority applies
        }
        return .pass
    }

    /// How many sources it remembers now (bounded, see `recent`).
    var sourcesRemembered: Int { recent.count }
}
