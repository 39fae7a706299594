#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

        /// Whether the toast's value of the field passes the test. A text test of a show
        /// field reads the toast's bytes where they are (no `String` made for each toast).
        @inline(__always)
        func matches(_ toast: Toast, roles: RoleTable) -> Bool {
            if case .text(let kind, let text) = test, case .field(let known) = field, known != .priority {
                return toast.valueMatches(of: known) { view in
                    guard case .text(let bytes) = view else { return false }
                    return text.withUTF8Bytes { kind.holds(bytes, $0) }
                }
            }
            return test.matches(toast.value(of: field, roles: roles))
        }
    }

    let conditions: [Condition]

    init(conditions: [Condition]) {
        self.conditions = conditions
    }

    /// Whether `toast` matches every condition.
    package func matches(_ toast: Toast, roles: RoleTable) -> Bool {
        for condition in conditions where !condition.matches(toast, roles: roles) {
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
    /// A string that contains, starts with or ends with the text, byte for byte (no case
    /// folding, no patterns: what is written is what is looked for); any other value matches none.
    case text(TextTest, String)

    /// How a `text` test places its text in the value.
    public enum TextTest: String, Sendable, CaseIterable {
        case contains
        case startsWith = "starts_with"
        case endsWith = "ends_with"

        /// Whether `value` holds `text` as this test asks (inside: `memchr` finds each place
        /// its first byte is, `memcmp` compares the rest).
        func holds(_ value: UnsafeRawBufferPointer, _ text: UnsafeRawBufferPointer) -> Bool {
            guard text.count <= value.count else { return false }
            guard text.count > 0 else { return true }
            switch self {
            case .startsWith: return UnsafeRawBufferPointer(rebasing: value[0..<text.count]).hasSameBytes(as: text)
            case .endsWith: return UnsafeRawBufferPointer(rebasing: value[(value.count - text.count)...]).hasSameBytes(as: text)
            case .contains:
                guard let base = value.baseAddress else { return false }
                let first = Int32(text[0]), last = value.count - text.count
                var start = 0
                while start <= last, let found = memchr(base + start, first, last - start + 1) {
                    let offset = base.distance(to: UnsafeRawPointer(found))
                    if UnsafeRawBufferPointer(rebasing: value[offset..<(offset + text.count)]).hasSameBytes(as: text) { return true }
                    start = offset + 1
                }
                return false
            }
        }
    }

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
        case .text(let kind, let text):
            guard case .string(let actual)? = value else { return false }
            return actual.withUTF8Bytes { bytes in text.withUTF8Bytes { kind.holds(bytes, $0) } }
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
        case .text(let kind, let text): return "{ \(kind.rawValue) = \(MatchValue.string(text).description) }"
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
                              + "{ below = N }, { at_least = N }, { contains = \"text\" }, { starts_with = \"text\" } "
                              + "or { ends_with = \"text\" }, not \(value.typeName)")
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
        let operators = ["not", "below", "at_least"] + TextTest.allCases.map(\.rawValue)
        for name in table.fields.keys.sorted() where !operators.contains(name) {
            throw ConfigError("unknown match operator \(path).\(name)" + NameSuggestion.hint(for: name, among: operators))
        }
        if let inner = table.fields["not"] {
            guard table.fields.count == 1 else { throw ConfigError("\(path): \"not\" goes alone in its table") }
            return .not(try read(inner, path: "\(path).not"))
        }
        if let kind = TextTest.allCases.first(where: { table.fields[$0.rawValue] != nil }) {
            guard table.fields.count == 1 else { throw ConfigError("\(path): \"\(kind.rawValue)\" goes alone in its table") }
            guard case .string(let text)? = table.fields[kind.rawValue] else {
                throw ConfigError("\(path).\(kind.rawValue) must be a string, not \(table.fields[kind.rawValue]?.typeName ?? "nil")")
            }
            return .text(kind, text)
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
