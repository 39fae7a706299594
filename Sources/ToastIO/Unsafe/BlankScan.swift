extension UnsafeBufferPointer where Element == UInt8 {
    /// The index of the first space or tab from `start` on; `count` when there is none. A text
    /// line's level is looked for among its first tokens (`TextLevel`), and this finds where
    /// each token ends.
    ///
    /// Eight bytes at a time, as `firstJSONSpecialByte` does (the zero-byte test on the word
    /// xor-ed with each blank), the last few byte by byte. Safe to use: a word is loaded only
    /// when all eight of its bytes lie inside the buffer.
    @inline(__always)
    func firstBlank(from start: Int) -> Int {
        guard let base = baseAddress.map(UnsafeRawPointer.init) else { return count }
        let end = count
        var offset = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while offset + 8 <= end {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let spaces = word ^ (ones &* 0x20)
            let tabs = word ^ (ones &* 0x09)
            let marks = ((spaces &- ones) & ~spaces | (tabs &- ones) & ~tabs) & highs
            // The lowest mark is exact (a false one can only follow a true one).
            if marks != 0 { return offset &+ marks.trailingZeroBitCount >> 3 }
            offset &+= 8
        }
        while offset < end {
            let byte = self[offset]
            if byte == 0x20 || byte == 0x09 { return offset }
            offset &+= 1
        }
        return end
    }
}
