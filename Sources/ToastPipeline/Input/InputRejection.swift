/// An input line that is not an event, and why: reported as
/// `toastscript: input line N: <reason>` and never silently lost (SPEC §1 "Bad input").
public struct InputRejection: Error, Equatable, Sendable {
    /// The physical line number, from 1.
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// The one line written to stderr.
    public var message: String { "input line \(line): \(reason)" }
}
