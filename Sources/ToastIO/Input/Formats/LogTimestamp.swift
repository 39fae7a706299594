import ToastCore

/// The times the native formats read at a place in a line's bytes: RFC 3339
/// (`2026-12-06T10:00:00.123456+01:00`, `Z`, or no offset), and syslog's `Dec  6 10:00:00`
/// (no year, the day padded with a space or not). Every read checks its index against the
/// line's count.
struct LogTimestamp {
    var year: Int?
    var month = 1, day = 1, hour = 0, minute = 0, second = 0
    var microseconds = 0
    /// Seconds east of UTC, when the text gave an offset.
    var offset: Int?

    /// Microseconds since the epoch, `clock` placing a time without an offset or a year.
    func microseconds(on clock: inout LogClock) -> Microseconds {
        let seconds: Int64
        if let year {
            seconds = clock.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
        } else {
            seconds = clock.seconds(month: month, day: day, hour: hour, minute: minute, second: second)
        }
        return seconds * 1_000_000 + Int64(microseconds)
    }

    private var isInRange: Bool {
        TimestampParser.outOfRange(month: month, day: day, hour: hour, minute: minute, second: second) == nil
    }

    /// RFC 3339 at `index`, up to a space or the end; `index` moves past it. Nil (and `index`
    /// unmoved) when the bytes there are not one.
    static func rfc3339(_ line: UnsafeBufferPointer<UInt8>, at index: inout Int) -> LogTimestamp? {
        var reader = ByteDigits(line: line, index: index)
        guard let year = reader.digits(4), reader.skip(UInt8(ascii: "-")), let month = reader.digits(2),
              reader.skip(UInt8(ascii: "-")), let day = reader.digits(2),
              reader.skip(UInt8(ascii: "T")) || reader.skip(UInt8(ascii: "t")) || reader.skip(UInt8(ascii: " ")),
              let hour = reader.digits(2), reader.skip(UInt8(ascii: ":")), let minute = reader.digits(2),
              reader.skip(UInt8(ascii: ":")), let second = reader.digits(2) else { return nil }
        var time = LogTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if reader.skip(UInt8(ascii: ".")) || reader.skip(UInt8(ascii: ",")) {
            guard let fraction = reader.fractionMicroseconds() else { return nil }
            time.microseconds = fraction
        }
        if reader.skip(UInt8(ascii: "Z")) || reader.skip(UInt8(ascii: "z")) {
            time.offset = 0
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2) else { return nil }
            _ = reader.skip(UInt8(ascii: ":"))
            let minutes = reader.digits(2) ?? 0
            time.offset = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.index == line.count || line[reader.index] == UInt8(ascii: " "), time.isInRange else { return nil }
        index = reader.index
        return time
    }

    /// `Mmm dd HH:MM:SS` (`Dec  6`, `Dec 6`, `Dec 06`) at `index`, followed by a space or the
    /// end; `index` moves past it. Nil when the bytes there are not one.
    static func syslog(_ line: UnsafeBufferPointer<UInt8>, at index: inout Int) -> LogTimestamp? {
        guard index + 14 <= line.count, let month = monthNumber(line, at: index), line[index + 3] == UInt8(ascii: " ") else {
            return nil
        }
        var reader = ByteDigits(line: line, index: index + 4)
        _ = reader.skip(UInt8(ascii: " "))
        guard let day = reader.digits(2) ?? reader.digits(1), reader.skip(UInt8(ascii: " ")), let hour = reader.digits(2),
              reader.skip(UInt8(ascii: ":")), let minute = reader.digits(2), reader.skip(UInt8(ascii: ":")),
              let second = reader.digits(2) else { return nil }
        var time = LogTimestamp(year: nil, month: month, day: day, hour: hour, minute: minute, second: second)
        // Some daemons write fractions after the classic form (`10:00:00.123`).
        if reader.skip(UInt8(ascii: ".")) {
            guard let fraction = reader.fractionMicroseconds() else { return nil }
            time.microseconds = fraction
        }
        guard reader.index == line.count || line[reader.index] == UInt8(ascii: " "), time.isInRange else { return nil }
        index = reader.index
        return time
    }

    /// The month (1–12) whose English abbreviation is at `index`, as syslog writes it.
    private static func monthNumber(_ line: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let word = (UInt32(line[index]) << 16) | (UInt32(line[index + 1]) << 8) | UInt32(line[index + 2])
        switch word {
        case 0x4A616E: return 1   // Jan
        case 0x466562: return 2   // Feb
        case 0x4D6172: return 3   // Mar
        case 0x417072: return 4   // Apr
        case 0x4D6179: return 5   // May
        case 0x4A756E: return 6   // Jun
        case 0x4A756C: return 7   // Jul
        case 0x417567: return 8   // Aug
        case 0x536570: return 9   // Sep
        case 0x4F6374: return 10  // Oct
        case 0x4E6F76: return 11  // Nov
        case 0x446563: return 12  // Dec
        default: return nil
        }
    }
}

/// Steps through ASCII digits and separators of a line's bytes, every read checked.
struct ByteDigits {
    let line: UnsafeBufferPointer<UInt8>
    var index: Int

    /// `count` digits as a number, not followed by another digit.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= line.count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = line[index + offset]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        if index + count < line.count, line[index + count] >= 0x30 && line[index + count] <= 0x39 { return nil }
        index += count
        return value
    }

    /// One or more digits of a fraction of a second, as microseconds (digits past the sixth
    /// are read and left out).
    mutating func fractionMicroseconds() -> Int? {
        var value = 0
        var digits = 0
        while index < line.count, line[index] >= 0x30 && line[index] <= 0x39 {
            if digits < 6 { value = value * 10 + Int(line[index] - 0x30) }
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        for _ in digits..<max(digits, 6) { value *= 10 }
        return value
    }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard index < line.count, line[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip(UInt8(ascii: "+")) { return 1 }
        if skip(UInt8(ascii: "-")) { return -1 }
        return nil
    }
}
