extension JSONText {
    /// Whether the text of a checked JSON object is exactly what `appendObject` writes for its
    /// members, so that a record can copy it as it is instead of reading and writing it again
    /// (a toast's extra fields keep the bytes of their input line; in most lines they are
    /// written like `{"level":"debug","n":3}` already).
    ///
    /// True when there is no space outside the strings, no name or string holds an escape,
    /// every value is such a string, `true`, `false`, `null` or a whole number of at most 18
    /// digits (not `-0`), and no name comes twice (`appendObject` would write the members
    /// merged). Anything else (a fraction, an exponent, an array or object, more than
    /// `canonicalMembersChecked` members) says no, and the record writes the members again.
    package static func isCanonicalObject(_ text: UnsafeRawBufferPointer) -> Bool {
        let end = text.count
        guard end >= 2, text[0] == UInt8(ascii: "{"), text[end - 1] == UInt8(ascii: "}") else { return false }
        if end == 2 { return false }  // `{}`: the record leaves `extra` out
        var index = 1
        var members = 0
        while true {
            guard let name = plainString(in: text, at: index), name.upperBound + 1 < end,
                  text[name.upperBound + 1] == UInt8(ascii: ":") else { return false }
            members += 1
            guard members <= canonicalMembersChecked, !hasName(name, in: text, before: index) else { return false }
            index = name.upperBound + 2
            guard let valueEnd = canonicalValueEnd(in: text, at: index), valueEnd < end else { return false }
            switch text[valueEnd] {
            case UInt8(ascii: ","): index = valueEnd + 1
            case UInt8(ascii: "}"): return valueEnd == end - 1
            default: return false
            }
        }
    }

    /// Members looked at for duplicate names; an object with more is written again.
    static let canonicalMembersChecked = 8

    /// Whether a member before `limit` (where the member named `name` starts) has that name.
    private static func hasName(_ name: Range<Int>, in text: UnsafeRawBufferPointer, before limit: Int) -> Bool {
        let wanted = UnsafeRawBufferPointer(rebasing: text[name])
        var index = 1
        while index < limit {
            guard let earlier = plainString(in: text, at: index),
                  let valueEnd = canonicalValueEnd(in: text, at: earlier.upperBound + 2) else { return false }
            if earlier.count == name.count && UnsafeRawBufferPointer(rebasing: text[earlier]).hasSameBytes(as: wanted) {
                return true
            }
            index = valueEnd + 1
        }
        return false
    }

    /// The range between the quotes of a string without escapes starting at `index`.
    private static func plainString(in text: UnsafeRawBufferPointer, at index: Int) -> Range<Int>? {
        guard index < text.count, text[index] == UInt8(ascii: "\"") else { return nil }
        let close = text.firstJSONSpecialByte(from: index + 1)
        guard close < text.count, text[close] == UInt8(ascii: "\"") else { return nil }
        return (index + 1)..<close
    }

    /// Where a value written as `appendValue` writes it ends, if the value at `index` is one
    /// of the kinds `isCanonicalObject` accepts.
    private static func canonicalValueEnd(in text: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard index < text.count else { return nil }
        switch text[index] {
        case UInt8(ascii: "\""):
            return plainString(in: text, at: index).map { $0.upperBound + 1 }
        case UInt8(ascii: "t"): return index + 4  // a checked `true`
        case UInt8(ascii: "f"): return index + 5  // `false`
        case UInt8(ascii: "n"): return index + 4  // `null`
        default:
            let negative = text[index] == UInt8(ascii: "-")
            let start = negative ? index + 1 : index
            var end = start
            while end < text.count, text[end] >= UInt8(ascii: "0"), text[end] <= UInt8(ascii: "9") { end += 1 }
            let digits = end - start
            guard digits > 0, digits <= 18 else { return nil }
            // A leading zero can only be a lone `0` in checked JSON; `-0` is written `0`.
            if text[start] == UInt8(ascii: "0") && negative { return nil }
            return end
        }
    }
}
