/// Something bytes are appended to: the record buffer encoders write into, or a byte array
/// (dedup keys, tests). `JSONText` and `StreamTime` write to either.
///
/// Safe for any buffer: `append` copies the bytes it is lent before it returns and keeps no
/// pointer; a `StaticString`'s bytes are read while it is in hand.
@usableFromInline package protocol ByteOutput: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension Array: ByteOutput where Element == UInt8 {
    @inlinable package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }
}

extension ByteOutput where Self: ~Copyable {
    /// Appends a string's UTF-8 bytes in one copy (a string's UTF-8 view would go byte by byte).
    @inlinable
    package mutating func appendUTF8(_ text: String) {
        text.withUTF8Bytes { append($0) }
    }

    /// Appends a literal's bytes: a literal of several characters straight from its pointer
    /// (a record is some twenty literals, and `withUTF8Buffer` was a call with checks for each),
    /// a one-scalar literal, which has no pointer, through `withUTF8Buffer`.
    @inlinable @inline(__always)
    package mutating func appendLiteral(_ text: StaticString) {
        if text.hasPointerRepresentation {
            append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        } else {
            text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
        }
    }
}
