/// The settings of a built-in kind of stage that a script may define by a name of its own:
/// read from its table over the defaults.
protocol BuiltInStageSettings: Equatable, Sendable {
    init()
    mutating func apply(_ reader: SettingsReader) throws
}

extension BuiltInStageSettings {
    static func read(_ reader: SettingsReader) throws -> Self {
        var settings = Self()
        try settings.apply(reader)
        return settings
    }
}

/// Settings of `dedup` (docs/lua.md, "config"): a toast whose key passed less than `window` ago is dropped.
package struct DedupSettings: BuiltInStageSettings {
    /// 0: no time limit; a remembered key is a duplicate for as long as it is remembered.
    package var window: Microseconds = 5 * StreamTime.perSecond
    /// The fields that make a toast's key when it has no `key` of its own.
    package var fields: [String] = ["message", "subtitle", "role"]
    /// How many keys are remembered, the least recently passed forgotten first.
    package var cache: Int = 4096

    package init() {}

    static let names = ["window", "fields", "cache"]

    mutating func apply(_ reader: SettingsReader) throws {
        try reader.rejectUnknown(allowed: Self.names, alsoKnown: BuiltInStage.scopeKeys)
        if let value = try reader.seconds("window") { window = value }
        if let value = try reader.stringList("fields") { fields = value }
        if let value = try reader.integer("cache", minimum: 0) { cache = value }
    }
}

/// Settings of `rate_limit` (docs/lua.md, "config"): at most `limit` toasts per group in `window`.
package struct RateLimitSettings: BuiltInStageSettings {
    package var limit: Int = 10
    package var window: Microseconds = 10 * StreamTime.perSecond
    /// The field whose value groups toasts; toasts without it share one group.
    package var key: String = "source"
    /// Whether each run of drops ends in one "N more" toast.
    package var summary: Bool = false

    package init() {}

    static let names = ["limit", "window", "key", "summary"]

    mutating func apply(_ reader: SettingsReader) throws {
        try reader.rejectUnknown(allowed: Self.names, alsoKnown: BuiltInStage.scopeKeys)
        if let value = try reader.integer("limit", minimum: 0) { limit = value }
        if let value = try reader.seconds("window", minimum: 0, exclusive: true) { window = value }
        if let value = try reader.string("key") { key = value }
        if let value = try reader.bool("summary") { summary = value }
    }
}

/// Settings of the host's queue (docs/lua.md, "config").
package struct QueueSettings: Equatable, Sendable {
    /// The policy of a toast that sets none.
    package var policy: Policy = .enqueue
    /// How many toasts may wait; 0 keeps nothing waiting.
    package var limit: Int = 3
    /// How many `stack` toasts may be visible at once.
    package var maxVisible: Int = 3
    /// The duration of a toast that sets none; nil: no timeout.
    package var duration: Microseconds? = 3 * StreamTime.perSecond
    /// Whether a toast with the newest toast's message and role is dropped as a repeat.
    package var dropRepeats: Bool = true

    package init() {}

    /// A show with only an id, a message and a role: every other field at its default
    /// (docs/events.md), the duration and policy these settings give. Toasts that scripts and stages bring
    /// in start from it, as a show line does in the decoder (`Toast.showFields`).
    package func show(id: String, message: String, role: String = "info") -> Toast {
        var toast = Toast(fields: Toast.showFields(id: id, message: .string(message), duration: duration,
                                                   policy: policy, inputLine: 0))
        if role != "info" { toast.role = role }
        return toast
    }

    static let names = ["policy", "limit", "max_visible", "duration", "drop_repeats"]

    mutating func apply(_ reader: SettingsReader) throws {
        try reader.rejectUnknown(allowed: Self.names)
        if let name = try reader.string("policy") {
            guard let value = Policy(rawValue: name) else {
                throw ConfigError("queue.policy must be \"enqueue\", \"replace\" or \"stack\", not \(quoted(name))")
            }
            policy = value
        }
        if let value = try reader.integer("limit", minimum: 0) { limit = value }
        if let value = try reader.integer("max_visible", minimum: 1) { maxVisible = value }
        switch reader.table["duration"] {
        case nil: break
        case .bool(false)?: duration = nil
        case .string(let word)? where NamedDuration(rawValue: word) != nil: duration = NamedDuration(rawValue: word)?.microseconds
        default:
            let micros = try reader.seconds("duration")
            duration = micros == 0 ? nil : micros
        }
        if let value = try reader.bool("drop_repeats") { dropRepeats = value }
    }
}

/// Settings of `debounce`: a burst of toasts with one key ends in its last toast, shown once
/// the burst settles (`window` after its last toast, or `maxWait` after its first).
package struct DebounceSettings: BuiltInStageSettings {
    package var window: Microseconds = StreamTime.perSecond
    /// nil: a burst may go on for as long as its toasts keep coming.
    package var maxWait: Microseconds?
    /// The fields that make a toast's key (a toast's `key` counts only where they name it).
    package var fields: [String] = ["message", "subtitle", "role"]

    package init() {}

    static let names = ["window", "max_wait", "fields"]

    mutating func apply(_ reader: SettingsReader) throws {
        try reader.rejectUnknown(allowed: Self.names, alsoKnown: BuiltInStage.scopeKeys)
        if let value = try reader.seconds("window", minimum: 0, exclusive: true) { window = value }
        if let value = try reader.seconds("max_wait", minimum: 0, exclusive: true) { maxWait = value }
        if let value = try reader.stringList("fields") { fields = value }
    }
}

/// Settings of `digest`: the toasts of a group within `window` of its first become one toast
/// that stands for them ("40 more from ci"), when at least `min` were held.
package struct DigestSettings: BuiltInStageSettings {
    /// The digest's message: a template with `{count}`, `{group}`, `{first}`, `{last}`, or a
    /// script's function of the held toasts.
    package enum Message: Equatable, Sendable {
        case template(String)
        case function(ScriptFunction)
    }

    package var window: Microseconds = 10 * StreamTime.perSecond
    /// The field whose value groups toasts; toasts without it share one group.
    package var key: String = "source"
    package var min: Int = 2
    /// Whether the toast that opens a window goes on at once (true) or is held with the rest.
    package var leading: Bool = true
    /// nil: the default template for `leading` and the group.
    package var message: Message?

    package init() {}

    static let names = ["window", "key", "min", "leading", "message"]

    mutating func apply(_ reader: SettingsReader) throws {
        try reader.rejectUnknown(allowed: Self.names, alsoKnown: BuiltInStage.scopeKeys)
        if let value = try reader.seconds("window", minimum: 0, exclusive: true) { window = value }
        if let value = try reader.string("key") { key = value }
        if let value = try reader.integer("min", minimum: 1) { min = value }
        if let value = try reader.bool("leading") { leading = value }
        switch reader.table["message"] {
        case nil: break
        case .string(let template)?: message = .template(template)
        case .function(let function)?: message = .function(function)
        case let value?:
            throw ConfigError("\(reader.path).message must be a template string or a function, not \(value.typeName)")
        }
    }

    /// The template a digest's message comes from when none is set.
    func defaultTemplate(sharedGroup: Bool) -> String {
        switch (leading, sharedGroup) {
        case (true, false): "{count} more from {group}"
        case (true, true): "{count} more notifications"
        case (false, false): "{count} notifications from {group}"
        case (false, true): "{count} notifications"
        }
    }
}

/// Settings of screens (docs/lua.md, "config"): a host, and the state of the stages that keep
/// state, for each distinct value of a show's field `by`.
package struct ScreenSettings: Equatable, Sendable {
    /// The field whose value names a toast's screen (a show field or an extra field).
    package var by: String
    /// How many screens may hold state at once.
    package var limit: Int = 100_000

    package init(by: String) {
        self.by = by
    }

    static let names = ["by", "limit"]

    static func read(_ reader: SettingsReader) throws -> ScreenSettings {
        try reader.rejectUnknown(allowed: names)
        guard let by = try reader.string("by") else { throw ConfigError("screens needs by, the field that names a screen") }
        guard !by.isEmpty else { throw ConfigError("screens.by must name a field, not be empty") }
        var settings = ScreenSettings(by: by)
        if let value = try reader.integer("limit", minimum: 1) { settings.limit = value }
        return settings
    }
}
