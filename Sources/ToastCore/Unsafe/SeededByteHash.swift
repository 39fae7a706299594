/// The hash of the dedup and rate-limit keys (`ByteKeyTable`): eight bytes at a time, each word
/// mixed in with one 64 × 64 → 128-bit multiplication whose halves are folded together, under
/// keys drawn at random once a process (from Swift's `Hasher`, itself seeded at random). Input
/// that does not know the keys cannot make its keys collide, and a key costs one multiplication
/// a word where `Hasher` (SipHash-1-3) runs its rounds over every word.
///
/// Unsafe only in reading: words are loaded unaligned from the borrowed bytes, the last partial
/// one as the last eight bytes (overlapping the word before; the length is mixed in first) or,
/// in a key shorter than a word, byte by byte, so nothing past `bytes.count` is read.
enum SeededByteHash {
    private static let keys: (UInt64, UInt64, UInt64) = {
        func draw(_ salt: Int) -> UInt64 {
            var hasher = Hasher()
            hasher.combine(salt)
            return UInt64(UInt(bitPattern: hasher.finalize()))
        }
        // The multiplier must not be zero, or every word would vanish in it.
        return (draw(1), draw(2) | 1, draw(3))
    }()

    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        let (start, multiplier, finish) = keys
        let count = bytes.count
        var state = start ^ UInt64(count)
        var offset = 0
        if let base = bytes.baseAddress {
            while offset + 8 <= count {
                state = fold(state ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self), multiplier)
                offset += 8
            }
            if offset < count {
                var last: UInt64 = 0
                if count >= 8 {
                    last = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                } else {
                    for index in 0..<count { last |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << (8 * index) }
                }
                state = fold(state ^ last, multiplier)
            }
        }
        return Int(bitPattern: UInt(fold(state ^ finish, multiplier)))
    }

    /// The high and low halves of the full product, folded: every bit of either factor moves
    /// many bits of the result.
    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }
}
