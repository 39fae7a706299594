#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UnsafeRawBufferPointer {
    /// Whether the two hold the same bytes: one `memcmp` (a generic `elementsEqual` goes byte
    /// by byte, ten times slower on a dedup key). Safe for any two buffers, empty ones included.
    @inlinable
    @_spi(ToastInternals) public func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard let base = baseAddress, let otherBase = other.baseAddress else { return true }
        return memcmp(base, otherBase, count) == 0
    }

    /// Whether every byte is ASCII (below 0x80): eight bytes at a time, the last few one by
    /// one. Safe for any buffer: a word is loaded only where eight bytes remain.
    @inlinable
    @_spi(ToastInternals) public var isASCII: Bool {
        guard let base = baseAddress else { return true }
        var offset = 0
        while offset + 8 <= count {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset &+= 8
        }
        while offset < count {
            if base.load(fromByteOffset: offset, as: UInt8.self) >= 0x80 { return false }
            offset &+= 1
        }
        return true
    }
}
