/// Time on the stream clock, and spans of it, in whole microseconds.
///
/// docs/events.md: times are rounded to the microsecond when read and all arithmetic is
/// exact from there, which an `Int64` gives and a `Double` of seconds does not
/// (0.1 + 0.2 is not 0.3). One alias keeps the arithmetic plain.
public typealias Microseconds = Int64

/// Stream times read from seconds and written as the shortest decimal of seconds. Inlinable
/// across modules (docs/performance.md, "Across modules"): the encoders in ToastIO write every
/// record's time with it.
@usableFromInline package enum StreamTime {
    @usableFromInline package static let perSecond: Microseconds = 1_000_000

    /// Whole microseconds for `seconds`, rounded half to even; nil when not finite or too large.
    @inlinable package static func microseconds(fromSeconds seconds: Double) -> Microseconds? {
        guard seconds.isFinite else { return nil }
        let scaled = (seconds * 1_000_000).rounded(.toNearestOrEven)
        guard abs(scaled) < 9.0e18 else { return nil }
        return Microseconds(scaled)
    }

    /// Whole microseconds for a `Duration` (a plugin's settings hold spans as `Duration`),
    /// rounded toward zero; the largest or smallest for one out of range.
    @inlinable package static func microseconds(_ duration: Duration) -> Microseconds {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: perSecond)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return whole.addingReportingOverflow(attoseconds / 1_000_000_000_000).partialValue
    }

    /// Seconds as a `Double`, for Lua and for the few places that want one.
    @inlinable package static func seconds(_ time: Microseconds) -> Double {
        Double(time) / 1_000_000
    }

    /// The shortest decimal for `time` in seconds: `3`, `3.5`, `0.000001`, `-2.25`.
    @inlinable package static func format(_ time: Microseconds) -> String {
        var bytes: [UInt8] = []
        append(time, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
