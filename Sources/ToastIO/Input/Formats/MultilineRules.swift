import ToastCore

/// Which lines continue the event before them (`--multiline`, docs/logs.md "Stack traces"):
/// - a line that starts with a space or a tab (a stack frame, a wrapped message);
/// - Java's `Caused by: ...` and `... 12 more`, and an exception's own line
///   (`java.lang.IllegalStateException: boom`: a dotted class name ending in `Exception`,
///   `Error` or `Throwable`), which a logger writes under the message it logged;
/// - Python's `Traceback (most recent call last):` under a logged message, the indented frames
///   after it, its closing `Name: message` line, and the lines that chain one traceback to the
///   next (`During handling of the above exception, ...`, blank lines between them);
/// - for syslog, a line whose MSG does one of these (a daemon's trace, one syslog line a frame).
///
/// It reads one line at a time and keeps one piece of state: whether a Python traceback is open.
struct MultilineRules {
    let format: InputFormat
    private let syslog = SyslogFormat()
    /// Places a syslog line's time as it is read (this reading looks only for its MSG).
    private var clock: LogClock
    private let parts = LogLine()
    /// Where a Python traceback stands.
    private var traceback = Traceback.none

    private enum Traceback {
        case none
        /// After `Traceback (most recent call last):`, until its closing line.
        case open
        /// After the closing line: blank lines and the words that chain another traceback
        /// still belong to the event.
        case closed
    }

    init(format: InputFormat, clock: LogClock) {
        self.format = format
        self.clock = clock
    }

    /// Forgets the traceback state: a new event starts.
    mutating func eventStarts() {
        traceback = .none
    }

    /// The part of `line` that continues the event held before it (the whole line, or a syslog
    /// line's MSG), or nil when the line starts an event of its own.
    mutating func continuation(_ line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        if continues(line) { return 0..<line.count }
        guard format == .syslog, syslog.read(line, into: parts, clock: &clock), case .line(let message)? = parts.message else { return nil }
        return continues(UnsafeBufferPointer(rebasing: line[message])) ? message : nil
    }

    private mutating func continues(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = line.first else { return traceback != .none }   // blank lines between chained tracebacks
        if first == 0x20 || first == 0x09 { return true }
        if Self.starts(line, with: "Caused by:") { return true }
        if Self.starts(line, with: "Traceback (most recent call last):") {
            traceback = .open
            return true
        }
        switch traceback {
        case .open:
            traceback = Self.isExceptionLine(line, qualified: false) ? .closed : .none
            return traceback == .closed
        case .closed:
            if Self.starts(line, with: "During handling of the above exception")
                || Self.starts(line, with: "The above exception was the direct cause") { return true }
            traceback = .none
        case .none:
            break
        }
        if Self.starts(line, with: "... "), Self.ends(line, with: " more") { return true }
        return Self.isExceptionLine(line, qualified: true) && Self.endsInThrowableName(line)
    }

    private static func starts(_ line: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        return line.count >= count
            && UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[0..<count]).hasSameBytes(as: UnsafeRawBufferPointer(start: prefix.utf8Start, count: count))
    }

    private static func ends(_ line: UnsafeBufferPointer<UInt8>, with suffix: StaticString) -> Bool {
        let count = suffix.utf8CodeUnitCount
        return line.count >= count
            && UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[(line.count - count)...])
                .hasSameBytes(as: UnsafeRawBufferPointer(start: suffix.utf8Start, count: count))
    }

    /// Whether the line is `Name` or `Name: message`, Name an identifier with dots in it
    /// (`qualified`: at least one, as Java's class names have) and nothing else before `:`.
    private static func isExceptionLine(_ line: UnsafeBufferPointer<UInt8>, qualified: Bool) -> Bool {
        let end = nameEnd(line)
        guard end > 0, end == line.count || line[end] == UInt8(ascii: ":") else { return false }
        return !qualified || line[0..<end].contains(UInt8(ascii: "."))
    }

    /// Whether the name before `:` ends in `Exception`, `Error` or `Throwable`.
    private static func endsInThrowableName(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let name = UnsafeBufferPointer(rebasing: line[0..<nameEnd(line)])
        return ends(name, with: "Exception") || ends(name, with: "Error") || ends(name, with: "Throwable")
    }

    /// Where the identifier (letters, digits, `_`, `$`, `.`) that opens the line ends.
    private static func nameEnd(_ line: UnsafeBufferPointer<UInt8>) -> Int {
        var end = 0
        while end < line.count {
            let byte = line[end]
            let isName = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (end > 0 && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || (end > 0 && byte == UInt8(ascii: "."))
            guard isName else { break }
            end += 1
        }
        return end
    }
}
