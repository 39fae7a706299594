/// A JSON value as the event decoder reads it: the extra fields of a show event
/// (docs/events.md: "any other field is kept") and the values scripts hand back.
public enum JSONValue: Equatable, Hashable, Sendable {
    case null
    case bool(Bool)
    /// An integral number that fits `Int64` (`2`, `-7`; also `2.0` from Lua).
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the order they were written; later duplicates already replaced earlier ones.
    case object([JSONMember])

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

/// One `"name": value` pair of a JSON object.
public struct JSONMember: Equatable, Hashable, Sendable {
    public var name: String
    public var value: JSONValue

    public init(_ name: String, _ value: JSONValue) {
        self.name = name
        self.value = value
    }
}
