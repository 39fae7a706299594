import ToastCore

/// A script call that failed on the way: the rule is skipped for that event, the toast goes
/// on as it was, and the run ends with status 65.
package struct ScriptError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `FILE:LINE: message`, the place as Lua names it (some errors, such as running out of
    /// memory, carry the function's place instead).
    package var message: String
    /// The input line the call was made for; 0 when none (at load time, at the end of a run).
    package var inputLine: Int
    /// What failed, when the place alone does not say it: `rule "quiet debug"`.
    package var origin: String?
    /// What failed, as `--stats` counts script errors: `rule "quiet debug"` (a rule without a
    /// name by its place), `on present`, `timer FILE:LINE` (where `after` was called), `on end`,
    /// `announce FILE:LINE`.
    package var source: String
    /// When the call ran, when not for an input line: `timer`, `end`.
    package var during: String?

    package init(message: String, inputLine: Int, origin: String? = nil, source: String = "script", during: String? = nil) {
        self.message = message
        self.inputLine = inputLine
        self.origin = origin
        self.source = source
        self.during = during
    }

    /// The script file and line the message starts with, when it starts with one.
    package var place: (file: String, line: Int)? {
        let parts = message.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let line = Int(parts[1]), !parts[0].isEmpty else { return nil }
        return (String(parts[0]), line)
    }

    /// The message with what failed: `rule "name": FILE:LINE: message`.
    package var namedMessage: String {
        origin.map { "\($0): \(message)" } ?? message
    }

    /// `rule "name": FILE:LINE: message (input line N)`, `FILE:LINE: message (timer)`, as
    /// stderr shows it.
    package var description: String {
        if let during { return "\(namedMessage) (\(during))" }
        return inputLine > 0 ? "\(namedMessage) (input line \(inputLine))" : namedMessage
    }
}
