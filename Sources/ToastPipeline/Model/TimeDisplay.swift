#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Times since the Unix epoch as a person reads them, in the local time zone (`TZ`).
enum LocalTime {
    /// `10:06:31.250`: hours, minutes, seconds and milliseconds.
    static func timeOfDay(_ microseconds: Microseconds) -> String {
        let (parts, milliseconds) = brokenDown(microseconds)
        return pad(parts.tm_hour) + ":" + pad(parts.tm_min) + ":" + pad(parts.tm_sec) + "." + pad(milliseconds, 3)
    }

    /// `2026-11-30 10:06:31.250`: the date, then the time of day.
    static func dateTime(_ microseconds: Microseconds) -> String {
        let (parts, _) = brokenDown(microseconds)
        return String(parts.tm_year + 1900) + "-" + pad(parts.tm_mon + 1) + "-" + pad(parts.tm_mday) + " "
            + timeOfDay(microseconds)
    }

    private static func brokenDown(_ microseconds: Microseconds) -> (tm, Int) {
        let floored = microseconds >= 0 ? microseconds / 1_000 : (microseconds - 999) / 1_000
        var seconds = time_t(floored >= 0 ? floored / 1_000 : (floored - 999) / 1_000)
        let milliseconds = Int(floored - Microseconds(seconds) * 1_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return (parts, milliseconds)
    }

    private static func pad(_ value: some BinaryInteger, _ width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
