/// A setting as a script wrote it, before it is checked: what `config{...}` hands over
/// from Lua, kept free of Lua so stages and plugins can read it without the runtime.
public indirect enum ConfigValue {
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case table(ConfigTable)
    /// A function from the script, e.g. a role's `announce`.
    case function(ScriptFunction)

    /// The word for this value's type in error messages.
    public var typeName: String {
        switch self {
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .table: return "a table"
        case .function: return "a function"
        }
    }
}

/// A table from a script: its named fields and its list part (`{1, 2, 3}`).
public struct ConfigTable {
    public var fields: [String: ConfigValue]
    public var list: [ConfigValue]

    public init(fields: [String: ConfigValue] = [:], list: [ConfigValue] = []) {
        self.fields = fields
        self.list = list
    }

    public subscript(name: String) -> ConfigValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    /// `other` merged into this one key by key; lists and non-table values replace whole
    /// (docs/events.md), and so does a stage's `when` or `spare` (a match given again is the
    /// whole match, not conditions added to the one before).
    public func merging(_ other: ConfigTable) -> ConfigTable {
        merging(other, depth: 0)
    }

    private static let replacedWholeInStages: Set<String> = ["when", "spare"]

    private func merging(_ other: ConfigTable, depth: Int) -> ConfigTable {
        var merged = self
        for (name, value) in other.fields {
            if case .table(let newTable) = value, !newTable.fields.isEmpty, newTable.list.isEmpty,
               case .table(let oldTable)? = merged.fields[name],
               !(depth == 1 && Self.replacedWholeInStages.contains(name)) {
                merged.fields[name] = .table(oldTable.merging(newTable, depth: depth + 1))
            } else {
                merged.fields[name] = value
            }
        }
        return merged
    }
}
