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

/// `{ FIELD = SPEC, ... }`: a toast matches when every FIELD's value matches its SPEC (an empty
/// table matches every toast). FIELD is any field as rules see it, and `priority`, the toast's
/// own else its role's.
public struct MatchTable: Equatable, Sendable {
    /// One field and what its value must be.
    public struct Condition: Equatable, Sendable {
        let field: FieldReference
        let name: String
        let test: MatchTest

        init(field name: String, test: MatchTest) {
            self.name = name
            self.field = FieldReference(name: name)
            self.test = test
        }
    }

    let conditions: [Condition]

    init(conditions: [Condition]) {
        self.conditions = conditions
    }

    /// Whether `toast` matches every condition.
    package func matches(_ toast: Toast, roles: RoleTable) -> Bool {
        for condition in conditions where !condition.test.matches(toast.value(of: condition.field, roles: roles)) {
            return false
        }
        return true
    }

    /// As a script would write it: `{ role = "error", priority = { below = 2 } }`.
    public var description: String {
        guard !conditions.isEmpty else { return "{}" }
        let sorted = conditions.sorted { $0.name < $1.name }
        return "{ " + sorted.map { "\(MatchTest.luaKey($0.name)) = \($0.test.description)" }.joined(separator: ", ") + " }"
    }

    static func read(_ table: ConfigTable, path: String) throws -> MatchTable {
        guard table.list.isEmpty else {
            throw ConfigError("\(path) must name fields (\(path) = { role = \"error\" }), not be a list")
        }
        let conditions = try table.fields.sorted { $0.key < $1.key }.map { name, value in
            Condition(field: name, test: try MatchTest.read(value, path: "\(path).\(name)"))
        }
        return MatchTable(conditions: conditions)
    }
}

/// What one field's value must be in a match table.
public enum MatchTest: Equatable, Sendable {
    /// Equal to the value: a string, a number (as a number: `7.0` is 7) or a boolean.
    case equal(MatchValue)
    /// Equal to any one of the values.
    case anyOf([MatchValue])
    /// Not matching the test; an absent field matches a `not`.
    indirect case not(MatchTest)
    /// A number below `below` and at least `atLeast` (either may be absent); an absent or
    /// non-numeric value matches neither.
    case range(below: Double?, atLeast: Double?)

    func matches(_ value: JSONValue?) -> Bool {
        switch self {
        case .equal(let expected): return expected.equals(value)
        case .anyOf(let values): return values.contains { $0.equals(value) }
        case .not(let test): return !test.matches(value)
        case .range(let below, let atLeast):
            let number: Double
            switch value {
            case .integer(let integer)?: number = Double(integer)
            case .number(let double)?: number = double
            default: return false
            }
            if let below, !(number < below) { return false }
            if let atLeast, !(number >= atLeast) { return false }
            return true
        }
    }

    var description: String {
        switch self {
        case .equal(let value): return value.description
        case .anyOf(let values): return "{ " + values.map(\.description).joined(separator: ", ") + " }"
        case .not(let test): return "{ [\"not\"] = \(test.description) }"
        case .range(let below, let atLeast):
            let parts = [atLeast.map { "at_least = \(MatchValue.number($0).description)" },
                         below.map { "below = \(MatchValue.number($0).description)" }].compactMap { $0 }
            return "{ " + parts.joined(separator: ", ") + " }"
        }
    }

    /// A field's name as a table key: bare when Lua allows it, else `["..."]`.
    static func luaKey(_ name: String) -> String {
        let isName = name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            && !["and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
                 "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"].contains(name)
        return isName ? name : "[\(MatchValue.string(name).description)]"
    }

    static func read(_ value: ConfigValue, path: String) throws -> MatchTest {
        if let scalar = MatchValue(value) { return .equal(scalar) }
        guard case .table(let table) = value else {
            throw ConfigError("\(path) must be a string, a number, a boolean, a list of them, { [\"not\"] = ... }, "
                              + "{ below = N } or { at_least = N }, not \(value.typeName)")
        }
        if table.fields.isEmpty {
            return .anyOf(try table.list.enumerated().map { index, element in
                guard let scalar = MatchValue(element) else {
                    throw ConfigError("\(path)[\(index + 1)] must be a string, a number or a boolean, not \(element.typeName)")
                }
                return scalar
            })
        }
        guard table.list.isEmpty else {
            throw ConfigError("\(path) must be a list of values or a table of one operator, not both")
        }
        let operators = ["not", "below", "at_least"]
        for name in table.fields.keys.sorted() where !operators.contains(name) {
            throw ConfigError("unknown match operator \(path).\(name)" + NameSuggestion.hint(for: name, among: operators))
        }
        if let inner = table.fields["not"] {
            guard table.fields.count == 1 else { throw ConfigError("\(path): \"not\" goes alone in its table") }
            return .not(try read(inner, path: "\(path).not"))
        }
        func bound(_ name: String) throws -> Double? {
            switch table.fields[name] {
            case nil: return nil
            case .integer(let integer)?: return Double(integer)
            case .number(let number)? where number.isFinite: return number
            case let other?: throw ConfigError("\(path).\(name) must be a finite number, not \(other.typeName)")
            }
        }
        return .range(below: try bound("below"), atLeast: try bound("at_least"))
    }
}

/// A value a match table compares a field with.
public enum MatchValue: Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)

    init?(_ value: ConfigValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let integer): self = .number(Double(integer))
        case .number(let number) where number.isFinite: self = .number(number)
        case .bool(let flag): self = .bool(flag)
        default: return nil
        }
    }

    func equals(_ value: JSONValue?) -> Bool {
        switch (self, value) {
        case (.string(let expected), .string(let actual)?): expected == actual
        case (.number(let expected), .integer(let actual)?): Double(actual) == expected
        case (.number(let expected), .number(let actual)?): actual == expected
        case (.bool(let expected), .bool(let actual)?): expected == actual
        default: false
        }
    }

    var description: String {
        switch self {
        case .string(let text): JSONText.encode(.string(text))
        case .number(let number):
            number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }
}
