/// Where a plain-text line says its level (docs/events.md, "Levels"), read in this order:
/// 1. a syslog `<PRI>` at its start (severity = PRI mod 8), which is taken off the message;
/// 2. else the first of its first eight tokens (split at spaces and tabs) that is
///    - a level word in capitals (`ERROR`, `WARN:`; `ERROR:root:boom` counts by the word
///      before its first `:`),
///    - a level word of any case in brackets (`[error]`, `(Warn)`, `<info>`, `[ERROR]:`), or
///    - `level=`, `lvl=` or `severity=` (any case) with a level word of any case, quoted or not.
/// A word in running text (`no error found`) is no level: it is neither in capitals nor marked.
package struct TextLevel: Equatable {
    package var level: LogLevel
    /// How many bytes of the line's start are its `<PRI>` (0: none), which the message leaves out.
    package var prefixLength: Int

    static let tokensRead = 8

    /// The level of `line`, or nil when it says none.
    package static func read<Bytes: RandomAccessCollection>(_ line: Bytes) -> TextLevel?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        if let priority = syslogPriority(line) { return priority }
        var index = line.startIndex
        let end = line.endIndex
        var tokens = 0
        while tokens < tokensRead {
            while index < end && (line[index] == 0x20 || line[index] == 0x09) { index += 1 }
            guard index < end else { return nil }
            let start = index
            while index < end && line[index] != 0x20 && line[index] != 0x09 { index += 1 }
            if let level = tokenLevel(line[start..<index]) { return TextLevel(level: level, prefixLength: 0) }
            tokens += 1
        }
        return nil
    }

    /// `<PRI>` at the line's start: one to three digits, 0–191.
    private static func syslogPriority<Bytes: RandomAccessCollection>(_ line: Bytes) -> TextLevel?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = line.startIndex
        guard index < line.endIndex, line[index] == UInt8(ascii: "<") else { return nil }
        index += 1
        var value = 0
        let digitsStart = index
        while index < line.endIndex, index - digitsStart < 3, let digit = digitValue(line[index]) {
            value = value * 10 + digit
            index += 1
        }
        guard index > digitsStart, index < line.endIndex, line[index] == UInt8(ascii: ">"), value <= 191,
              let level = LogLevel(syslogSeverity: value % 8) else { return nil }
        return TextLevel(level: level, prefixLength: index + 1 - line.startIndex)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// The level one token names, by the rules above.
    private static func tokenLevel<Bytes: RandomAccessCollection>(_ token: Bytes) -> LogLevel?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard let first = token.first else { return nil }
        var end = token.endIndex
        switch first {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            // A word in capitals, up to its first `:` (`ERROR:`, `ERROR:root:boom`), or a key.
            if let colon = token.firstIndex(of: UInt8(ascii: ":")) { end = colon }
            if let level = LogLevel(word: token[token.startIndex..<end], capitalsOnly: true) { return level }
            return keyedLevel(token)
        case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "<"):
            if token[end - 1] == UInt8(ascii: ":") { end -= 1 }
            let close: UInt8 = first == UInt8(ascii: "[") ? UInt8(ascii: "]") : first == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: ">")
            guard end - token.startIndex >= 3, token[end - 1] == close else { return nil }
            return LogLevel(word: token[(token.startIndex + 1)..<(end - 1)], capitalsOnly: false)
        default:
            return keyedLevel(token)
        }
    }

    /// `level=WORD`, `lvl=WORD` or `severity=WORD`, any case, the word perhaps in quotes.
    private static func keyedLevel<Bytes: RandomAccessCollection>(_ token: Bytes) -> LogLevel?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard let equals = token.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let key = token[token.startIndex..<equals]
        guard keys.contains(where: { equalIgnoringCase(key, $0) }) else { return nil }
        var start = equals + 1
        var end = token.endIndex
        if end - start >= 2, token[start] == token[end - 1], token[start] == UInt8(ascii: "\"") || token[start] == UInt8(ascii: "'") {
            start += 1
            end -= 1
        }
        return LogLevel(word: token[start..<end], capitalsOnly: false)
    }

    private static let keys = ["level", "lvl", "severity"].map { Array($0.utf8) }

    private static func equalIgnoringCase<Bytes: RandomAccessCollection>(_ bytes: Bytes, _ lower: [UInt8]) -> Bool
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard bytes.count == lower.count else { return false }
        for (offset, expected) in lower.enumerated() where bytes[bytes.startIndex + offset] | 0x20 != expected {
            return false
        }
        return true
    }
}
