/// Stage factories by name: what `config{ stages = {...} }` can place. The CLI starts from
/// the built-in stages and a custom `main.swift` registers its own; every pipeline has its
/// own registry, so two pipelines in one process never see each other's stages.
public struct StageRegistry: PluginStageCatalog {
    /// What a factory gets: the run's settings and the stage's own `config{ <name> = {...} }`.
    struct FactoryInput {
        let settings: PipelineSettings
        /// The stage's own table (empty when the scripts set none).
        let table: SettingsReader
        /// The rules stage of the run, which the scripts fill (the built-in `rules` entry).
        let rules: RulesStage
        /// Runs the functions that settings hold (a role's `announce`), when scripts made any.
        let functions: (any ScriptFunctionRunner)?
    }

    typealias Factory = (FactoryInput) throws -> (any ToastStage)?

    private var factories: [String: Factory] = [:]
    /// Names of stages registered beyond the built-in ones, in registration order.
    public private(set) var pluginNames: [String] = []
    /// Why a `register(_:)` of a declared stage failed (a name taken or reserved); a run with
    /// such a registry stops before it reads anything (`check()`).
    public private(set) var problems: [String] = []

    /// The built-in stages of docs/lua.md, "config", but the host.
    public static var builtIn: StageRegistry {
        var registry = StageRegistry()
        registry.factories = [
            BuiltInStage.rules: { $0.rules },
            BuiltInStage.debounce: { input in input.settings.debounce.map { DebounceStage(settings: $0) } },
            BuiltInStage.dedup: { input in input.settings.dedup.map { DedupStage(settings: $0) } },
            BuiltInStage.digest: { input in input.settings.digest.map { DigestStage(settings: $0, functions: input.functions) } },
            BuiltInStage.rateLimit: { input in input.settings.rateLimit.map { RateLimitStage(settings: $0) } },
            BuiltInStage.priority: { _ in PriorityStage() },
            BuiltInStage.style: { _ in StyleStage() },
            BuiltInStage.announce: { input in AnnounceStage(functions: input.functions) },
        ]
        return registry
    }

    public init() {}

    /// Adds a stage under `name`. A name may be registered once; `host` and the built-in
    /// names are taken.
    mutating func register(_ name: String, factory: @escaping Factory) throws {
        guard name != BuiltInStage.host else { throw ConfigError("stage name \"host\" is taken by the host") }
        guard factories[name] == nil else { throw ConfigError("a stage named \(quoted(name)) is already registered") }
        guard !name.isEmpty, !SettingsBuilder.topLevelNames.contains(name) else {
            throw ConfigError("\(quoted(name)) cannot name a stage")
        }
        factories[name] = factory
        pluginNames.append(name)
    }

    /// Adds a declared stage under its name; its settings are read from `config{ <name> = {...} }`
    /// by their declaration. A name that is taken or reserved is a problem the run reports
    /// when it starts (`check()`), so `main.swift` stays one line per stage.
    public mutating func register<Stage: PluginStage>(_ stage: Stage.Type) {
        do {
            try register(Stage.name) { input in
                Stage(settings: try Stage.Settings.read(from: input.table.table, path: Stage.name,
                                                        roles: input.settings.roles))
            }
        } catch {
            problems.append("cannot register \(Stage.self): \(error)")
        }
    }

    /// Fails with the first registration problem, if there was one.
    public func check() throws {
        if let problem = problems.first { throw ConfigError(problem) }
    }

    /// Whether a stage is registered under `name`.
    public func contains(_ name: String) -> Bool {
        factories[name] != nil
    }

    /// Checks a plugin stage's own table by building the stage once, so a bad setting is
    /// reported at the `config{...}` call that made it, before any input is read.
    package func checkSettings(of name: String, in settings: PipelineSettings) throws {
        guard let factory = factories[name] else { return }
        _ = try factory(input(for: name, settings: settings, rules: RulesStage(), functions: nil))
    }

    private func input(for name: String, settings: PipelineSettings, rules: RulesStage,
                       functions: (any ScriptFunctionRunner)?) -> FactoryInput {
        let table = SettingsReader(settings.stageTables[name] ?? ConfigTable(), path: name)
        return FactoryInput(settings: settings, table: table, rules: rules, functions: functions)
    }

    /// The stages of `settings.stages`, in order; stages whose settings remove them
    /// (`dedup = false`) are left out. `functions` runs the script functions settings hold.
    package func makeStages(settings: PipelineSettings, rules: RulesStage,
                           functions: (any ScriptFunctionRunner)? = nil) throws -> [(name: String, stage: any ToastStage)] {
        try settings.stages.compactMap { name in
            guard let factory = factories[name] else {
                throw ConfigError("stages: unknown stage \(quoted(name))")
            }
            return try factory(input(for: name, settings: settings, rules: rules, functions: functions)).map { (name, $0) }
        }
    }
}
