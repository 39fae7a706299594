import ToastCore

/// Reads logfmt lines (`--input logfmt`, docs/logs.md "logfmt"): `key=value key="quoted
/// \"value\"" flag`, every pair a field whose value is a string (a bare key is `true`; a key
/// given again, the last wins), and
/// - `time`, `ts` or `timestamp` → `at` (RFC 3339, or epoch seconds with a fraction or not),
/// - `msg` or `message` → the message (else the whole line is),
/// - `level`, `lvl` or `severity` → the field `level` and the role (a word the tool does not
///   know stays as written, role `info`),
/// - `source` and `subtitle` → those fields,
/// - a key that names another show field (`role`, `id`, `duration`, ...) → the field
///   `logfmt.KEY`: a log's own words never steer the host.
///
/// Every index is checked against the line's count before it is read.
struct LogfmtFormat {
    /// Why a line is not logfmt.
    struct Failure: Error {
        var reason: String
    }

    /// What reading a line found besides its parts: a time it could not read.
    struct Findings {
        var unreadTime: String?
    }

    /// Reads `line` (valid UTF-8, without its line end) into `parts`, its time placed by `clock`.
    func read(_ line: UnsafeBufferPointer<UInt8>, into parts: LogLine, clock: inout LogClock) -> Result<Findings, Failure> {
        parts.reset()
        var findings = Findings()
        var index = 0
        while true {
            while index < line.count, line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t") { index += 1 }
            guard index < line.count else { break }
            let keyStart = index
            while index < line.count, !Self.endsKey(line[index]) { index += 1 }
            guard index > keyStart else {
                return .failure(Failure(reason: "logfmt: a value without a key at column \(keyStart + 1)"))
            }
            let key = keyStart..<index
            guard index < line.count, line[index] == UInt8(ascii: "=") else {
                take(key: key, value: .flag(true), line: line, parts: parts, clock: &clock, findings: &findings)
                continue
            }
            index += 1
            let value: LogLine.Place
            if index < line.count, line[index] == UInt8(ascii: "\"") {
                guard let quoted = readQuoted(line, at: &index, parts: parts) else {
                    let name = String(decoding: UnsafeBufferPointer(rebasing: line[key]), as: UTF8.self)
                    return .failure(Failure(reason: "logfmt: the quoted value of \(quoted(name)) has no closing quote"))
                }
                value = quoted
            } else {
                let start = index
                while index < line.count, line[index] != UInt8(ascii: " "), line[index] != UInt8(ascii: "\t") { index += 1 }
                value = .line(start..<index)
            }
            take(key: key, value: .text(value), line: line, parts: parts, clock: &clock, findings: &findings)
        }
        return .success(findings)
    }

    private static func endsKey(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\"")
    }

    /// The keys that name a show field, kept as `logfmt.KEY` (`source`, `subtitle` and
    /// `message` are read as themselves).
    static let steeringKeys: [String] = ToastField.allCases.map(\.name).filter { !["message", "subtitle", "source"].contains($0) }
        + ["made_by"]

    /// Puts one pair where it belongs.
    private func take(key: Range<Int>, value: LogLine.Value, line: UnsafeBufferPointer<UInt8>, parts: LogLine,
                      clock: inout LogClock, findings: inout Findings) {
        let keyBytes = UnsafeBufferPointer(rebasing: line[key])
        func named(_ word: StaticString) -> Bool {
            keyBytes.count == word.utf8CodeUnitCount
                && UnsafeRawBufferPointer(keyBytes).hasSameBytes(as: UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
        }
        guard case .text(let text) = value else {
            // A bare key of a name read as a part (`message` alone) is no part: it is kept aside.
            let isPart = Self.partKeys.contains { $0.withUTF8Bytes { $0.hasSameBytes(as: UnsafeRawBufferPointer(keyBytes)) } }
            addField(key: key, value: value, line: line, parts: parts, kept: isPart)
            return
        }
        if named("msg") || named("message") {
            parts.message = text
        } else if named("time") || named("ts") || named("timestamp") {
            parts.at = parts.withBytes(of: text, in: line) { Self.time($0, clock: &clock) }
            if parts.at == nil {
                findings.unreadTime = parts.withBytes(of: text, in: line) { String(decoding: $0, as: UTF8.self) }
            }
        } else if named("level") || named("lvl") || named("severity") {
            let level = parts.withBytes(of: text, in: line) { bytes in
                LogLevel(word: bytes.assumingMemoryBound(to: UInt8.self), from: 0, to: bytes.count, capitalsOnly: false)
            }
            parts.level = level
            parts.levelWord = level == nil ? text : nil
        } else if named("source") {
            parts.source = text
        } else if named("subtitle") {
            parts.subtitle = text
        } else {
            addField(key: key, value: value, line: line, parts: parts)
        }
    }

    /// The keys whose values become parts of the show rather than fields.
    static let partKeys = ["msg", "message", "time", "ts", "timestamp", "level", "lvl", "severity", "source", "subtitle"]

    /// An extra field; a key that names a show field (or, `kept`, a part) goes in as `logfmt.KEY`.
    private func addField(key: Range<Int>, value: LogLine.Value, line: UnsafeBufferPointer<UInt8>, parts: LogLine,
                          kept: Bool = false) {
        let keyBytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[key])
        let steers = kept || Self.steeringKeys.contains { $0.withUTF8Bytes { $0.hasSameBytes(as: keyBytes) } }
        guard steers else {
            parts.add(.line(key), value, line: line)
            return
        }
        let start = parts.scratchCount
        _ = parts.keep(UnsafeRawBufferPointer(start: Self.prefix.utf8Start, count: Self.prefix.utf8CodeUnitCount))
        _ = parts.keep(keyBytes)
        parts.add(.scratch(start..<parts.scratchCount), value, line: line)
    }

    private static let prefix: StaticString = "logfmt."

    /// A quoted value at `index` (its opening quote), escapes undone (`\"`, `\\`, `\n`, `\t`,
    /// `\r`, `\uXXXX`; another backslash stays); nil when it has no closing quote.
    private func readQuoted(_ line: UnsafeBufferPointer<UInt8>, at index: inout Int, parts: LogLine) -> LogLine.Place? {
        let start = index + 1
        var position = start
        var hasEscape = false
        while position < line.count, line[position] != UInt8(ascii: "\"") {
            if line[position] == UInt8(ascii: "\\") {
                hasEscape = true
                position += 1
            }
            position += 1
        }
        guard position < line.count else { return nil }
        index = position + 1
        guard hasEscape else { return .line(start..<position) }
        let end = position
        let scratchStart = parts.scratchCount
        position = start
        while position < end {
            let byte = line[position]
            guard byte == UInt8(ascii: "\\"), position + 1 < end else {
                parts.appendToScratch(byte)
                position += 1
                continue
            }
            let next = line[position + 1]
            switch next {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): parts.appendToScratch(next)
            case UInt8(ascii: "n"): parts.appendToScratch(0x0A)
            case UInt8(ascii: "t"): parts.appendToScratch(0x09)
            case UInt8(ascii: "r"): parts.appendToScratch(0x0D)
            case UInt8(ascii: "u") where position + 6 <= end:
                if let scalar = Self.hexScalar(line, at: position + 2) {
                    for byte in String(Character(scalar)).utf8 { parts.appendToScratch(byte) }
                    position += 6
                    continue
                }
                parts.appendToScratch(byte)
                parts.appendToScratch(next)
            default:
                parts.appendToScratch(byte)
                parts.appendToScratch(next)
            }
            position += 2
        }
        return .scratch(scratchStart..<parts.scratchCount)
    }

    /// The scalar of four hex digits at `index` (a surrogate is none).
    private static func hexScalar(_ line: UnsafeBufferPointer<UInt8>, at index: Int) -> Unicode.Scalar? {
        guard index + 4 <= line.count else { return nil }
        var value: UInt32 = 0
        for byte in line[index..<(index + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value * 16 + UInt32(digit)
        }
        return Unicode.Scalar(value)
    }

    /// A time value: RFC 3339 (its whole text), or epoch seconds (digits, perhaps a fraction).
    static func time(_ bytes: UnsafeRawBufferPointer, clock: inout LogClock) -> Microseconds? {
        let line = bytes.assumingMemoryBound(to: UInt8.self)
        var index = 0
        if let time = LogTimestamp.rfc3339(line, at: &index), index == line.count {
            return time.microseconds(on: &clock)
        }
        var reader = ByteDigits(line: line, index: 0)
        var seconds: Int64 = 0
        while reader.index < line.count, line[reader.index] >= 0x30, line[reader.index] <= 0x39, reader.index < 12 {
            seconds = seconds * 10 + Int64(line[reader.index] - 0x30)
            reader.index += 1
        }
        guard reader.index > 0 else { return nil }
        var micros = 0
        if reader.skip(UInt8(ascii: ".")) {
            guard let fraction = reader.fractionMicroseconds() else { return nil }
            micros = fraction
        }
        guard reader.index == line.count else { return nil }
        return seconds * 1_000_000 + Int64(micros)
    }
}
