import ToastCore

/// Tells a binary file from text by its opening bytes, so `toastscript < image.png` stops with
/// one message instead of thousands of rejected "lines" (docs/events.md).
///
/// Bytes that no text holds count against it: NUL, the C0 controls other than tab, newline,
/// vertical tab, form feed, carriage return and escape, and every byte of an invalid UTF-8
/// sequence. Text has next to none; executables, images and compressed files have a third or
/// more (random bytes about half), so the line is drawn at 30 % of the bytes looked at.
///
/// Safe for any buffer: every index is checked against its count before it is read.
package enum BinaryInputCheck {
    /// How much of the input is looked at: the first 64 KiB, or less when that is all there is.
    package static let openingBytes = 1 << 16

    package static func looksBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return false }
        var bad = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte < 0x20 && !(0x09...0x0D).contains(byte) && byte != 0x1B { bad += 1 }
                index += 1
                continue
            }
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                bad += 1
                index += 1
            } else {
                index += length
            }
        }
        return bad * 10 >= count * 3
    }

    /// The length of the valid UTF-8 sequence starting at `index`, 0 when there is none (a
    /// sequence cut off at the end of the bytes counts as valid: the opening may end inside one).
    private static func validSequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        guard let (length, secondRange) = utf8Sequence(leadingWith: bytes[index]) else { return 0 }
        let available = min(length, bytes.count - index)
        for offset in 1..<available {
            let byte = bytes[index + offset]
            guard offset == 1 ? secondRange.contains(byte) : (0x80...0xBF).contains(byte) else { return 0 }
        }
        return available
    }
}
