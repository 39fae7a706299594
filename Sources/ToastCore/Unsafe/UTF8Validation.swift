/// Whether `bytes` are well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
///
/// Every input line is checked once, so the JSON scanner can build strings without checking again
/// (docs/events.md: a line that is not valid UTF-8 is rejected).
///
/// Safe to use: a word is loaded only where eight bytes remain, and every other read is an
/// index checked against `count`.
package func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    let count = bytes.count
    while index < count {
        // ASCII runs, eight bytes at a time.
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        guard index < count else { return true }
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        guard let (length, secondRange) = utf8Sequence(leadingWith: lead), index + length <= count,
              secondRange.contains(bytes[index + 1]) else { return false }
        var continuation = 2
        while continuation < length {
            guard bytes[index + continuation] & 0xC0 == 0x80 else { return false }
            continuation += 1
        }
        index += length
    }
    return true
}

/// What a UTF-8 lead byte announces: the sequence's length and the range its second byte must
/// be in (which rules out overlongs, surrogates and code points past U+10FFFF); nil for a byte
/// that cannot lead a multi-byte sequence.
@inline(__always)
package func utf8Sequence(leadingWith lead: UInt8) -> (length: Int, second: ClosedRange<UInt8>)? {
    switch lead {
    case 0xC2...0xDF: return (2, 0x80...0xBF)
    case 0xE0: return (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: return (3, 0x80...0xBF)
    case 0xED: return (3, 0x80...0x9F)
    case 0xF0: return (4, 0x90...0xBF)
    case 0xF1...0xF3: return (4, 0x80...0xBF)
    case 0xF4: return (4, 0x80...0x8F)
    default: return nil
    }
}
