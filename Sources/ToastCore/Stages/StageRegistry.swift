/// Stage factories by name: what `config{ stages = {...} }` can place. The CLI starts from
/// the built-in stages and a custom `main.swift` registers its own; every pipeline has its
/// own registry, so two pipelines in one process never see each other's stages.
public struct StageRegistry: PluginStageCatalog {
    /// What a factory gets: the run's settings and the stage's own `config{ <name> = {...} }`.
    struct FactoryInput {
        let settings: PipelineSettings
        /// The stage's own table (empty when the scripts set none), named by the stage's name.
        let table: SettingsReader
        /// Whether the stage is defined by a name of its own (`errors = { stage = "digest" }`):
        /// then a built-in kind reads its settings from `table`, not from `settings`.
        let isNamedInstance: Bool
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
            BuiltInStage.debounce: { input in try input.builtIn(\.debounce).map { DebounceStage(settings: $0) } },
            BuiltInStage.dedup: { input in try input.builtIn(\.dedup).map { DedupStage(settings: $0) } },
            BuiltInStage.digest: { input in try input.builtIn(\.digest).map { DigestStage(settings: $0, functions: input.functions) } },
            BuiltInStage.rateLimit: { input in try input.builtIn(\.rateLimit).map { RateLimitStage(settings: $0) } },
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
                Stage(settings: try Stage.Settings.read(from: input.table.table, path: input.table.path,
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
    package func checkSettings(ofKind kind: String, named name: String, table: ConfigTable,
                               in settings: PipelineSettings) throws {
        guard let factory = factories[kind] else { return }
        _ = try factory(FactoryInput(settings: settings, table: SettingsReader(table, path: name),
                                     isNamedInstance: name != kind, rules: RulesStage(), functions: nil))
    }

    /// The stages of `settings.stages`, in order; stages whose settings remove them
    /// (`dedup = false`) are left out. `functions` runs the script functions settings hold.
    /// A stage defined by a name of its own is made by its kind's factory from its own table.
    package func makeStages(settings: PipelineSettings, rules: RulesStage,
                           functions: (any ScriptFunctionRunner)? = nil) throws -> [(name: String, stage: any ToastStage)] {
        try settings.checkDefinedStagesAreListed()
        return try settings.stages.compactMap { name in
            let instance = settings.instances[name]
            guard let factory = factories[instance?.kind ?? name] else {
                throw ConfigError("stages: unknown stage \(quoted(name))")
            }
            let table = SettingsReader(instance?.table ?? settings.stageTables[name] ?? ConfigTable(), path: name)
            let input = FactoryInput(settings: settings, table: table, isNamedInstance: instance != nil, rules: rules,
                                     functions: functions)
            return try factory(input).map { (name, $0) }
        }
    }
}

extension StageRegistry.FactoryInput {
    /// A built-in kind's settings: its own table's for a stage defined by a name of its own,
    /// else the run's (nil when the scripts removed the stage: `dedup = false`).
    func builtIn<Settings: BuiltInStageSettings>(_ keyPath: KeyPath<PipelineSettings, Settings?>) throws -> Settings? {
        isNamedInstance ? try Settings.read(table) : settings[keyPath: keyPath]
    }
}
