#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a time on the stream clock is shown to a person: seconds for a stream that starts near
/// 0 (`3.5`), the date and time for times of 1,000,000,000 s and more, which are seconds since
/// the epoch from a log's own timestamps (`2026-11-30 10:06:31.250`), and the time of day on
/// the wall clock (`10:06:31.250`). Dates and times are local (the `TZ` environment, as `date`
/// shows them), or UTC with `--tz utc`. JSON records keep plain seconds.
package struct TimeDisplay: Sendable, Equatable {
    package enum Zone: String, Sendable, CaseIterable { case local, utc }

    package var zone: Zone
    /// Microseconds since the Unix epoch at stream time 0, when the stream runs on the wall
    /// clock (times are then shown as the time of day); nil on the stream clock.
    package var timeOfDayOrigin: Microseconds?

    package init(zone: Zone = .local, timeOfDayOrigin: Microseconds? = nil) {
        self.zone = zone
        self.timeOfDayOrigin = timeOfDayOrigin
    }

    /// 1,000,000,000 s (2001-09-09): stream times this large are seconds since the epoch.
    package static let epochTimesFrom: Microseconds = 1_000_000_000 * StreamTime.perSecond

    /// Whether `time` is shown as a date and time.
    package static func isEpochTime(_ time: Microseconds) -> Bool { time >= epochTimesFrom }

    /// The time as a column of text shows it: `3.5`, `2026-11-30 10:06:31.250` or `10:06:31.250`.
    package func clock(_ time: Microseconds) -> String {
        if let origin = timeOfDayOrigin { return timeOfDay(origin + time) }
        if Self.isEpochTime(time) { return dateTime(time) }
        return StreamTime.format(time)
    }

    /// The time as a sentence says it: `3.5 s`, or a date and time as in `clock`.
    package func moment(_ time: Microseconds) -> String {
        timeOfDayOrigin == nil && !Self.isEpochTime(time) ? StreamTime.format(time) + " s" : clock(time)
    }

    /// `10:06:31.250`: hours, minutes, seconds and milliseconds.
    package func timeOfDay(_ microseconds: Microseconds) -> String {
        let (parts, milliseconds) = brokenDown(microseconds)
        return Self.pad(parts.tm_hour) + ":" + Self.pad(parts.tm_min) + ":" + Self.pad(parts.tm_sec) + "."
            + Self.pad(milliseconds, 3)
    }

    /// `10:06`, or `10:06:31` when the seconds are not 0: an axis label.
    package func shortTimeOfDay(_ microseconds: Microseconds) -> String {
        let (parts, _) = brokenDown(microseconds)
        let minutes = Self.pad(parts.tm_hour) + ":" + Self.pad(parts.tm_min)
        return parts.tm_sec == 0 ? minutes : minutes + ":" + Self.pad(parts.tm_sec)
    }

    /// `2026-11-30`: the date alone.
    package func date(_ microseconds: Microseconds) -> String {
        let (parts, _) = brokenDown(microseconds)
        return String(parts.tm_year + 1900) + "-" + Self.pad(parts.tm_mon + 1) + "-" + Self.pad(parts.tm_mday)
    }

    /// `2026-11-30 10:06:31.250`: the date, then the time of day.
    package func dateTime(_ microseconds: Microseconds) -> String {
        date(microseconds) + " " + timeOfDay(microseconds)
    }

    /// The hour (0–23) and minute a clock in this zone shows at `microseconds` since the epoch.
    package func clockTime(_ microseconds: Microseconds) -> (hour: Int, minute: Int) {
        let (parts, _) = brokenDown(microseconds)
        return (Int(parts.tm_hour), Int(parts.tm_min))
    }

    /// The first moment after `microseconds` at which a clock in this zone shows `hour:minute`
    /// (on a day that has it: a time skipped by a daylight-saving change comes the day after).
    package func next(hour: Int, minute: Int, after microseconds: Microseconds) -> Microseconds {
        var (day, _) = brokenDown(microseconds)
        for _ in 0..<3 {
            var candidate = day
            (candidate.tm_hour, candidate.tm_min, candidate.tm_sec, candidate.tm_isdst) = (Int32(hour), Int32(minute), 0, -1)
            let seconds: time_t
            switch zone {
            case .local: seconds = mktime(&candidate)
            case .utc: seconds = timegm(&candidate)
            }
            let moment = Microseconds(seconds) * StreamTime.perSecond
            if moment > microseconds && Int(candidate.tm_hour) == hour && Int(candidate.tm_min) == minute { return moment }
            day.tm_mday += 1
            day.tm_isdst = -1
        }
        return microseconds + 86_400 * StreamTime.perSecond
    }

    private func brokenDown(_ microseconds: Microseconds) -> (tm, Int) {
        let floored = microseconds >= 0 ? microseconds / 1_000 : (microseconds - 999) / 1_000
        var seconds = time_t(floored >= 0 ? floored / 1_000 : (floored - 999) / 1_000)
        let milliseconds = Int(floored - Microseconds(seconds) * 1_000)
        var parts = tm()
        switch zone {
        case .local: localtime_r(&seconds, &parts)
        case .utc: gmtime_r(&seconds, &parts)
        }
        return (parts, milliseconds)
    }

    private static func pad(_ value: some BinaryInteger, _ width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}

/// A span of time as a sentence says it: `3 d`, `5 h 20 min`, `12 min`, `40 s`, `0.5 s`: at
/// most two units, the larger first, rounded to the smaller (2 d 23 h 59 min is `3 d`).
package enum SpanText {
    private static let units: [(seconds: Int64, name: String)] = [(86_400, "d"), (3_600, "h"), (60, "min"), (1, "s")]

    package static func describe(_ span: Microseconds) -> String {
        let seconds = span / StreamTime.perSecond
        guard seconds >= 60 else { return StreamTime.format(span) + " s" }
        let largest = units.firstIndex { seconds >= $0.seconds } ?? units.count - 1
        let precision = units[min(largest + 1, units.count - 1)].seconds
        var rest = (seconds + precision / 2) / precision * precision
        var parts: [String] = []
        for unit in units where unit.seconds >= precision {
            let count = rest / unit.seconds
            rest %= unit.seconds
            if count > 0 { parts.append("\(count) \(unit.name)") }
        }
        return parts.joined(separator: " ")
    }
}
