import ToastCore

/// A step in front of the decoder that turns a raw input line into events of its own making
/// (a script's `parse` function): any log format becomes events without another program.
///
/// Its events come back as the fields of one event object each, and go through the same decoder
/// as every input line, so they are checked, defaulted and numbered (`t<N>`) alike.
package protocol LineParser: AnyObject {
    /// The events of one non-blank line: `line` is the text itself (`--input text`), or valid
    /// UTF-8 holding one JSON object (JSON Lines). The line is lent for the call: a parser reads
    /// it within its bounds and keeps nothing of it but copies.
    func parse(_ line: UnsafeBufferPointer<UInt8>, isText: Bool, number: Int) -> ParsedLine
}

package enum ParsedLine {
    /// The line holds nothing to show (counted as skipped, not rejected).
    case skip
    /// Each element is one event's fields, in order.
    case events([EventFields])
    /// The line cannot be read: rejected like bad input.
    case rejected(String)
    /// The parse function failed on it (raised an error, returned a value of another kind):
    /// rejected like bad input, and counted as the function's script error.
    case failed(String)
}
