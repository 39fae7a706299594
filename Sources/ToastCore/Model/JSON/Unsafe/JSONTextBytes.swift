// Safe for any buffer: every run it appends lies within `bytes` (`firstJSONSpecialByte`
// answers at most `bytes.count`), and it keeps no pointer.
extension JSONText {
    /// Appends what goes between the quotes of a JSON string holding the UTF-8 `bytes`.
    @inlinable package static func appendEscaped<Out: ByteOutput & ~Copyable>(_ bytes: UnsafeRawBufferPointer, to out: inout Out) {
        var runStart = 0
        var index = bytes.firstJSONSpecialByte(from: 0)
        while index < bytes.count {
            let byte = bytes[index]
            out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            runStart = index + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                out.appendLiteral("u00")
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            }
            index = bytes.firstJSONSpecialByte(from: runStart)
        }
        out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
}
