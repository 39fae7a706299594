import ToastPipeline

/// `per_source_cap`: at most `limit` toasts from one source within `window`; the rest of
/// that source's toasts are dropped until the window has room again.
///
///     config{ per_source_cap = { limit = 3, window = 10 } }
public final class PerSourceCapStage: PluginStage {
    public static let name = "per_source_cap"

    public struct Settings: PluginSettings {
        public var limit = 3
        public var window: Duration = .seconds(10)

        public init() {}

        public static let fields: [SettingField<Settings>] = [
            .integer("limit", \.limit, atLeast: 1),
            .duration("window", \.window, above: .zero),
        ]
    }

    public let settings: Settings
    /// When each source's recent toasts passed, oldest first. Memory stays bounded: once the
    /// table has doubled since the last sweep, sources quiet for a whole window go.
    private var passed: [String: [Duration]] = [:]
    private var sweepAt = 64

    public init(settings: Settings) {
        self.settings = settings
    }

    /// A cap drops toasts for being many: errors skip it unless a script says `spare = false`.
    public var defaultSpare: DefaultSpare { .errors }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        guard let source = toast.source else { return .pass }
        let now = context.now
        let recent = (passed[source] ?? []).filter { now - $0 < settings.window }
        guard recent.count < settings.limit else {
            context.explain("\(recent.count) toasts from \(source) passed within the window; the limit is \(settings.limit)")
            return .drop(Drop(stage: context.stageName, reason: "capped"))
        }
        passed[source] = recent + [now]
        if passed.count > sweepAt {
            passed = passed.filter { _, times in times.last.map { now - $0 < settings.window } ?? false }
            sweepAt = max(64, 2 * passed.count)
        }
        return .pass
    }

    /// With `config{ screens = ... }`, each screen counts its own sources.
    public func forNewScreen() -> (any ToastStage)? {
        PerSourceCapStage(settings: settings)
    }

    /// A screen whose sources all went quiet for a window can be forgotten.
    public func isIdle(at now: Duration) -> Bool {
        passed.values.allSatisfy { times in times.last.map { now - $0 >= settings.window } ?? true }
    }
}
