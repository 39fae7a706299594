extension UnsafeRawBufferPointer {
    /// The offset of the first byte from `start` on that `isMatch` takes; `count` when there is
    /// none. Eight bytes at a time: `marks` sets the high bit of each byte of a word that
    /// `isMatch` takes (and perhaps of bytes after the first such one, never before it), and the
    /// last few bytes are tested one by one. The JSON scanner finds where a plain string ends
    /// with it, a text log where each token ends.
    ///
    /// Safe to use: a word is loaded only when all eight of its bytes lie inside the buffer.
    @inline(__always)
    @inlinable package func firstByte(from start: Int, marks: (UInt64) -> UInt64, isMatch: (UInt8) -> Bool) -> Int {
        guard let base = baseAddress else { return count }
        let end = count
        var offset = start
        while offset + 8 <= end {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let marked = marks(word)
            // The lowest mark is exact (a false one can only follow a true one).
            if marked != 0 { return offset &+ marked.trailingZeroBitCount >> 3 }
            offset &+= 8
        }
        while offset < end {
            if isMatch(base.load(fromByteOffset: offset, as: UInt8.self)) { return offset }
            offset &+= 1
        }
        return end
    }

    /// The high bit of each byte of `word` that is `byte` (and perhaps of bytes after the first
    /// such one): the classic test for a zero byte (`x - 0x01…01 & ~x & 0x80…80`) applied to the
    /// word xor-ed with `byte` in every position.
    @inline(__always)
    @inlinable package static func marks(of byte: UInt8, in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let xored = word ^ (ones &* UInt64(byte))
        return (xored &- ones) & ~xored & 0x8080_8080_8080_8080
    }
}
