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

    /// Appends the shortest decimal for `time` in seconds to `out`.
    @inlinable package static func append<Out: ByteOutput & ~Copyable>(_ time: Microseconds, to out: inout Out) {
        // Written backwards into one scratch buffer, then appended at once: a sign, at most 13
        // whole digits, a point and at most 6 fraction digits. Every record has a time or
        // three, so digits go two at a time, and the fraction's six are written whole before
        // its trailing zeros are cut, rather than digit by digit.
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { buffer in
            let magnitude = time.magnitude
            let whole = magnitude / 1_000_000
            let fraction = magnitude % 1_000_000
            var end = buffer.count
            var start = end
            if fraction != 0 {
                start = end - 7
                buffer[start] = UInt8(ascii: ".")
                let (high, rest) = fraction.quotientAndRemainder(dividingBy: 10_000)
                let (middle, low) = rest.quotientAndRemainder(dividingBy: 100)
                writePair(high, into: buffer, at: start + 1)
                writePair(middle, into: buffer, at: start + 3)
                writePair(low, into: buffer, at: start + 5)
                if low == 0 { end -= middle == 0 ? 4 : 2 }
                if buffer[end - 1] == UInt8(ascii: "0") { end -= 1 }
            }
            start = writeDigits(of: whole, into: buffer, endingAt: start)
            if time < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            out.append(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
        }
    }

    /// Appends the decimal digits of `value`.
    @inlinable static func appendDecimal<Out: ByteOutput & ~Copyable>(_ value: UInt64, to out: inout Out) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &scratch) { buffer in
            let start = writeDigits(of: value, into: buffer, endingAt: buffer.count)
            out.append(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes the decimal digits of `value` backwards into `buffer`, the last just before
    /// `end`; returns where the first is (the scratch-buffer writers of times, numbers and
    /// implicit ids share it). Two digits at a time.
    @inline(__always)
    @inlinable package static func writeDigits(of value: UInt64, into buffer: UnsafeMutableRawBufferPointer, endingAt end: Int) -> Int {
        var start = end
        var rest = value
        while rest >= 100 {
            let (quotient, pair) = rest.quotientAndRemainder(dividingBy: 100)
            start -= 2
            writePair(pair, into: buffer, at: start)
            rest = quotient
        }
        if rest >= 10 {
            start -= 2
            writePair(rest, into: buffer, at: start)
        } else {
            start -= 1
            buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest)
        }
        return start
    }

    /// Writes `pair` (below 100) as two digits at `offset` and the byte after it, read from a
    /// table of the 100 pairs (every caller passes a remainder of a division by 100, so both
    /// reads lie inside the literal's 200 bytes).
    @inline(__always)
    @inlinable static func writePair(_ pair: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let digits: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        let index = Int(truncatingIfNeeded: pair) &* 2
        buffer[offset] = digits.utf8Start[index]
        buffer[offset + 1] = digits.utf8Start[index + 1]
    }
}
