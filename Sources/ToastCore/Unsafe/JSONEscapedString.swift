extension JSONScanner {
    /// Decodes the string that starts at the scanner (after its opening quote) and holds an
    /// escape, moving past its closing quote. The text is decoded into a buffer as long as the
    /// rest of the line, on the stack when it is short (a growing array would cost an allocation
    /// or more and an append for every run and escape).
    ///
    /// Safe to use: what is written never outruns the buffer, since a run is copied byte for
    /// byte and an escape stands for fewer bytes than it takes (`\n`: 2 for 1, `\uXXXX`: 6 for
    /// at most 3, a surrogate pair: 12 for 4), so the bytes written never exceed the bytes
    /// read, which never exceed the rest of the line; each write is checked all the same.
    mutating func decodeEscapedString() throws -> String {
        let capacity = max(bytes.count - index, 4)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let target = buffer.baseAddress, let source = bytes.baseAddress else {
                throw JSONSyntaxError(message: "invalid JSON: unterminated string")
            }
            var count = 0
            while index < bytes.count {
                // The run up to the next quote, backslash or control character, copied whole.
                let special = UnsafeRawBufferPointer(bytes).firstJSONSpecialByte(from: index)
                let run = special - index
                precondition(count + run <= capacity, "a decoded string fits the rest of its line")
                (target + count).update(from: source + index, count: run)
                count += run
                index = special
                guard index < bytes.count else { break }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: UnsafeBufferPointer(start: target, count: count), as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let units = UTF8.encode(try parseEscape()) else {
                        throw JSONSyntaxError(message: "invalid JSON: bad \\u escape")
                    }
                    precondition(count + units.count <= capacity, "a decoded string fits the rest of its line")
                    for unit in units {
                        target[count] = unit
                        count += 1
                    }
                default:
                    throw controlCharacter(byte)
                }
            }
            throw JSONSyntaxError(message: "invalid JSON: unterminated string")
        }
    }
}
