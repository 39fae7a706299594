@_spi(ToastInternals) import ToastCore

/// The `String`s of values that repeat from line to line (`type`, `role`, `source`,
/// `placement`, `policy`, extra field names), kept so that a line naming one again gets the
/// same `String` back for a comparison of its bytes instead of a new one (made and checked
/// for valid UTF-8 again for every line).
///
/// A small table with one `String` a slot, found by the value's length and a few of its bytes;
/// a value that finds its slot holding another one takes it over. Work and memory stay bounded
/// whatever the input: a line of values that never repeat costs a comparison more a value.
struct StringInterner {
    private var slots = [String?](repeating: nil, count: 64)
    /// Longer values are made as they come (they rarely repeat, and take longer to compare).
    static let longestKept = 32

    /// The `String` of the UTF-8 `bytes` (valid, as the whole line was checked).
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        guard count > 0, count <= Self.longestKept else { return String(decoding: bytes, as: UTF8.self) }
        let mix = count &* 31 &+ Int(bytes[0]) &* 7 &+ Int(bytes[count - 1]) &* 3 &+ Int(bytes[count / 2])
        let slot = mix & (slots.count - 1)
        if let kept = slots[slot], kept.utf8.count == count,
           kept.withUTF8Bytes({ $0.hasSameBytes(as: UnsafeRawBufferPointer(bytes)) }) {
            return kept
        }
        let made = String(decoding: bytes, as: UTF8.self)
        slots[slot] = made
        return made
    }
}
