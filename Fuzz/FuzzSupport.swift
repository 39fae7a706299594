// What the fuzz targets check on output, shared by both (compiled into each fuzz binary).

/// One record line is a strict JSON object followed by a newline.
/// Returns its members.
@discardableResult
func checkJSONLine(_ line: [UInt8]) -> [JSONMember] {
    precondition(line.last == 0x0A, "a record ends with a newline")
    return line.withUnsafeBufferPointer { buffer in
        let body = UnsafeBufferPointer(rebasing: buffer[0..<(buffer.count - 1)])
        precondition(isValidUTF8(body), "a record is valid UTF-8")
        var scanner = JSONScanner(body)
        guard case .some(.object(let members)) = try? scanner.parseValue(), scanner.isAtEnd else {
            preconditionFailure("a record is one JSON object: \(String(decoding: body, as: UTF8.self))")
        }
        return members
    }
}
