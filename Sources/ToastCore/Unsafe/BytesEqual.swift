#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UnsafeRawBufferPointer {
    /// Whether the two hold the same bytes: one `memcmp` (a generic `elementsEqual` goes byte
    /// by byte). Safe for any two buffers, empty ones included.
    @inlinable
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard let base = baseAddress, let otherBase = other.baseAddress else { return true }
        return memcmp(base, otherBase, count) == 0
    }

    /// Whether every byte is ASCII (below 0x80): eight bytes at a time, the last few one by
    /// one. Safe for any buffer: a word is loaded only where eight bytes remain.
    @inlinable
    package var isASCII: Bool {
        guard let base = baseAddress else { return true }
        var offset = 0
        while offset + 8 <= count {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset &+= 8
        }
        while offset < count {
            if base.load(fromByteOffset: offset, as: UInt8.self) >= 0x80 { return false }
            offset &+= 1
        }
        return true
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the bytes (valid UTF-8) are text that no other text is canonically equivalent
    /// to: every scalar is one that normalization leaves alone whatever stands around it (no
    /// decomposition to another, combining class 0, never composed with the one before), so
    /// the text is its own NFC and two such texts are equal as Swift strings exactly when
    /// their bytes are. Answers false for any scalar outside a short list of blocks known to
    /// be such (ASCII and Latin-1 to Latin Extended-B, Greek and Cyrillic letters, kana and
    /// CJK ideographs without their combining marks, Hangul syllables, general punctuation
    /// without U+2000 and U+2001, arrows to dingbats, variation selectors, emoji): then the
    /// caller compares
    /// strings. Safe for any buffer: every read is inside it.
    package var isOwnNormalForm: Bool {
        guard let base = baseAddress else { return true }
        var offset = 0
        while offset < count {
            // ASCII eight bytes at a time where eight remain.
            if offset + 8 <= count, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                offset &+= 8
                continue
            }
            let lead = UInt32(base.load(fromByteOffset: offset, as: UInt8.self))
            if lead < 0x80 {
                offset &+= 1
                continue
            }
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard lead >= 0xC2, lead < 0xF5, offset + length <= count else { return false }
            var scalar = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for index in 1..<length {
                let byte = UInt32(base.load(fromByteOffset: offset + index, as: UInt8.self))
                guard byte & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | byte & 0x3F
            }
            guard Self.isNormalizationStable(scalar) else { return false }
            offset &+= length
        }
        return true
    }

    /// The scalars `isOwnNormalForm` accepts (see there); the ranges leave out every scalar
    /// with a combining class, a canonical decomposition to another scalar (the singletons
    /// U+0374, U+037E, U+0387, U+2000, U+2001, U+2126, U+212A, U+212B, U+2329, U+232A, U+2ADC,
    /// U+F900–U+FAFF) or a
    /// part as the second of a composition (U+0300–U+036F, U+3099, U+309A, Hangul jamo).
    private static func isNormalizationStable(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x80...0x2FF: true                         // Latin-1 to Latin Extended-B, IPA, modifiers
        case 0x388...0x3FF: true                        // Greek letters (after U+0387)
        case 0x400...0x482, 0x48A...0x4FF: true         // Cyrillic without its combining marks
        case 0x2002...0x206F: true                      // general punctuation after U+2000/U+2001
        case 0x2190...0x2328, 0x232B...0x2ADB, 0x2ADD...0x2BFF: true  // arrows to dingbats, without U+2329, U+232A, U+2ADC
        case 0x3000...0x3029, 0x3030...0x303F: true     // CJK punctuation without its tone marks
        case 0x3041...0x3096, 0x309B...0x30FF: true     // kana without the combining sound marks
        case 0x4E00...0x9FFF: true                      // CJK unified ideographs
        case 0xAC00...0xD7A3: true                      // Hangul syllables
        case 0xFE00...0xFE0F: true                      // variation selectors
        case 0x1F000...0x1FAFF: true                    // emoji and pictographs
        default: false
        }
    }
}
