import ToastCore

/// Text from the input made safe to put in front of a person (docs/events.md).
///
/// Anyone who can write one line into a watched log must not be able to move the cursor, clear
/// the screen, ring the bell, change the window title or reorder what the reader sees. So every
/// character that a terminal or a screen reader acts on instead of showing is written as a
/// visible escape: C0 controls (`\n`, `\r`, `\t`, else `\u001b` and the like), DEL, C1 controls
/// (U+0080–U+009F), the bidi embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029). Everything else,
/// emoji and every script included, passes unchanged. A backslash is left as it is.
package enum TerminalText {
    /// `text` with every unsafe character escaped; `text` itself when it has none (most do).
    /// `keepingTabs` leaves tabs raw (they separate the fields of a script's `log` line).
    package static func escaped(_ text: String, keepingTabs: Bool = false) -> String {
        guard needsEscaping(text) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) && !(keepingTabs && scalar == "\t") {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A quick look at the bytes: only lines holding a C0 byte, DEL or the lead bytes of the
    /// unsafe ranges (0xC2 for C1, 0xE2 for U+2028–U+2069) need the slow path.
    static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }
        } && text.unicodeScalars.contains(where: isUnsafe)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028...0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }
}
