extension UnsafeRawBufferPointer {
    /// The offset of the first byte from `start` on that a JSON string cannot hold as it is: a
    /// quote, a backslash or a control character (below 0x20); `count` when there is none.
    /// The decoder finds where a string without escapes ends with it, and the encoders whether
    /// a text needs escaping at all.
    ///
    /// Safe to use: `firstByte` loads a word only when all eight of its bytes lie inside the
    /// buffer.
    @inline(__always)
    @inlinable func firstJSONSpecialByte(from start: Int) -> Int {
        firstByte(from: start, marks: Self.jsonSpecialMarks) { byte in
            byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
        }
    }

    /// The high bit of each byte of `word` that is a quote, a backslash or below 0x20 (and
    /// perhaps of bytes after the first such one): `marks(of:in:)` for each character, and the
    /// same test for a byte below 0x20. Bytes of 0x80 and above (UTF-8 beyond ASCII) never match.
    @inline(__always)
    @inlinable static func jsonSpecialMarks(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let below20 = (word &- ones &* 0x20) & ~word & 0x8080_8080_8080_8080
        return marks(of: UInt8(ascii: "\""), in: word) | marks(of: UInt8(ascii: "\\"), in: word) | below20
    }
}
