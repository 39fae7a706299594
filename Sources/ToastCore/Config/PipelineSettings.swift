/// Everything `config{...}` sets, checked and typed: what the pipeline is built from.
package struct PipelineSettings {
    /// nil: the stage is removed (`dedup = false`).
    package var dedup: DedupSettings? = DedupSettings()
    /// Off unless a script gives them a table (`true`: on, with the defaults).
    package var debounce: DebounceSettings?
    package var digest: DigestSettings?
    package var rateLimit: RateLimitSettings? = RateLimitSettings()
    package var queue = QueueSettings()
    /// Off (nil): one host for every toast.
    package var screens: ScreenSettings?
    package var roles = RoleTable.builtIn
    /// The stages before the host, in order (docs/lua.md, "config").
    package var stages: [String] = BuiltInStage.defaultOrder
    /// The tables set for stages that are not built in (plugins), by stage name, without
    /// `when` and `spare`.
    package var stageTables: [String: ConfigTable] = [:]
    /// Stages defined by a name of their own: `config{ errors = { stage = "digest", ... } }`.
    package var instances: [String: StageInstance] = [:]
    /// Each stage's `when`, by name; a stage without one takes every toast.
    package var scopes: [String: StageScope] = [:]
    /// Each stage's `spare` as its scripts set it, by name; a stage without one spares what its
    /// kind declares (`ToastStage.defaultSpare`: errors for `rate_limit` and `debounce`).
    package var spares: [String: SpareSetting] = [:]

    package init() {}
}

/// The names of the built-in stages.
package enum BuiltInStage {
    package static let rules = "rules"
    package static let dedup = "dedup"
    package static let debounce = "debounce"
    package static let digest = "digest"
    package static let rateLimit = "rate_limit"
    package static let priority = "priority"
    package static let style = "style"
    package static let announce = "announce"
    package static let host = "host"

    /// `rules → debounce → dedup → digest → rate_limit → priority → style → announce`, then
    /// the host (debounce and digest run only when a script turns them on).
    package static let defaultOrder = [rules, debounce, dedup, digest, rateLimit, priority, style, announce]

    /// The built-in kinds a stage defined by name may be of (those that hold or drop).
    package static let kinds = [dedup, rateLimit, debounce, digest]

    /// The built-in stages that take no settings (a rule orders, styles or words a toast
    /// instead): named in `config{}`, they get a message that says so.
    package static let withoutSettings = [rules, priority, style, announce, host]

    /// The keys every such stage's table takes that the pipeline reads (and takes out before
    /// the stage reads the rest): a mistyped setting is compared with them too.
    package static let scopeKeys = ["when", "spare"]
}

/// A stage defined by a name of its own (`config{ errors = { stage = "digest", ... } }`): its
/// kind, and its settings as the kind reads them (without `stage`, `when` and `spare`).
package struct StageInstance {
    package var kind: String
    package var table: ConfigTable
}

/// What the settings need to know of the stages beyond the built-in ones (a stage registry,
/// which also builds them): their names, and a check of each one's own `config{}` table.
package protocol PluginStageCatalog {
    /// The plugin stages' names, in the order they were added.
    var pluginNames: [String] { get }
    /// Throws a `ConfigError` when a stage of the plugin kind `kind`, named `name`, cannot be
    /// made from `table`.
    func checkSettings(ofKind kind: String, named name: String, table: ConfigTable, in settings: PipelineSettings) throws
}

/// Collects the `config{...}` calls of all scripts: each call merges into the earlier ones
/// (docs/events.md) and is checked at once, so a bad setting is reported at the
/// call that made it, before any input is read.
package struct SettingsBuilder {
    /// The plugin stages a `stages` list may name besides the built-in ones; they check their
    /// own tables.
    package let plugins: any PluginStageCatalog
    package private(set) var merged = ConfigTable()
    package private(set) var settings = PipelineSettings()

    package init(plugins: any PluginStageCatalog) {
        self.plugins = plugins
    }

    private var pluginStages: [String] { plugins.pluginNames }

    static let topLevelNames = ["dedup", "rate_limit", "debounce", "digest", "queue", "screens", "roles", "stages"]

    /// Merges one `config{...}` table; on error nothing changes.
    package mutating func apply(_ table: ConfigTable) throws {
        let candidate = merged.merging(table)
        settings = try decode(candidate)
        merged = candidate
    }

    /// Defines or changes one role, as `role(name, spec)` does.
    package mutating func applyRole(_ name: String, _ spec: ConfigTable) throws {
        try apply(ConfigTable(fields: ["roles": .table(ConfigTable(fields: [name: .table(spec)]))]))
    }

    private func decode(_ tree: ConfigTable) throws -> PipelineSettings {
        var settings = PipelineSettings()
        let root = SettingsReader(tree, path: "")
        if !tree.list.isEmpty { throw ConfigError("config takes a table of named settings, not a list") }
        var tree = tree
        var instanceTables: [String: ConfigTable] = [:]
        for name in tree.fields.keys.sorted()
        where !Self.topLevelNames.contains(name) && !pluginStages.contains(name) {
            guard case .table(let table)? = tree[name], table["stage"] != nil else {
                let known = Self.topLevelNames + pluginStages
                if BuiltInStage.withoutSettings.contains(name) {
                    throw ConfigError("the \(name) stage takes no settings, nor a when or spare (the stages that do: "
                                      + "\(BuiltInStage.kinds.joined(separator: ", ")); the host's settings are under queue)")
                }
                if let question = NameSuggestion.question(for: name, among: known) {
                    throw ConfigError("unknown setting \(name); \(question)")
                }
                throw ConfigError("unknown setting \(name) (known: \(known.joined(separator: ", ")); "
                                  + "a stage of your own is a table with stage = \"KIND\")")
            }
            instanceTables[name] = table
            tree[name] = nil
        }
        // Each stage's `when` and `spare` are the pipeline's, not the stage's: taken out of its
        // table here.
        for name in BuiltInStage.kinds + pluginStages {
            guard case .table(var table)? = tree[name] else { continue }
            if let kind = table["stage"] {
                guard case .string(name) = kind else {
                    throw ConfigError("\(name).stage: \(quoted(name)) names the stage of kind \(quoted(name)); "
                                      + "a stage of another kind needs a name of its own (errors = { stage = \"digest\" })")
                }
                table["stage"] = nil
            }
            try Self.takeScopes(of: name, from: &table, into: &settings)
            tree[name] = .table(table)
        }
        settings.dedup = try Self.optionalStage(tree["dedup"], name: "dedup", DedupSettings()) { value, reader in
            try value.apply(reader)
        }
        settings.rateLimit = try Self.optionalStage(tree["rate_limit"], name: "rate_limit", RateLimitSettings()) {
            value, reader in try value.apply(reader)
        }
        if tree["debounce"] != nil {
            settings.debounce = try Self.optionalStage(tree["debounce"], name: "debounce", DebounceSettings()) {
                value, reader in try value.apply(reader)
            }
        }
        if tree["digest"] != nil {
            settings.digest = try Self.optionalStage(tree["digest"], name: "digest", DigestSettings()) {
                value, reader in try value.apply(reader)
            }
        }
        switch tree["queue"] {
        case nil, .bool(true)?: break
        case .bool(false)?: throw ConfigError("queue cannot be false: the host cannot be removed")
        default:
            guard let reader = try root.table("queue") else { break }
            try settings.queue.apply(reader)
        }
        switch tree["screens"] {
        case nil, .bool(false)?: break
        case .table(let table)?: settings.screens = try ScreenSettings.read(SettingsReader(table, path: "screens"))
        case let value?: throw ConfigError("screens must be a table with by (the field that names a screen), not \(value.typeName)")
        }
        if let roles = try root.table("roles") {
            settings.roles = try Self.roles(roles)
        }
        for (name, table) in instanceTables.sorted(by: { $0.key < $1.key }) {
            settings.instances[name] = try instance(name, table, settings: &settings)
        }
        if let stages = try root.stringList("stages") {
            settings.stages = try checkedOrder(stages, instances: settings.instances)
        }
        for name in pluginStages {
            switch tree[name] {
            case nil: break
            case .table(let table)?: settings.stageTables[name] = table
            case let value?: throw ConfigError("\(name) must be a table of settings, not \(value.typeName)")
            }
            try plugins.checkSettings(ofKind: name, named: name, table: settings.stageTables[name] ?? ConfigTable(), in: settings)
        }
        return settings
    }

    /// A stage defined by a name of its own: its kind is known, its settings are the kind's,
    /// and its `when` and `spare` go to the pipeline.
    private func instance(_ name: String, _ table: ConfigTable, settings: inout PipelineSettings) throws -> StageInstance {
        guard case .string(let kind)? = table["stage"] else {
            throw ConfigError("\(name).stage must name a kind of stage (a string), not \(table["stage"]?.typeName ?? "nil")")
        }
        let kinds = BuiltInStage.kinds + pluginStages
        guard kinds.contains(kind) else {
            throw ConfigError("\(name).stage: unknown kind of stage \(quoted(kind))" + NameSuggestion.hint(for: kind, among: kinds))
        }
        guard !BuiltInStage.defaultOrder.contains(name), name != BuiltInStage.host else {
            throw ConfigError("\(name) is a built-in stage's name; give your \(kind) stage a name of its own")
        }
        var own = table
        own["stage"] = nil
        try Self.takeScopes(of: name, from: &own, into: &settings)
        let reader = SettingsReader(own, path: name)
        switch kind {
        case BuiltInStage.dedup: _ = try DedupSettings.read(reader)
        case BuiltInStage.rateLimit: _ = try RateLimitSettings.read(reader)
        case BuiltInStage.debounce: _ = try DebounceSettings.read(reader)
        case BuiltInStage.digest: _ = try DigestSettings.read(reader)
        default: try plugins.checkSettings(ofKind: kind, named: name, table: own, in: settings)
        }
        return StageInstance(kind: kind, table: own)
    }

    /// Moves the `when` and `spare` of stage `name` out of its `table` into `settings`.
    private static func takeScopes(of name: String, from table: inout ConfigTable, into settings: inout PipelineSettings) throws {
        if let when = table["when"] {
            settings.scopes[name] = try scope(when, path: "\(name).when")
            table["when"] = nil
        }
        if let spare = table["spare"] {
            settings.spares[name] = try SpareSetting.read(spare, path: "\(name).spare")
            table["spare"] = nil
        }
    }

    /// A `when`; an empty match table takes every toast, as no `when` at all (and costs nothing).
    private static func scope(_ value: ConfigValue, path: String) throws -> StageScope? {
        let scope = try StageScope.read(value, path: path)
        if case .match(let table) = scope, table.conditions.isEmpty { return nil }
        return scope
    }

    /// `false` removes a stage; `true` or a table keeps it (with the table's settings).
    private static func optionalStage<S>(_ value: ConfigValue?, name: String, _ defaults: S,
                                         apply: (inout S, SettingsReader) throws -> Void) throws -> S? {
        var settings = defaults
        switch value {
        case nil, .bool(true)?: return settings
        case .bool(false)?: return nil
        case .table(let table)?:
            try apply(&settings, SettingsReader(table, path: name))
            return settings
        case let other?:
            throw ConfigError("\(name) must be a table, true or false, not \(other.typeName)")
        }
    }

    private static func roles(_ reader: SettingsReader) throws -> RoleTable {
        var table = RoleTable.builtIn
        if !reader.table.list.isEmpty { throw ConfigError("roles must be a table of roles by name, not a list") }
        for name in reader.table.fields.keys.sorted() {
            guard let spec = try reader.table(name) else { continue }
            guard !name.isEmpty else { throw ConfigError("a role needs a non-empty name") }
            var style = table[name] ?? table.newRoleBase
            if table[name] == nil { style.announcement = nil }
            try spec.rejectUnknown(allowed: ["symbol", "glyph", "color", "label", "priority", "announce"])
            if let value = try spec.string("symbol") { style.symbol = value }
            if let value = try spec.string("glyph") { style.glyph = value }
            if let value = try spec.string("color") { style.color = value }
            if let value = try spec.string("label") { style.label = value }
            if let value = try spec.integer("priority") { style.priority = value }
            switch spec.table["announce"] {
            case nil: break
            case .string(let template)?: style.announcement = .template(template)
            case .function(let function)?:
                style.announcement = .function(function)
            case let value?:
                throw ConfigError("\(spec.path).announce must be a template string or a function, not \(value.typeName)")
            }
            table.define(name, as: style)
        }
        return table
    }

    private func checkedOrder(_ names: [String], instances: [String: StageInstance]) throws -> [String] {
        let known = BuiltInStage.defaultOrder + pluginStages + instances.keys.sorted()
        var order: [String] = []
        for (index, name) in names.enumerated() {
            if name == BuiltInStage.host {
                guard index == names.count - 1 else {
                    throw ConfigError("stages: host must be the last stage")
                }
                continue
            }
            guard known.contains(name) else {
                throw ConfigError("stages: unknown stage \(quoted(name))" + NameSuggestion.hint(for: name, among: known + [BuiltInStage.host]))
            }
            guard !order.contains(name) else { throw ConfigError("stages: \(quoted(name)) is listed twice") }
            order.append(name)
        }
        return order
    }
}

extension PipelineSettings {
    /// Fails when a stage defined by a name of its own is not listed in `stages` (it would
    /// never run): checked once every script has loaded, as the two may come in separate
    /// `config{}` calls.
    package func checkDefinedStagesAreListed() throws {
        for name in instances.keys.sorted() where !stages.contains(name) {
            let kind = instances[name]?.kind ?? ""
            throw ConfigError("config: \(name) is defined (a stage of kind \(quoted(kind))) but stages does not list it")
        }
    }
}
