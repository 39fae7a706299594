/// A setting that cannot be used, e.g. `dedup.window must be a number ≥ 0, not a string`.
/// The Lua runtime prefixes the place of the `config{...}` call that set it.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
