import ToastCore

/// An input line that is not an event, and why: reported as
/// `toastscript: input line N: <reason>` and never silently lost (docs/events.md).
package struct InputRejection: Error, Equatable, Sendable {
    /// The physical line number, from 1.
    package var line: Int
    package var reason: String

    package init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// A suggestion shown once after the message (`--input text` for a text file).
    package var hint: String?
    /// Whether a script's `parse` function failed on the line (a script error, counted as
    /// `parse` by `--stats`), rather than the line or what `parse` returned being bad.
    package var byFailedParse = false

    /// Where the line came from, when it is not a line of a file or a pipe (`entry 1-0 of
    /// events`, a Redis stream's entry); nil: `input line N`.
    package var place: String?

    /// The one line written to stderr.
    package var message: String { "\(place ?? "input line \(line)"): \(reason)" }

    /// The complaint apart from where it was made: the reason with its numbers (columns,
    /// lengths) written as `#` and without the character it found, so that the rejections of a
    /// flood are counted as one kind.
    package var kind: String {
        var text = reason
        if let unexpected = text.firstRange(of: ": unexpected") { text = String(text[..<unexpected.lowerBound]) }
        var result = ""
        var inNumber = false
        for character in text {
            if character.isASCII && character.isNumber {
                if !inNumber { result.append("#") }
                inNumber = true
            } else {
                result.append(character)
                inNumber = false
            }
        }
        return result
    }
}
