/// Something bytes are appended to: the record buffer encoders write into, or a byte array
/// (dedup keys, tests). `JSONText` and `StreamTime` write to either.
@_spi(ToastInternals) public protocol ByteOutput: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

@_spi(ToastInternals) extension Array: ByteOutput where Element == UInt8 {
    @_spi(ToastInternals) public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }
}

extension ByteOutput where Self: ~Copyable {
    /// Appends a string's UTF-8 bytes in one copy (a string's UTF-8 view would go byte by byte).
    @inlinable
    @_spi(ToastInternals) public mutating func appendUTF8(_ text: String) {
        text.withUTF8Bytes { append($0) }
    }

    /// Appends a literal's bytes.
    @inlinable
    @_spi(ToastInternals) public mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }
}
