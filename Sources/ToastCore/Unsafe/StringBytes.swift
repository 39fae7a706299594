extension String {
    /// Calls `body` with the string's UTF-8 bytes, valid only inside it: a native string lends
    /// them without a copy (`withUTF8` would need a mutable copy of the string first); others
    /// (bridged) are made native. Safe as long as `body` does not keep the pointer.
    @inlinable @inline(__always)
    package func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var native = self
        return try native.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
