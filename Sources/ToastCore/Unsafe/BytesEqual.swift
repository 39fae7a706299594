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
}
