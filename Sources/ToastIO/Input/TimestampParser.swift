#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore

/// Reads the times that logs write, as seconds since the Unix epoch (a script's `parse_time`):
/// RFC 3339 / ISO 8601 (`2026-11-30T10:06:31.250+01:00`, one `T` or any run of spaces between
/// the date and the time, as apt's history.log writes `2025-06-24  14:36:25`; the offset optional),
/// the classic syslog form (`Nov 30 10:06:31`, in the wall clock's year, or the year before
/// when that would put it more than a day ahead, as `--input syslog` reads it: `LogClock`), or
/// any `strftime`-style format (what it leaves out is January 1 of the wall clock's year). A
/// time without an offset is in `zone`: the local zone of `TZ`, or UTC.
package struct TimestampParser: Sendable {
    package var zone: TimeDisplay.Zone
    /// The wall clock, for dates that do not say their year.
    package var wallNow: @Sendable () -> Int64

    package init(zone: TimeDisplay.Zone = .local, wallNow: @escaping @Sendable () -> Int64 = LogClock.systemNow) {
        self.zone = zone
        self.wallNow = wallNow
    }

    /// The year of the wall clock, in `zone`.
    private var currentYear: Int {
        var now = time_t(wallNow())
        var parts = tm()
        switch zone {
        case .utc: gmtime_r(&now, &parts)
        case .local: localtime_r(&now, &parts)
        }
        return Int(parts.tm_year) + 1900
    }

    /// Seconds since the epoch (fractions kept), or why the text could not be read: the part
    /// that could not be read, after the text (`"2025-06-24  14:3": the minutes are not two digits`).
    package func seconds(from text: String, format: String? = nil) -> Result<Double, TimestampError> {
        if let format { return seconds(from: text, strftime: format) }
        let bytes = Array(text.utf8)
        let result = iso8601(bytes) ?? syslog(bytes)
            ?? .failure(TimestampError("not an RFC 3339 / ISO 8601 or syslog time (give a format)"))
        return result.mapError { TimestampError("\(quoted(text)): \($0.message)") }
    }

    // MARK: RFC 3339 / ISO 8601

    /// `YYYY-MM-DD`, then optionally `T` or a space, `HH:MM[:SS[.fraction]]` and `Z` or `±HH[:MM]`.
    /// nil when the text does not start like one (so other forms are tried).
    private func iso8601(_ bytes: [UInt8]) -> Result<Double, TimestampError>? {
        var reader = DigitReader(bytes)
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
              let day = reader.digits(2) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if reader.skip("T") || reader.skip("t") || reader.skipSpaces() {
            guard let h = reader.digits(2) else { return .failure(TimestampError("the hour is not two digits")) }
            guard reader.skip(":") else { return .failure(TimestampError("the hour is not followed by ':' and the minutes")) }
            guard let m = reader.digits(2) else { return .failure(TimestampError("the minutes are not two digits")) }
            hour = h
            minute = m
            if reader.skip(":") {
                guard let s = reader.digits(2) else { return .failure(TimestampError("the seconds are not two digits")) }
                second = s
                if reader.skip(".") || reader.skip(",") {
                    guard let digits = reader.fraction() else { return .failure(TimestampError("the fraction of a second has no digits")) }
                    fraction = digits
                }
            }
        }
        var offset: Int?
        if reader.skip("Z") || reader.skip("z") {
            offset = 0
        } else if let sign = reader.sign() {
            guard let h = reader.digits(2, alone: false) else { return .failure(TimestampError("the offset is not ±HH:MM")) }
            _ = reader.skip(":")
            let m = reader.digits(2) ?? 0
            offset = sign * (h * 3600 + m * 60)
        }
        guard reader.atEnd else { return .failure(TimestampError("unexpected text after the time: \(quoted(reader.rest))")) }
        if let wrong = Self.outOfRange(month: month, day: day, hour: hour, minute: minute, second: second) {
            return .failure(TimestampError(wrong))
        }
        var clock = LogClock(zone: zone, wallNow: wallNow)
        let whole = clock.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
        return .success(Double(whole) + fraction)
    }

    // MARK: syslog

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Mon DD HH:MM:SS` (the day may be padded with a space), in the year `LogClock` gives it.
    private func syslog(_ bytes: [UInt8]) -> Result<Double, TimestampError>? {
        guard bytes.count >= 14, let month = Self.months.firstIndex(where: { Array($0.utf8) == Array(bytes[0..<3]) }),
              bytes[3] == 0x20 else { return nil }
        var reader = DigitReader(bytes, at: 4)
        _ = reader.skip(" ")
        guard let day = reader.digits(2) ?? reader.digits(1), reader.skip(" "), let hour = reader.digits(2), reader.skip(":"),
              let minute = reader.digits(2), reader.skip(":"), let second = reader.digits(2) else { return nil }
        guard reader.atEnd else { return .failure(TimestampError("unexpected text after the time: \(quoted(reader.rest))")) }
        if let wrong = Self.outOfRange(month: month + 1, day: day, hour: hour, minute: minute, second: second) {
            return .failure(TimestampError(wrong))
        }
        var clock = LogClock(zone: zone, wallNow: wallNow)
        return .success(Double(clock.seconds(month: month + 1, day: day, hour: hour, minute: minute, second: second)))
    }

    /// Which part of a date and time is out of its range, if one is.
    static func outOfRange(month: Int, day: Int, hour: Int, minute: Int, second: Int) -> String? {
        if !(1...12).contains(month) { return "the month is out of range (\(month))" }
        if !(1...31).contains(day) { return "the day is out of range (\(day))" }
        if hour >= 24 { return "the hour is out of range (\(hour))" }
        if minute >= 60 { return "the minutes are out of range (\(minute))" }
        if second > 60 { return "the seconds are out of range (\(second))" }
        return nil
    }

    // MARK: strftime-style formats

    private func seconds(from text: String, strftime format: String) -> Result<Double, TimestampError> {
        var parts = tm()
        parts.tm_mday = 1
        parts.tm_year = Int32(currentYear - 1900)
        let rest: String? = text.withCString { textPointer in
            format.withCString { formatPointer in
                guard let end = systemStrptime(textPointer, formatPointer, &parts) else { return nil }
                return String(cString: end)
            }
        }
        guard let rest else { return .failure(TimestampError("\"\(text)\" does not match the format \"\(format)\"")) }
        guard rest.isEmpty else { return .failure(TimestampError("unexpected text after the time: \"\(rest)\"")) }
        if format.contains("%z") {
            let offset = Int(parts.tm_gmtoff)
            return .success(Double(Int(timegm(&parts)) - offset))
        }
        if format.contains("%s") {
            // strptime filled in the local broken-down time of those epoch seconds.
            return .success(Double(Int(mktime(&parts))))
        }
        return .success(Double(epochSeconds(&parts)))
    }

    /// The broken-down time read in this parser's zone.
    private func epochSeconds(_ parts: inout tm) -> Int {
        switch zone {
        case .utc: return Int(timegm(&parts))
        case .local:
            parts.tm_isdst = -1
            return Int(mktime(&parts))
        }
    }
}

/// glibc's `strptime(3)`. Its header hides it behind `_XOPEN_SOURCE`, so Swift's Glibc module
/// does not export it; the C signature is declared here. Safe as called: both strings are
/// NUL-terminated for the call's duration and `tm` is a valid, initialized structure.
@_silgen_name("strptime")
private func systemStrptime(_ text: UnsafePointer<CChar>, _ format: UnsafePointer<CChar>,
                            _ parts: UnsafeMutablePointer<tm>) -> UnsafeMutablePointer<CChar>?

/// Why `parse_time` could not read a text.
package struct TimestampError: Error, Equatable, Sendable {
    package var message: String
    init(_ message: String) { self.message = message }
}

/// Steps through ASCII digits and separators.
private struct DigitReader {
    let bytes: [UInt8]
    var index: Int

    init(_ bytes: [UInt8], at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    var atEnd: Bool { index == bytes.count }

    /// The text not read yet.
    var rest: String { String(decoding: bytes[index...], as: UTF8.self) }

    /// One space or more; false when there is none.
    mutating func skipSpaces() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
        return index > start
    }

    /// `count` digits as a number; `alone`: not followed by another digit.
    mutating func digits(_ count: Int, alone: Bool = true) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        if alone, index + count < bytes.count, bytes[index + count] >= 0x30 && bytes[index + count] <= 0x39 { return nil }
        index += count
        return value
    }

    /// One or more digits after a decimal point, as a fraction of one.
    mutating func fraction() -> Double? {
        var value = 0.0
        var scale = 1.0
        let start = index
        while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
            scale /= 10
            value += Double(bytes[index] - 0x30) * scale
            index += 1
        }
        return index > start ? value : nil
    }

    mutating func skip(_ character: Character) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
