// Safe to use: the key's bytes are lent only for the call of `body`, from the string's own
// storage or from a local buffer that outlives the call.
extension ScreenKey {
    /// `body` with the key as bytes, for a byte-keyed table: a string's UTF-8 bytes, an integer
    /// as the byte 0xFF and its eight bytes (no UTF-8 text holds 0xFF, so the two never meet).
    package func withKeyBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch self {
        case .text(let text): return text.withUTF8Bytes(body)
        case .integer(let integer):
            var key: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &key) { buffer in
                buffer[0] = 0xFF
                buffer.storeBytes(of: integer.littleEndian, toByteOffset: 1, as: Int64.self)
                return body(UnsafeRawBufferPointer(rebasing: buffer[0..<9]))
            }
        }
    }
}
