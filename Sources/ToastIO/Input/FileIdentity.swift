/// Which file an input is, as a `--state` keeps it (docs/service.md, "The input is the one the
/// state was reading"): its device and inode, and the length and checksum of its first bytes
/// (up to 4 KiB). A restart compares the same number of first bytes, so a file that grew is the
/// same file; a file whose first bytes differ is another, whatever its inode (a log rewritten
/// in place), and one with the same first bytes is the same, whatever its inode (a copy put
/// back from a backup).
package struct FileIdentity: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    /// How many first bytes the checksum covers: min(4 KiB, the file's length then).
    package var sampledLength: Int
    /// FNV-1a, 64 bits, of those bytes: stable across processes and machines.
    package var checksum: UInt64

    package static let sampleLimit = 4096

    package init(device: UInt64, inode: UInt64, sampledLength: Int, checksum: UInt64) {
        self.device = device
        self.inode = inode
        self.sampledLength = sampledLength
        self.checksum = checksum
    }

    /// The identity of the regular file `source` reads; nil for anything else.
    package init?(of source: FileDescriptorSource) {
        guard let (device, inode) = source.deviceAndInode, let size = source.size,
              let sample = source.firstBytes(Int(min(Int64(Self.sampleLimit), size))) else { return nil }
        self.init(device: device, inode: inode, sampledLength: sample.count, checksum: Self.checksum(sample))
    }

    /// Why `source` is not this file, in words for a message ("another inode and other first
    /// bytes"); nil when it is (its first `sampledLength` bytes are the same).
    package func difference(from source: FileDescriptorSource) -> String? {
        let sample = source.firstBytes(sampledLength) ?? []
        guard sample.count != sampledLength || Self.checksum(sample) != checksum else { return nil }
        let sameInode = source.deviceAndInode.map { $0 == (device, inode) } ?? false
        // What was seen, not a guess at why: an inode may be a new file's that took a deleted one's number.
        let bytes = sample.count < sampledLength ? "fewer than its \(sampledLength) first bytes" : "other first bytes"
        return sameInode ? "the same inode, but \(bytes)" : "another inode and \(bytes)"
    }

    /// FNV-1a of `bytes`. Inlinable: a generic function called from another module would
    /// otherwise read its bytes one unspecialized call at a time.
    @inlinable
    package static func checksum(_ bytes: some Collection<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
