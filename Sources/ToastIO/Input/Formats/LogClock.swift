#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore

/// Turns the dates and times that log lines write into microseconds since the Unix epoch, as
/// the native formats read them (docs/logs.md, "Times"): with an offset, exactly; without one,
/// in `--tz`'s zone; without a year (syslog's `Dec  6 10:00:00`), in the year that keeps the
/// date from being more than a day ahead of the wall clock.
///
/// A log has many lines a minute: the local zone's answer for the last minute asked is kept,
/// so `mktime` runs about once a minute of log, not once a line.
package struct LogClock {
    package let zone: TimeDisplay.Zone
    /// The wall clock, in seconds since the epoch (`TOASTSCRIPT_NOW` fixes it, for tests).
    let wallNow: @Sendable () -> Int64
    private var cachedMinute = -1
    private var cachedMinuteStart: Int64 = 0
    /// The year the wall clock is in, and the moment (seconds) up to which it stays that year.
    private var wallYear = 0
    private var wallYearEnds: Int64 = .min

    package init(zone: TimeDisplay.Zone, wallNow: @escaping @Sendable () -> Int64 = LogClock.systemNow) {
        self.zone = zone
        self.wallNow = wallNow
    }

    /// The system's wall clock.
    package static let systemNow: @Sendable () -> Int64 = { Int64(time(nil)) }

    /// The variable that fixes the wall clock these rules read (epoch seconds), for tests.
    package static let fixedNowVariable = "TOASTSCRIPT_NOW"

    /// A wall clock fixed at `fixed` (`TOASTSCRIPT_NOW`) (epoch seconds), else the system's.
    package static func wallNow(fixedAt fixed: Int64?) -> @Sendable () -> Int64 {
        guard let fixed else { return systemNow }
        return { fixed }
    }

    /// Seconds since the epoch of a date and time; `offset` (seconds east of UTC) when the text
    /// gave one, else the time is in `zone`.
    package mutating func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int?) -> Int64 {
        if let offset {
            return Self.utcSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second) - Int64(offset)
        }
        switch zone {
        case .utc:
            return Self.utcSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        case .local:
            let key = (((year * 13 + month) * 32 + day) * 24 + hour) * 60 + minute
            if key != cachedMinute {
                var parts = tm()
                parts.tm_year = Int32(year - 1900)
                parts.tm_mon = Int32(month - 1)
                parts.tm_mday = Int32(day)
                parts.tm_hour = Int32(hour)
                parts.tm_min = Int32(minute)
                parts.tm_isdst = -1
                cachedMinuteStart = Int64(mktime(&parts))
                cachedMinute = key
            }
            return cachedMinuteStart + Int64(second)
        }
    }

    /// Seconds since the epoch of a date without a year: the wall clock's year in `zone`, or
    /// the year before when the date would then be more than a day ahead of the wall clock
    /// (December's lines read in January stay in December).
    package mutating func seconds(month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        let now = wallNow()
        let year = yearOfWallClock(now)
        let this = seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: nil)
        guard this > now + 86_400 else { return this }
        return seconds(year: year - 1, month: month, day: day, hour: hour, minute: minute, second: second, offset: nil)
    }

    /// The year `now` is in, in `zone`.
    private mutating func yearOfWallClock(_ now: Int64) -> Int {
        if now < wallYearEnds && now >= wallYearEnds - 366 * 86_400 { return wallYear }
        var time = time_t(now)
        var parts = tm()
        switch zone {
        case .utc: gmtime_r(&time, &parts)
        case .local: localtime_r(&time, &parts)
        }
        wallYear = Int(parts.tm_year) + 1900
        wallYearEnds = seconds(year: wallYear + 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, offset: nil)
        return wallYear
    }

    /// Seconds since the epoch of a UTC date and time, by arithmetic (days from the civil date,
    /// as H. Hinnant's `days_from_civil`): no library call, any year.
    static func utcSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = Int64(era) * 146_097 + Int64(dayOfEra) - 719_468
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }
}
