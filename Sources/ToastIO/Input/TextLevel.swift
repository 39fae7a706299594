import ToastCore

/// Where a plain-text line says its level (docs/events.md, "Levels in text logs"), read in
/// this order:
/// 1. a syslog `<PRI>` at its start (severity = PRI mod 8), which is taken off the message;
/// 2. else the first of its first eight tokens (split at spaces and tabs) that is
///    - a level word in capitals (`ERROR`, `WARN:`; `ERROR:root:boom` counts by the word
///      before its first `:`),
///    - a level word of any case in brackets (`[error]`, `(Warn)`, `<info>`, `[ERROR]:`), or
///    - `level=`, `lvl=` or `severity=` (any case) with a level word of any case, quoted or not.
/// A word in running text (`no error found`) is no level: it is neither in capitals nor marked.
///
/// It reads every line of a text log, so it works on the line's bytes in one pass a token,
/// looking for `:` and `=` only where a level word or a key could end.
package struct TextLevel: Equatable {
    package var level: LogLevel
    /// How many bytes of the line's start are its `<PRI>` (0: none), which the message leaves out.
    package var prefixLength: Int

    static let tokensRead = 8

    /// The level of `line`, or nil when it says none.
    package static func read(_ line: UnsafeBufferPointer<UInt8>) -> TextLevel? {
        if line.first == UInt8(ascii: "<"), let priority = syslogPriority(line) { return priority }
        var index = 0
        let end = line.count
        var tokens = 0
        while index < end {
            if isBlank(line[index]) {
                index += 1
                continue
            }
            let start = index
            index = UnsafeRawBufferPointer(line).firstByte(from: start + 1, marks: blankMarks, isMatch: isBlank)
            if let level = tokenLevel(line, start: start, end: index) {
                return TextLevel(level: level, prefixLength: 0)
            }
            tokens += 1
            if tokens == tokensRead { return nil }
            index += 1   // the blank that ended the token
        }
        return nil
    }

    /// The level of `line` given as an array (Lua's `level_of`, tests).
    package static func read(_ line: [UInt8]) -> TextLevel? {
        line.withUnsafeBufferPointer { read($0) }
    }

    @inline(__always)
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// `isBlank` for the eight bytes of a word at once (`UnsafeRawBufferPointer.firstByte`).
    @inline(__always)
    private static func blankMarks(_ word: UInt64) -> UInt64 {
        UnsafeRawBufferPointer.marks(of: 0x20, in: word) | UnsafeRawBufferPointer.marks(of: 0x09, in: word)
    }

    /// `<PRI>` at the line's start: one to three digits, 0–191.
    private static func syslogPriority(_ line: UnsafeBufferPointer<UInt8>) -> TextLevel? {
        var index = 1
        var value = 0
        while index < line.count, index <= 3, line[index] >= 0x30, line[index] <= 0x39 {
            value = value * 10 + Int(line[index] - 0x30)
            index += 1
        }
        guard index > 1, index < line.count, line[index] == UInt8(ascii: ">"), value <= 191,
              let level = LogLevel(syslogSeverity: value % 8) else { return nil }
        return TextLevel(level: level, prefixLength: index + 1)
    }

    /// The level one token (`line[start..<end]`) names, by the rules above.
    @inline(__always)
    private static func tokenLevel(_ line: UnsafeBufferPointer<UInt8>, start: Int, end: Int) -> LogLevel? {
        let first = line[start]
        switch first {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            // A word in capitals that ends the token or is followed by `:` (`ERROR:`,
            // `ERROR:root:boom`); else perhaps a key in capitals (`LEVEL=error`).
            var wordEnd = start + 1
            while wordEnd < end && wordEnd - start <= 11 && line[wordEnd] >= UInt8(ascii: "A") && line[wordEnd] <= UInt8(ascii: "Z") {
                wordEnd += 1
            }
            if wordEnd == end || line[wordEnd] == UInt8(ascii: ":"),
               let level = LogLevel(word: line, from: start, to: wordEnd, capitalsOnly: true) {
                return level
            }
            return keyedLevel(line, start: start, end: end)
        case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "<"):
            var close = end
            if line[close - 1] == UInt8(ascii: ":") { close -= 1 }
            guard close - start >= 5 else { return nil }
            let closing: UInt8 = first == UInt8(ascii: "[") ? UInt8(ascii: "]") : first == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: ">")
            guard line[close - 1] == closing else { return nil }
            return LogLevel(word: line, from: start + 1, to: close - 1, capitalsOnly: false)
        case UInt8(ascii: "l"), UInt8(ascii: "s"):
            return keyedLevel(line, start: start, end: end)
        default:
            return nil
        }
    }

    /// `level=WORD`, `lvl=WORD` or `severity=WORD`, any case, the word perhaps in quotes.
    private static func keyedLevel(_ line: UnsafeBufferPointer<UInt8>, start: Int, end: Int) -> LogLevel? {
        let key: StaticString
        let length = end - start
        if length > 4 && line[start + 3] == UInt8(ascii: "=") {
            key = "lvl"
        } else if length > 6 && line[start + 5] == UInt8(ascii: "=") {
            key = "level"
        } else if length > 9 && line[start + 8] == UInt8(ascii: "=") {
            key = "severity"
        } else {
            return nil
        }
        let equals = start + key.utf8CodeUnitCount
        let keyBytes = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        for offset in 0..<keyBytes.count where line[start + offset] | 0x20 != keyBytes[offset] { return nil }
        var from = equals + 1
        var to = end
        if to - from >= 2, line[from] == line[to - 1], line[from] == UInt8(ascii: "\"") || line[from] == UInt8(ascii: "'") {
            from += 1
            to -= 1
        }
        return LogLevel(word: line, from: from, to: to, capitalsOnly: false)
    }
}
