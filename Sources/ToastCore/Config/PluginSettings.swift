/// A plugin stage's settings, declared once: a struct whose defaults are its initial values,
/// and a list of its fields with their names, types and ranges. Reading a `config{...}`
/// table is then automatic: unknown names are refused with a "did you mean", wrong values
/// with the setting's full path and what it must be.
///
///     struct Settings: PluginSettings {
///         var limit = 3
///         var window: Duration = .seconds(10)
///         static let fields: [SettingField<Settings>] = [
///             .integer("limit", \.limit, atLeast: 1),
///             .duration("window", \.window, above: .zero),
///         ]
///     }
public protocol PluginSettings {
    /// The defaults.
    init()
    /// Every setting, each once.
    static var fields: [SettingField<Self>] { get }
    /// Checks that one field cannot make alone (two fields together, a role that must
    /// exist); throw a `ConfigError` naming the setting. The default checks nothing.
    func check(roles: RoleTable, path: String) throws
    /// The settings a `config{ <path> = {...} }` table gives. The default reads `fields` over
    /// the defaults and then `check`s; a type may read its table its own way instead.
    static func read(from table: ConfigTable, path: String, roles: RoleTable) throws -> Self
}

extension PluginSettings {
    public func check(roles: RoleTable, path: String) throws {}

    /// The settings a `config{ <path> = {...} }` table gives, over the defaults.
    public static func read(from table: ConfigTable, path: String, roles: RoleTable) throws -> Self {
        var settings = Self()
        let names = fields.map(\.name)
        if !table.list.isEmpty {
            throw ConfigError("\(path) must be a table of named settings, not a list")
        }
        for (name, value) in table.fields.sorted(by: { $0.key < $1.key }) {
            guard let field = fields.first(where: { $0.name == name }) else {
                // `when` and `spare` were taken out for the pipeline: a typo of them is named too.
                guard !names.isEmpty else {
                    let question = NameSuggestion.question(for: name, among: BuiltInStage.scopeKeys).map { "; " + $0 } ?? ""
                    throw ConfigError("\(path) takes no settings (got \(quoted(name)))" + question)
                }
                throw ConfigError("unknown setting \(path).\(name)" + NameSuggestion.hint(for: name, among: names + BuiltInStage.scopeKeys))
            }
            try field.read(&settings, value, "\(path).\(name)", roles)
        }
        try settings.check(roles: roles, path: path)
        return settings
    }
}

/// Settings for a stage that has none.
public struct NoSettings: PluginSettings {
    public init() {}
    public static let fields: [SettingField<NoSettings>] = []
}

/// One setting of a `PluginSettings` type: its name, and how a script's value is checked
/// and stored.
public struct SettingField<Settings>: Sendable {
    public let name: String
    let read: @Sendable (inout Settings, ConfigValue, _ path: String, _ roles: RoleTable) throws -> Void

    /// A whole number, within the bounds given.
    public static func integer(_ name: String, _ keyPath: any WritableKeyPath<Settings, Int> & Sendable,
                               atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Self {
        let expected = "a whole number" + bounds(minimum.map { "≥ \($0)" }, maximum.map { "≤ \($0)" })
        return Self(name: name) { settings, value, path, _ in
            let number: Int?
            switch value {
            case .integer(let integer): number = Int(exactly: integer)
            case .number(let double): number = Int(exactly: double)
            default: number = nil
            }
            guard let number, number >= (minimum ?? .min), number <= (maximum ?? .max) else {
                throw mismatch(path, expected, value)
            }
            settings[keyPath: keyPath] = number
        }
    }

    /// A finite number, within the bounds given.
    public static func number(_ name: String, _ keyPath: any WritableKeyPath<Settings, Double> & Sendable,
                              atLeast minimum: Double? = nil, atMost maximum: Double? = nil) -> Self {
        let expected = "a number" + bounds(minimum.map { "≥ \(decimal($0))" }, maximum.map { "≤ \(decimal($0))" })
        return Self(name: name) { settings, value, path, _ in
            guard let number = finiteNumber(value), number >= (minimum ?? -.infinity), number <= (maximum ?? .infinity) else {
                throw mismatch(path, expected, value)
            }
            settings[keyPath: keyPath] = number
        }
    }

    /// A time span, written in seconds (`window = 2.5`), of at least `minimum`.
    public static func duration(_ name: String, _ keyPath: any WritableKeyPath<Settings, Duration> & Sendable,
                                atLeast minimum: Duration = .zero) -> Self {
        duration(name, keyPath, bound: minimum, strict: false)
    }

    /// A time span, written in seconds, longer than `minimum` (`above: .zero`: not zero).
    public static func duration(_ name: String, _ keyPath: any WritableKeyPath<Settings, Duration> & Sendable,
                                above minimum: Duration) -> Self {
        duration(name, keyPath, bound: minimum, strict: true)
    }

    private static func duration(_ name: String, _ keyPath: any WritableKeyPath<Settings, Duration> & Sendable,
                                 bound minimum: Duration, strict: Bool) -> Self {
        let expected = "a number of seconds \(strict ? ">" : "≥") \(decimal(minimum.inSeconds))"
        return Self(name: name) { settings, value, path, _ in
            guard let seconds = finiteNumber(value), let micros = StreamTime.microseconds(fromSeconds: seconds) else {
                throw mismatch(path, expected, value)
            }
            let duration = Duration.microseconds(micros)
            guard strict ? duration > minimum : duration >= minimum else { throw mismatch(path, expected, value) }
            settings[keyPath: keyPath] = duration
        }
    }

    /// A string; `oneOf` lists the words allowed.
    public static func string(_ name: String, _ keyPath: any WritableKeyPath<Settings, String> & Sendable,
                              oneOf choices: [String]? = nil) -> Self {
        let expected = choices.map { "one of " + $0.map(quoted).joined(separator: ", ") } ?? "a string"
        return Self(name: name) { settings, value, path, _ in
            guard case .string(let text) = value, choices?.contains(text) ?? true else {
                throw mismatch(path, expected, value)
            }
            settings[keyPath: keyPath] = text
        }
    }

    /// A role the run knows (defined before this `config` call, or built in).
    public static func role(_ name: String, _ keyPath: any WritableKeyPath<Settings, String> & Sendable) -> Self {
        Self(name: name) { settings, value, path, roles in
            settings[keyPath: keyPath] = try knownRole(value, path: path, roles: roles)
        }
    }

    /// A role that may be left out: nil unless the script sets it.
    public static func optionalRole(_ name: String, _ keyPath: any WritableKeyPath<Settings, String?> & Sendable) -> Self {
        custom(name, keyPath) { value, path, roles in try knownRole(value, path: path, roles: roles) }
    }

    /// A map from names to roles the run knows, `{ backup = "warning", ci = "error" }` (a source's
    /// role, say): every value is checked as `role` checks one.
    public static func roleMap(_ name: String, _ keyPath: any WritableKeyPath<Settings, [String: String]> & Sendable) -> Self {
        custom(name, keyPath) { value, path, roles in
            guard case .table(let table) = value, table.list.isEmpty else { throw mismatch(path, "a table of roles by name", value) }
            var map: [String: String] = [:]
            for (key, role) in table.fields.sorted(by: { $0.key < $1.key }) {
                map[key] = try knownRole(role, path: "\(path).\(key)", roles: roles)
            }
            return map
        }
    }

    /// `value` as the name of a role the run knows; else the error every role setting gives,
    /// with a "did you mean" for a near miss.
    public static func knownRole(_ value: ConfigValue, path: String, roles: RoleTable) throws -> String {
        guard case .string(let text) = value else { throw mismatch(path, "a role's name", value) }
        guard roles.contains(text) else {
            if let question = NameSuggestion.question(for: text, among: roles.names) {
                throw ConfigError("\(path): unknown role \(quoted(text)); \(question)")
            }
            throw ConfigError("\(path): unknown role \(quoted(text)) (known: \(roles.names.joined(separator: ", ")); "
                              + "a role of your own is defined before this config call)")
        }
        return text
    }

    /// A list of strings, `{ "a", "b" }`.
    public static func strings(_ name: String, _ keyPath: any WritableKeyPath<Settings, [String]> & Sendable) -> Self {
        Self(name: name) { settings, value, path, _ in
            guard case .table(let table) = value, table.fields.isEmpty else {
                throw mismatch(path, "a list of strings", value)
            }
            settings[keyPath: keyPath] = try table.list.map { element in
                guard case .string(let text) = element else { throw mismatch(path, "a list of strings", value) }
                return text
            }
        }
    }

    /// A kind of the stage's own: `read` turns the script's value into the setting, or throws
    /// a `ConfigError` (`SettingField.mismatch` words it as the built-in kinds do).
    public static func custom<Value>(_ name: String, _ keyPath: any WritableKeyPath<Settings, Value> & Sendable,
                                     read: @escaping @Sendable (_ value: ConfigValue, _ path: String, _ roles: RoleTable) throws -> Value)
        -> Self {
        Self(name: name) { settings, value, path, roles in
            settings[keyPath: keyPath] = try read(value, path, roles)
        }
    }

    /// A table of names to strings, `{ ci = "error", backup = "warning" }`.
    public static func stringMap(_ name: String, _ keyPath: any WritableKeyPath<Settings, [String: String]> & Sendable) -> Self {
        custom(name, keyPath) { value, path, _ in
            guard case .table(let table) = value, table.list.isEmpty else { throw mismatch(path, "a table of names to strings", value) }
            return try table.fields.mapValues { element in
                guard case .string(let text) = element else { throw mismatch(path, "a table of names to strings", value) }
                return text
            }
        }
    }

    /// A list of roles the run knows, `{ "error", "warning" }`.
    public static func roles(_ name: String, _ keyPath: any WritableKeyPath<Settings, [String]> & Sendable) -> Self {
        custom(name, keyPath) { value, path, roles in
            guard case .table(let table) = value, table.fields.isEmpty else { throw mismatch(path, "a list of roles", value) }
            return try table.list.map { element in
                guard case .string = element else { throw mismatch(path, "a list of roles", value) }
                return try knownRole(element, path: path, roles: roles)
            }
        }
    }

    /// A time span in seconds (> 0) that may be left out: nil unless the script sets it.
    public static func optionalDuration(_ name: String, _ keyPath: any WritableKeyPath<Settings, Duration?> & Sendable) -> Self {
        custom(name, keyPath) { value, path, _ in
            guard let seconds = finiteNumber(value), seconds > 0, let micros = StreamTime.microseconds(fromSeconds: seconds) else {
                throw mismatch(path, "a number of seconds > 0", value)
            }
            return Duration.microseconds(micros)
        }
    }

    /// A whole number that may be left out: nil unless the script sets it.
    public static func optionalInteger(_ name: String, _ keyPath: any WritableKeyPath<Settings, Int?> & Sendable,
                                       atLeast minimum: Int? = nil) -> Self {
        custom(name, keyPath) { value, path, _ in
            let number: Int?
            switch value {
            case .integer(let integer): number = Int(exactly: integer)
            case .number(let double): number = Int(exactly: double)
            default: number = nil
            }
            guard let number, number >= (minimum ?? .min) else {
                throw mismatch(path, "a whole number" + bounds(minimum.map { "≥ \($0)" }), value)
            }
            return number
        }
    }

    /// A string that may be left out: nil unless the script sets it.
    public static func optionalString(_ name: String, _ keyPath: any WritableKeyPath<Settings, String?> & Sendable) -> Self {
        custom(name, keyPath) { value, path, _ in
            guard case .string(let text) = value else { throw mismatch(path, "a string", value) }
            return text
        }
    }

    /// true or false.
    public static func flag(_ name: String, _ keyPath: any WritableKeyPath<Settings, Bool> & Sendable) -> Self {
        Self(name: name) { settings, value, path, _ in
            guard case .bool(let flag) = value else { throw mismatch(path, "true or false", value) }
            settings[keyPath: keyPath] = flag
        }
    }

    /// A number a script wrote, whole or not; nil for anything else or a non-finite one.
    private static func finiteNumber(_ value: ConfigValue) -> Double? {
        switch value {
        case .integer(let integer): Double(integer)
        case .number(let double) where double.isFinite: double
        default: nil
        }
    }

    private static func bounds(_ parts: String?...) -> String {
        let given = parts.compactMap { $0 }
        return given.isEmpty ? "" : " " + given.joined(separator: " and ")
    }

    /// `limit must be a whole number ≥ 1, not 2.5`: a number is shown, other values by type.
    public static func mismatch(_ path: String, _ expected: String, _ value: ConfigValue) -> ConfigError {
        let shown: String
        switch value {
        case .integer(let integer): shown = String(integer)
        case .number(let double): shown = decimal(double)
        case .string(let text) where text.count <= 40: shown = quoted(text)
        default: shown = value.typeName
        }
        return ConfigError("\(path) must be \(expected), not \(shown)")
    }

    private static func decimal(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}

extension Duration {
    /// The span as seconds are written in settings and messages: `2.5`, `30`, `0.000001` (the
    /// shortest decimal, to the microsecond), for a stage's own messages ("must be ≥ 2.5 s").
    public var secondsText: String {
        StreamTime.format(StreamTime.microseconds(self))
    }

    /// The span in seconds, fractions kept.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
