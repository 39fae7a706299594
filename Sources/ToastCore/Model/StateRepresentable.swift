/// A value that `--state` can keep across a restart: it says what it is as JSON, and is made
/// again from that. A plugin stage saves what it keeps through it (`ToastStage.saveState()`),
/// and the values its timers carry (`PluginStage.TimerValue`) are kept when they conform.
///
///     struct Window: StateRepresentable {
///         var count: Int
///         var savedState: JSONValue { count.savedState }
///         init(savedState: JSONValue) throws { count = try Int(savedState: savedState) }
///     }
public protocol StateRepresentable {
    /// The value as JSON, which `init(savedState:)` reads back.
    var savedState: JSONValue { get }
    /// The value `savedState` gave; throws `SavedStateError` when `savedState` is not one.
    init(savedState: JSONValue) throws
}

extension Bool: StateRepresentable {
    public var savedState: JSONValue { .bool(self) }
    public init(savedState: JSONValue) throws {
        guard case .bool(let value) = savedState else { throw SavedStateError("not true or false") }
        self = value
    }
}

extension Int: StateRepresentable {
    public var savedState: JSONValue { .integer(Int64(self)) }
    public init(savedState: JSONValue) throws {
        guard case .integer(let value) = savedState, let integer = Int(exactly: value) else { throw SavedStateError("not an integer") }
        self = integer
    }
}

extension Int64: StateRepresentable {
    public var savedState: JSONValue { .integer(self) }
    public init(savedState: JSONValue) throws {
        guard case .integer(let value) = savedState else { throw SavedStateError("not an integer") }
        self = value
    }
}

extension Double: StateRepresentable {
    /// Integral values are written as integers, as JSON has them.
    public var savedState: JSONValue { .number(self) }
    public init(savedState: JSONValue) throws {
        switch savedState {
        case .number(let value): self = value
        case .integer(let value): self = Double(value)
        default: throw SavedStateError("not a number")
        }
    }
}

extension String: StateRepresentable {
    public var savedState: JSONValue { .string(self) }
    public init(savedState: JSONValue) throws {
        guard case .string(let value) = savedState else { throw SavedStateError("not a string") }
        self = value
    }
}

/// A time or a span on the stream clock, in whole microseconds (the clock's own unit).
extension Duration: StateRepresentable {
    public var savedState: JSONValue { .integer(StreamTime.microseconds(self)) }
    public init(savedState: JSONValue) throws {
        guard case .integer(let value) = savedState else { throw SavedStateError("not a time in microseconds") }
        self = .microseconds(value)
    }
}

extension Optional: StateRepresentable where Wrapped: StateRepresentable {
    public var savedState: JSONValue { self?.savedState ?? .null }
    public init(savedState: JSONValue) throws {
        self = savedState == .null ? nil : try Wrapped(savedState: savedState)
    }
}

extension Array: StateRepresentable where Element: StateRepresentable {
    public var savedState: JSONValue { .array(map(\.savedState)) }
    public init(savedState: JSONValue) throws {
        guard case .array(let items) = savedState else { throw SavedStateError("not a list") }
        self = try items.enumerated().map { index, item in
            do { return try Element(savedState: item) } catch { throw SavedStateError("[\(index)]: \(error)") }
        }
    }
}

/// Members in the order of their keys, so the same dictionary is always saved alike.
extension Dictionary: StateRepresentable where Key == String, Value: StateRepresentable {
    public var savedState: JSONValue {
        .object(sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value.savedState) })
    }
    public init(savedState: JSONValue) throws {
        guard case .object(let members) = savedState else { throw SavedStateError("not an object") }
        self.init()
        for member in members {
            do { self[member.name] = try Value(savedState: member.value) } catch { throw SavedStateError("\(member.name): \(error)") }
        }
    }
}

/// What is wrong with a saved state: a stage's `restoreState(from:)` throws it for a value it
/// did not save, and the run stops before any input with the message (and the stage's name).
public struct SavedStateError: Error, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension StateRepresentable {
    /// The value saved at `path`, with the path in the message when it is not one.
    package init(savedState: JSONValue, path: String) throws {
        do { try self.init(savedState: savedState) } catch { throw SavedStateError("\(path) is \(error)") }
    }
}
