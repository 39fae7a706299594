import ToastCore
import ToastIO

/// The line of a script that a load error points at, so the message can show it under the
/// error (`    3 | if t.role = "x" then`): a syntax error is found faster when it is seen.
enum ScriptSourceLine {
    /// Line `number` (from 1) of `text`, without its line ending.
    static func line(_ number: Int, of text: String) -> String? {
        guard number >= 1 else { return nil }
        var current = 1
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == number { return String(line.hasSuffix("\r") ? line.dropLast() : line) }
            current += 1
        }
        return nil
    }

    /// Line `number` of the file at `path`; nil when it cannot be read or is that short.
    static func line(_ number: Int, ofFileAt path: String) -> String? {
        guard number >= 1, let file = try? FileDescriptorSource.opening(path),
              let bytes = file.readAll() else { return nil }
        return line(number, of: String(decoding: bytes, as: UTF8.self))
    }

    /// A load error: `message`, with the line it names in `chunkName` (`chunkName:LINE: …`) as
    /// shown beneath it, `    LINE | text`; none when it names another place, no line, or a
    /// blank one.
    static func loadError(_ message: String, chunkName: String, lineText: (Int) -> String?) -> ScriptLoadError {
        let prefix = chunkName + ":"
        guard message.hasPrefix(prefix) else { return ScriptLoadError(message: message) }
        let rest = message.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let number = Int(rest[..<colon]),
              let text = lineText(number)?.trimmingTrailingSpaces, !text.isEmpty else {
            return ScriptLoadError(message: message)
        }
        let margin = String(repeating: " ", count: max(0, 5 - String(number).count))
        return ScriptLoadError(message: message, sourceLine: margin + "\(number) | " + text)
    }
}

private extension String {
    var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
