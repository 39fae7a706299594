import ToastCore

/// The `String`s of values that repeat from line to line (`type`, `role`, `source`,
/// `placement`, `policy`, extra field names), kept so that a line naming one again gets the
/// same `String` back for a comparison of its bytes instead of a new one (made and checked
/// for valid UTF-8 again for every line).
///
/// A small table with one `String` a slot, found by the value's length and bytes; a value that
/// finds its slot holding another one takes it over. A slot keeps its value's bytes as two
/// words (values of at most 16 bytes, nearly all of them), so that finding one is a few
/// comparisons of integers, not a look at the string's bytes and a `memcmp` call. Work and
/// memory stay bounded whatever the input: a line of values that never repeat costs a
/// comparison more a value.
///
/// Safe for any bytes: the words of a value are read only for values of at most 16 bytes,
/// within their count, and a kept value is a `String` of its own.
struct StringInterner {
    private struct Slot {
        /// The value's bytes as `shortTextWords` gives them; `count` is -1 in an empty slot.
        var words: (UInt64, UInt64) = (0, 0)
        var count = -1
        var string = ""
    }

    private var slots = [Slot](repeating: Slot(), count: 64)
    /// Longer values are made as they come (they rarely repeat, and take longer to compare).
    static let longestKept = 2 * MemoryLayout<UInt64>.size

    /// The `String` of the UTF-8 `bytes` (valid, as the whole line was checked).
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        guard count > 0, count <= Self.longestKept, let base = bytes.baseAddress else {
            return String(decoding: bytes, as: UTF8.self)
        }
        let words = UnsafeRawPointer(base).shortTextWords(count: count)
        let mix = (words.0 ^ words.1 &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9 ^ UInt64(count)
        let slot = Int(truncatingIfNeeded: mix >> 58) & (slots.count - 1)
        return slots.withUnsafeMutableBufferPointer { slots in
            if slots[slot].count == count && slots[slot].words == words { return slots[slot].string }
            let made = String(decoding: bytes, as: UTF8.self)
            slots[slot] = Slot(words: words, count: count, string: made)
            return made
        }
    }
}
