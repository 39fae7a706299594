extension Array where Element == UInt8 {
    /// Appends a string's UTF-8 bytes in one copy (the generic `append(contentsOf:)` walks a
    /// string's UTF-8 view byte by byte).
    mutating func appendUTF8(_ text: String) {
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) { return done }
        append(contentsOf: Array(text.utf8))
    }

    /// Appends a literal's bytes.
    mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
