import ToastPipeline

/// `escalate`: the `count`-th toast of role `role` from the same source within `window`
/// seconds becomes a toast of role `to`, so repeated warnings are finally heard as errors.
///
///     config{ escalate = { count = 3, window = 60, role = "warning", to = "error" },
///             stages = { "rules", "escalate", "dedup", "rate_limit", "priority", "style", "announce" } }
public final class EscalateStage: ToastStage {
    public static let name = "escalate"

    public struct Settings: Equatable {
        public var count = 3
        public var window: Microseconds = 60 * StreamTime.perSecond
        public var role = "warning"
        public var to = "error"

        public init(_ reader: SettingsReader, roles: RoleTable) throws {
            try reader.rejectUnknown(allowed: ["count", "window", "role", "to"])
            if let value = try reader.integer("count", minimum: 1) { count = value }
            if let value = try reader.seconds("window", minimum: 0, exclusive: true) { window = value }
            if let value = try reader.string("role") { role = value }
            if let value = try reader.string("to") { to = value }
            guard roles.contains(to) else {
                throw ConfigError("escalate.to: unknown role \"\(to)\" (define it before this config call)")
            }
        }
    }

    public let settings: Settings
    /// Per source: times of the recent toasts of `settings.role`, oldest first.
    private var recent: [String?: [Microseconds]] = [:]

    public init(settings: Settings) {
        self.settings = settings
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        guard toast.role == settings.role else { return .pass }
        let now = context.now
        var times = (recent[toast.source] ?? []).filter { now - $0 < settings.window }
        times.append(now)
        recent[toast.source] = times
        if times.count >= settings.count {
            toast.role = settings.to
            toast.priority = nil   // the new role's priority applies
        }
        return .pass
    }
}
