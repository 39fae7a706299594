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

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The whole number, when this is one that fits `Int` (a saved count, an index).
    public var intValue: Int? {
        if case .integer(let value) = self { return Int(exactly: value) }
        return nil
    }

    /// The number, whole or not (a saved time in seconds, a ratio).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members in order, when this is an object.
    public var objectValue: [JSONMember]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value of an object's member `name` (nil when this is no object or has no such member).
    public subscript(member name: String) -> JSONValue? {
        objectValue?.first { $0.name == name }?.value
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
