import ToastCore

/// Reads syslog lines (`--input syslog`, docs/logs.md "Syslog"):
/// - RFC 3164, `<PRI>Mmm dd HH:MM:SS HOST TAG[PID]: MSG`, the `<PRI>` optional, the time
///   also as RFC 3339 (rsyslog's precise file format), the host left out when the line goes
///   straight on with its tag;
/// - RFC 5424, `<PRI>1 TIMESTAMP HOST APP-NAME PROCID MSGID [SD-ID NAME="VALUE"...] MSG`, `-`
///   for a part it does not have, structured data as fields `sd.ID.NAME` (`\"`, `\\` and
///   `\]` undone), a byte order mark opening MSG left out.
///
/// The level comes from PRI (severity = PRI mod 8), else from MSG as a text line's does.
/// Every index is checked against the line's count before it is read.
struct SyslogFormat {
    /// A tag longer than this is no tag (RFC 3164 allows 32 characters; programs write more).
    static let longestTag = 64

    /// Reads `line` (valid UTF-8, without its line end) into `parts`, its time placed by
    /// `clock`; false when it is not syslog, and then `parts` says nothing.
    func read(_ line: UnsafeBufferPointer<UInt8>, into parts: LogLine, clock: inout LogClock) -> Bool {
        parts.reset()
        var index = 0
        var severity: Int?
        if line.first == UInt8(ascii: "<") {
            var reader = ByteDigits(line: line, index: 1)
            var value = 0
            var digits = 0
            while reader.index < line.count, digits < 3, line[reader.index] >= 0x30, line[reader.index] <= 0x39 {
                value = value * 10 + Int(line[reader.index] - 0x30)
                reader.index += 1
                digits += 1
            }
            guard digits > 0, value <= 191, reader.skip(UInt8(ascii: ">")) else { return false }
            severity = value % 8
            index = reader.index
            // RFC 5424: a version (1 to 99) and a space after PRI.
            var version = ByteDigits(line: line, index: index)
            if index < line.count, line[index] != UInt8(ascii: "0"),
               version.digits(1) != nil || version.digits(2) != nil, version.skip(UInt8(ascii: " ")) {
                guard read5424(line, from: version.index, into: parts, clock: &clock) else { return false }
                setLevel(severity: severity, line: line, parts: parts)
                return true
            }
        }
        guard read3164(line, from: index, into: parts, clock: &clock) else { return false }
        setLevel(severity: severity, line: line, parts: parts)
        return true
    }

    /// The level from PRI's severity, else from the message as a text line's.
    private func setLevel(severity: Int?, line: UnsafeBufferPointer<UInt8>, parts: LogLine) {
        if let severity {
            parts.level = LogLevel(syslogSeverity: severity)
        } else if case .line(let range)? = parts.message {
            parts.level = TextLevel.read(UnsafeBufferPointer(rebasing: line[range]))?.level
        }
    }

    // MARK: RFC 3164

    private func read3164(_ line: UnsafeBufferPointer<UInt8>, from start: Int, into parts: LogLine, clock: inout LogClock) -> Bool {
        var index = start
        guard let time = LogTimestamp.syslog(line, at: &index) ?? LogTimestamp.rfc3339(line, at: &index) else { return false }
        parts.at = time.microseconds(on: &clock)
        guard skipSpace(line, &index) else {
            parts.message = .line(line.count..<line.count)
            return true
        }
        // HOST, unless the next word is already the tag (`sshd[812]:`, `kernel:`).
        let word = tokenEnd(line, from: index)
        if word > index, !(line[word - 1] == UInt8(ascii: ":") || line[index..<word].contains(UInt8(ascii: "["))) {
            parts.add(.word("host"), .text(.line(index..<word)), line: line)
            index = word
            guard skipSpace(line, &index) else {
                parts.message = .line(line.count..<line.count)
                return true
            }
        }
        readTag(line, at: &index, into: parts)
        parts.message = .line(index..<line.count)
        return true
    }

    /// `TAG[PID]: ` or `TAG: ` at `index`, moving past it; nothing when the word there is no tag.
    private func readTag(_ line: UnsafeBufferPointer<UInt8>, at index: inout Int, into parts: LogLine) {
        var end = index
        while end < line.count, end - index <= Self.longestTag {
            let byte = line[end]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: ":") { break }
            end += 1
        }
        guard end > index, end < line.count, end - index <= Self.longestTag else { return }
        var after = end
        var pid: Range<Int>?
        if line[end] == UInt8(ascii: "[") {
            guard let close = line[(end + 1)...].firstIndex(of: UInt8(ascii: "]")), close > end + 1 else { return }
            pid = (end + 1)..<close
            after = close + 1
        }
        guard after < line.count, line[after] == UInt8(ascii: ":") else { return }
        parts.source = .line(index..<end)
        if let pid { parts.add(.word("pid"), .text(.line(pid)), line: line) }
        index = after + 1
        if index < line.count, line[index] == UInt8(ascii: " ") { index += 1 }
    }

    // MARK: RFC 5424

    private func read5424(_ line: UnsafeBufferPointer<UInt8>, from start: Int, into parts: LogLine, clock: inout LogClock) -> Bool {
        var index = start
        if isNil(line, index) {
            index += 1
        } else {
            guard let time = LogTimestamp.rfc3339(line, at: &index) else { return false }
            parts.at = time.microseconds(on: &clock)
        }
        /// HOSTNAME, APP-NAME, PROCID and MSGID in turn: the range of each, nil for `-`.
        func headerField() -> Range<Int>?? {
            guard skipSpace(line, &index) else { return .none }
            let end = tokenEnd(line, from: index)
            guard end > index else { return .none }
            defer { index = end }
            return .some(isNil(line, index) && end == index + 1 ? nil : index..<end)
        }
        guard let host = headerField(), let app = headerField(), let pid = headerField(), let msgid = headerField() else {
            return false
        }
        if let host { parts.add(.word("host"), .text(.line(host)), line: line) }
        if let app { parts.source = .line(app) }
        if let pid { parts.add(.word("pid"), .text(.line(pid)), line: line) }
        if let msgid { parts.add(.word("msgid"), .text(.line(msgid)), line: line) }
        guard skipSpace(line, &index) else {
            parts.message = .line(line.count..<line.count)
            return true
        }
        if isNil(line, index) {
            index += 1
        } else {
            guard index < line.count, line[index] == UInt8(ascii: "["), readStructuredData(line, at: &index, into: parts) else {
                return false
            }
        }
        if index < line.count {
            guard line[index] == UInt8(ascii: " ") else { return false }
            index += 1
        }
        // MSG may open with a UTF-8 byte order mark (RFC 5424 §6.4).
        if index + 3 <= line.count, line[index] == 0xEF, line[index + 1] == 0xBB, line[index + 2] == 0xBF { index += 3 }
        parts.message = .line(index..<line.count)
        return true
    }

    /// `[ID NAME="VALUE" ...]...` at `index`, each parameter a field `sd.ID.NAME`.
    private func readStructuredData(_ line: UnsafeBufferPointer<UInt8>, at index: inout Int, into parts: LogLine) -> Bool {
        while index < line.count, line[index] == UInt8(ascii: "[") {
            let idStart = index + 1
            var idEnd = idStart
            while idEnd < line.count, line[idEnd] != UInt8(ascii: " "), line[idEnd] != UInt8(ascii: "]") { idEnd += 1 }
            guard idEnd > idStart, idEnd < line.count else { return false }
            index = idEnd
            while true {
                guard index < line.count else { return false }
                if line[index] == UInt8(ascii: "]") {
                    index += 1
                    break
                }
                guard line[index] == UInt8(ascii: " ") else { return false }
                index += 1
                let nameStart = index
                while index < line.count, line[index] != UInt8(ascii: "="), line[index] != UInt8(ascii: " "),
                      line[index] != UInt8(ascii: "]") { index += 1 }
                guard index > nameStart, index + 1 < line.count, line[index] == UInt8(ascii: "="),
                      line[index + 1] == UInt8(ascii: "\"") else { return false }
                let nameEnd = index
                index += 2
                guard let value = readParameterValue(line, at: &index, into: parts) else { return false }
                let nameOffset = parts.scratchCount
                _ = parts.keep(UnsafeRawBufferPointer(start: Self.sdPrefix.utf8Start, count: Self.sdPrefix.utf8CodeUnitCount))
                _ = parts.keep(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[idStart..<idEnd]))
                parts.appendToScratch(UInt8(ascii: "."))
                _ = parts.keep(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[nameStart..<nameEnd]))
                parts.add(.scratch(nameOffset..<parts.scratchCount), .text(value), line: line)
            }
        }
        return true
    }

    private static let sdPrefix: StaticString = "sd."

    /// A parameter's value after its opening quote, up to the closing one; `\"`, `\\` and `\]`
    /// are undone (any other backslash stays, RFC 5424 §6.3.3).
    private func readParameterValue(_ line: UnsafeBufferPointer<UInt8>, at index: inout Int, into parts: LogLine) -> LogLine.Place? {
        let start = index
        var hasEscape = false
        while index < line.count, line[index] != UInt8(ascii: "\"") {
            if line[index] == UInt8(ascii: "\\") {
                hasEscape = true
                index += 1
            }
            index += 1
        }
        guard index < line.count else { return nil }
        let end = index
        index += 1
        guard hasEscape else { return .line(start..<end) }
        let scratchStart = parts.scratchCount
        var position = start
        while position < end {
            let byte = line[position]
            let next = position + 1 < end ? line[position + 1] : 0
            if byte == UInt8(ascii: "\\"), next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") || next == UInt8(ascii: "]") {
                parts.appendToScratch(line[position + 1])
                position += 2
            } else {
                parts.appendToScratch(byte)
                position += 1
            }
        }
        return .scratch(scratchStart..<parts.scratchCount)
    }

    // MARK: Pieces

    private func isNil(_ line: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        index < line.count && line[index] == UInt8(ascii: "-") && (index + 1 == line.count || line[index + 1] == UInt8(ascii: " "))
    }

    /// Moves past one space at `index`; false when there is none.
    private func skipSpace(_ line: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Bool {
        guard index < line.count, line[index] == UInt8(ascii: " ") else { return false }
        index += 1
        return true
    }

    /// Where the word at `start` ends (a space or the line's end).
    private func tokenEnd(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var end = start
        while end < line.count, line[end] != UInt8(ascii: " ") { end += 1 }
        return end
    }
}
