import ToastPipeline

/// `shout`: error messages in capitals. A stage with no settings.
///
///     config{ stages = { "rules", "shout", "dedup", "rate_limit", "priority", "style", "announce" } }
public final class ShoutStage: PluginStage {
    public static let name = "shout"

    public init(settings: NoSettings) {}

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if toast.role == "error" { toast.message = toast.message.uppercased() }
        return .pass
    }
}
