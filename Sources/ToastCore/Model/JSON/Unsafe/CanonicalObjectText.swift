extension JSONText {
    /// Whether the text of a checked JSON object is exactly what `appendObject` writes for its
    /// members, so that a record can copy it as it is instead of reading and writing it again
    /// (a toast's extra fields keep the bytes of their input line; in most lines they are
    /// written like `{"level":"debug","n":3,"build":{"ok":true}}` already).
    ///
    /// True when there is no space outside the strings, no name or string holds an escape,
    /// every value is such a string, `true`, `false`, `null`, a whole number of at most 18
    /// digits (not `-0`), or an array or object of such values (at most `canonicalDepth`
    /// levels in all), and no name comes twice in one object (reading merges them). Anything
    /// else (a fraction, an exponent, an object with more than `canonicalMembersChecked`
    /// members) says no, and the record writes the members again.
    ///
    /// Safe for any buffer: every index is checked against `text.count` (or an `end` the caller
    /// took from the checked text) before it is read.
    package static func isCanonicalObject(_ text: UnsafeRawBufferPointer) -> Bool {
        // `{}`: the record leaves `extra` out.
        guard text.count > 2, text[0] == UInt8(ascii: "{") else { return false }
        return canonicalObjectEnd(in: text, at: 0, depth: 1) == text.count
    }

    /// Whether the checked member from `start` (its name's opening quote; a name of
    /// `nameCount` bytes without escapes) to `end` is written as `appendObject` writes it: the
    /// name, a colon and a value `isCanonicalObject` accepts, nothing between. The decoder asks
    /// it of each extra member it copies, so that a record need not look again (names twice it
    /// checks itself); `plainString`: the value is known to be a string without escapes.
    @inlinable
    package static func isCanonicalMember(_ text: UnsafeRawBufferPointer, start: Int, nameCount: Int,
                                                               end: Int, plainString: Bool) -> Bool {
        let colon = start + nameCount + 2
        guard colon + 1 < end, text[colon] == UInt8(ascii: ":") else { return false }
        // A plain string ends where the member does; it must start right after the colon.
        if plainString { return text[colon + 1] == UInt8(ascii: "\"") }
        return isCanonicalValue(text, from: colon + 1, to: end)
    }

    /// Whether the checked value from `start` to `end` is one `isCanonicalObject` accepts.
    @usableFromInline static func isCanonicalValue(_ text: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Bool {
        canonicalValueEnd(in: text, at: start, depth: 1) == end
    }

    /// Members looked at for duplicate names in one object; an object with more is written again.
    package static let canonicalMembersChecked = 8

    /// Levels of objects and arrays a copied text may have, the outer object included.
    static let canonicalDepth = 4

    /// Where the canonical object starting at `index` (at its `{`) ends, past its `}`.
    private static func canonicalObjectEnd(in text: UnsafeRawBufferPointer, at start: Int, depth: Int) -> Int? {
        guard depth <= canonicalDepth else { return nil }
        var index = start + 1
        guard index < text.count else { return nil }
        if text[index] == UInt8(ascii: "}") { return index + 1 }
        // The names so far, for the duplicate check, kept on the stack.
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: canonicalMembersChecked) { names -> Int? in
            var members = 0
            while true {
                guard members < canonicalMembersChecked, let name = plainString(in: text, at: index),
                      name.upperBound + 1 < text.count, text[name.upperBound + 1] == UInt8(ascii: ":") else { return nil }
                let bytes = UnsafeRawBufferPointer(rebasing: text[name])
                for earlier in names[0..<members] where earlier.count == name.count {
                    if UnsafeRawBufferPointer(rebasing: text[earlier]).hasSameBytes(as: bytes) { return nil }
                }
                names[members] = name
                members += 1
                guard let valueEnd = canonicalValueEnd(in: text, at: name.upperBound + 2, depth: depth),
                      valueEnd < text.count else { return nil }
                switch text[valueEnd] {
                case UInt8(ascii: ","): index = valueEnd + 1
                case UInt8(ascii: "}"): return valueEnd + 1
                default: return nil
                }
            }
        }
    }

    /// Where the canonical array starting at `index` (at its `[`) ends, past its `]`.
    private static func canonicalArrayEnd(in text: UnsafeRawBufferPointer, at start: Int, depth: Int) -> Int? {
        guard depth <= canonicalDepth else { return nil }
        var index = start + 1
        guard index < text.count else { return nil }
        if text[index] == UInt8(ascii: "]") { return index + 1 }
        while true {
            guard let valueEnd = canonicalValueEnd(in: text, at: index, depth: depth), valueEnd < text.count else { return nil }
            switch text[valueEnd] {
            case UInt8(ascii: ","): index = valueEnd + 1
            case UInt8(ascii: "]"): return valueEnd + 1
            default: return nil
            }
        }
    }

    /// The range between the quotes of a string without escapes starting at `index`.
    private static func plainString(in text: UnsafeRawBufferPointer, at index: Int) -> Range<Int>? {
        guard index < text.count, text[index] == UInt8(ascii: "\"") else { return nil }
        let close = text.firstJSONSpecialByte(from: index + 1)
        guard close < text.count, text[close] == UInt8(ascii: "\"") else { return nil }
        return (index + 1)..<close
    }

    /// Where a value written as `appendValue` writes it ends, if the value at `index` (inside
    /// `depth` levels) is one of the kinds `isCanonicalObject` accepts.
    private static func canonicalValueEnd(in text: UnsafeRawBufferPointer, at index: Int, depth: Int) -> Int? {
        guard index < text.count else { return nil }
        switch text[index] {
        case UInt8(ascii: "\""):
            return plainString(in: text, at: index).map { $0.upperBound + 1 }
        case UInt8(ascii: "t"): return index + 4  // a checked `true`
        case UInt8(ascii: "f"): return index + 5  // `false`
        case UInt8(ascii: "n"): return index + 4  // `null`
        case UInt8(ascii: "{"): return canonicalObjectEnd(in: text, at: index, depth: depth + 1)
        case UInt8(ascii: "["): return canonicalArrayEnd(in: text, at: index, depth: depth + 1)
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
