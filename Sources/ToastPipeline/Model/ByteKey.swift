/// Bytes as a dictionary key, hashed and compared byte for byte. Dedup keys and rate-limit
/// groups use it: Swift's `String` hashes by Unicode canonical equivalence, which costs a
/// normalization per lookup; field values here are compared exactly as they were written.
public struct ByteKey: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
