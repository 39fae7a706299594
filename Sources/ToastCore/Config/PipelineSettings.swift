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
    /// The tables set for stages that are not built in (plugins), by stage name.
    package var stageTables: [String: ConfigTable] = [:]

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
}

/// What the settings need to know of the stages beyond the built-in ones (a stage registry,
/// which also builds them): their names, and a check of each one's own `config{}` table.
package protocol PluginStageCatalog {
    /// The plugin stages' names, in the order they were added.
    var pluginNames: [String] { get }
    /// Throws a `ConfigError` when the plugin stage `name` cannot be made from `settings`.
    func checkSettings(of name: String, in settings: PipelineSettings) throws
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
        for name in tree.fields.keys.sorted()
        where !Self.topLevelNames.contains(name) && !pluginStages.contains(name) {
            let known = (Self.topLevelNames + pluginStages).joined(separator: ", ")
            throw ConfigError("unknown setting \(name) (known: \(known))")
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
        if let stages = try root.stringList("stages") {
            settings.stages = try checkedOrder(stages)
        }
        for name in pluginStages {
            switch tree[name] {
            case nil: break
            case .table(let table)?: settings.stageTables[name] = table
            case let value?: throw ConfigError("\(name) must be a table of settings, not \(value.typeName)")
            }
            try plugins.checkSettings(of: name, in: settings)
        }
        return settings
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

    private func checkedOrder(_ names: [String]) throws -> [String] {
        let known = BuiltInStage.defaultOrder + pluginStages
        var order: [String] = []
        for (index, name) in names.enumerated() {
            if name == BuiltInStage.host {
                guard index == names.count - 1 else {
                    throw ConfigError("stages: host must be the last stage")
                }
                continue
            }
            guard known.contains(name) else {
                throw ConfigError("stages: unknown stage \(quoted(name)) (known: \((known + [BuiltInStage.host]).joined(separator: ", ")))")
            }
            guard !order.contains(name) else { throw ConfigError("stages: \(quoted(name)) is listed twice") }
            order.append(name)
        }
        return order
    }
}
