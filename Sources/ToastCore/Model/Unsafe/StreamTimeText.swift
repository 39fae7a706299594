// A time as decimal text, written backwards into a local scratch buffer. Safe to use: every
// digit is written within the buffer (at most 21 bytes of its 24), and what is appended is a
// part of it, before the buffer goes out of scope.
extension StreamTime {
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
