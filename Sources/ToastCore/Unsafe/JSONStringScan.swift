extension UnsafeRawBufferPointer {
    /// The offset of the first byte from `start` on that a JSON string cannot hold as it is: a
    /// quote, a backslash or a control character (below 0x20); `count` when there is none.
    /// The decoder finds where a string without escapes ends with it, and the encoders whether
    /// a text needs escaping at all.
    ///
    /// Eight bytes at a time (a test on a 64-bit word that marks those bytes, a few instructions
    /// for the word instead of a few for each byte), the last few byte by byte. Safe to use: a
    /// word is loaded only when all eight of its bytes lie inside the buffer.
    @inline(__always)
    @inlinable func firstJSONSpecialByte(from start: Int) -> Int {
        guard let base = baseAddress else { return count }
        let end = count
        var offset = start
        while offset + 8 <= end {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let marks = Self.jsonSpecialMarks(word)
            // The lowest mark is exact (a false one can only follow a true one).
            if marks != 0 { return offset &+ marks.trailingZeroBitCount >> 3 }
            offset &+= 8
        }
        while offset < end {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return offset }
            offset &+= 1
        }
        return end
    }

    /// The high bit of each byte of `word` that is a quote, a backslash or below 0x20 (and
    /// perhaps of bytes after the first such one): the classic test for a zero byte
    /// (`x - 0x01…01 & ~x & 0x80…80`) applied to the word xor-ed with each character, and the
    /// test for a byte below 0x20. Bytes of 0x80 and above (UTF-8 beyond ASCII) never match.
    @inline(__always)
    @inlinable static func jsonSpecialMarks(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let zeroInQuotes = (quotes &- ones) & ~quotes
        let zeroInBackslashes = (backslashes &- ones) & ~backslashes
        let below20 = (word &- ones &* 0x20) & ~word
        return (zeroInQuotes | zeroInBackslashes | below20) & highs
    }
}
