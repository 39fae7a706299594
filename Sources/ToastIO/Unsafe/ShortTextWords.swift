extension UnsafeRawPointer {
    /// The bytes of a short text (1 to 16 of them) as two words, to compare texts as integers
    /// (`StringInterner`): for 8 or more, the first eight and the last eight (overlapping below
    /// 16; with the count they give every byte); for fewer, the bytes in the first word and
    /// zeros.
    ///
    /// Safe to use: every load lies inside the `count` bytes at `self`, which the caller has
    /// (1 to 16: checked; below 8 the loads of four, two and one bytes add up to exactly the
    /// count).
    func shortTextWords(count: Int) -> (UInt64, UInt64) {
        precondition(count > 0 && count <= 16, "a short text")
        let base = self
        if count >= 8 {
            return (base.loadUnaligned(as: UInt64.self), base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        var word: UInt64 = 0
        var at = 0
        if count & 4 != 0 {
            word = UInt64(base.loadUnaligned(as: UInt32.self))
            at = 4
        }
        if count & 2 != 0 {
            word |= UInt64(base.loadUnaligned(fromByteOffset: at, as: UInt16.self)) << (8 * at)
            at += 2
        }
        if count & 1 != 0 { word |= UInt64(base.load(fromByteOffset: at, as: UInt8.self)) << (8 * at) }
        return (word, 0)
    }
}
