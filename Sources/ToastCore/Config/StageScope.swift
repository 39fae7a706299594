/// Which toasts a stage is for: its `when` (docs/lua.md, "Pointing a stage at some toasts").
/// A toast outside the scope skips the stage: it goes on unchanged, and the stage neither
/// holds, drops, counts nor remembers it. The pipeline applies it, so a plugin stage gets it
/// without declaring anything.
public enum StageScope: Equatable, Sendable {
    /// A match table: every condition must hold.
    case match(MatchTable)
    /// A script's function of the toast, returning true or false.
    case function(ScriptFunction)

    /// Toasts of priority `atLeast` or more: `{ priority = { at_least = N } }`.
    package static func priority(atLeast: Int) -> StageScope {
        .match(MatchTable(conditions: [MatchTable.Condition(field: "priority", test: .range(below: nil, atLeast: Double(atLeast)))]))
    }

    /// The scope as `--explain` names it: the match table as written, or the function's place.
    public var description: String {
        switch self {
        case .match(let table): table.description
        case .function(let function): "function at \(function.place)"
        }
    }

    /// The priorities the scope takes when it asks for nothing else (as rate_limit's and
    /// debounce's default `spare` does): `atLeast..<below`, so the check reads one number. Nil
    /// for any other scope.
    package var priorityRange: (atLeast: Int, below: Int)? {
        guard case .match(let table) = self, table.conditions.count == 1, table.conditions[0].field == .field(.priority),
              case .range(let below, let atLeast) = table.conditions[0].test else { return nil }
        // A whole priority p is below b exactly when p < ⌈b⌉, and at least a when p ≥ ⌈a⌉.
        func whole(_ bound: Double?, _ absent: Int) -> Int {
            guard let bound else { return absent }
            return bound >= Double(Int.max) ? Int.max : bound <= Double(Int.min) ? Int.min : Int(bound.rounded(.up))
        }
        return (whole(atLeast, Int.min), whole(below, Int.max))
    }

    /// Reads a stage's `when` or `spare` (at `path`, e.g. `errors.when`): a match table or a
    /// function.
    package static func read(_ value: ConfigValue, path: String) throws -> StageScope {
        switch value {
        case .function(let function): return .function(function)
        case .table(let table): return .match(try MatchTable.read(table, path: path))
        default: throw ConfigError("\(path) must be a match table or a function, not \(value.typeName)")
        }
    }
}
