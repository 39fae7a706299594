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
    /// The name `config{ stages = {...} }` places it by, and the name of its settings table
    /// (`config{ per_source_cap = {...} }`).
    static var name: String { get }
    /// The stage of one run, with the settings its scripts gave.
    init(settings: Settings)
}
