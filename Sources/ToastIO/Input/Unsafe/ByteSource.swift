#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore

/// Where input bytes come from: a file descriptor (stdin, `--events FILE`) or memory.
///
/// Safe to use: a read writes at most `buffer.count` bytes into the buffer it is lent, and
/// keeps no pointer to it after it returns.
package protocol ByteSource: AnyObject {
    /// Reads into `buffer`: the count read, 0 at the end, or a failure.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome
    /// Waits until a read would not block, at most `milliseconds` (-1: no limit), or until one
    /// of `wakeDescriptors` (-1s are ignored) becomes readable: how a signal, or a click on the
    /// desktop, ends the wait at once.
    func waitUntilReadable(milliseconds: Int32, wakeDescriptors: [Int32]) -> WaitOutcome
    /// Whether a read now would have to wait for more input.
    var wouldBlock: Bool { get }
    /// Whether this is a regular file, which never makes a read wait (a recorded log).
    var isRegularFile: Bool { get }
    /// Whether the input is live: a pipe, a FIFO, a socket or a terminal, where a read waits
    /// for what is yet to be written (a device such as /dev/null, or memory, is not).
    var isLive: Bool { get }
}

extension ByteSource {
    /// Reads into `bytes`, at most its count (what a `.bytes` outcome counts is at its start).
    package func read(into bytes: inout [UInt8]) -> ReadOutcome {
        bytes.withUnsafeMutableBytes { read(into: $0) }
    }

    /// Everything left to read; nil when a read fails, or when it is interrupted and
    /// `givesUp` says so (a signal that ends the run).
    package func readAll(givesUp: () -> Bool = { false }) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            switch read(into: &chunk) {
            case .bytes(let count): bytes += chunk[..<count]
            case .end: return bytes
            case .interrupted: if givesUp() { return nil }
            case .failed: return nil
            }
        }
    }
}

extension ByteSource {
    package var isRegularFile: Bool { false }
    package var isLive: Bool { false }
}

package enum WaitOutcome: Equatable {
    case readable
    case timedOut
    /// The wake descriptor became readable, or a signal ended the wait.
    case woken
}

package enum ReadOutcome: Equatable {
    case bytes(Int)
    case end
    /// A signal arrived while waiting.
    case interrupted
    case failed(String)
}

/// Input from a file descriptor.
package final class FileDescriptorSource: ByteSource {
    package let fd: Int32
    private let ownsDescriptor: Bool

    package init(fd: Int32, ownsDescriptor: Bool = false) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
    }

    /// Opens `path` for reading, or throws with the system's reason.
    package static func opening(_ path: String) throws -> FileDescriptorSource {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileOpenError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return FileDescriptorSource(fd: fd, ownsDescriptor: true)
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .end }
        if errno == EINTR || errno == EAGAIN { return .interrupted }
        return .failed(String(cString: strerror(errno)))
    }

    package func waitUntilReadable(milliseconds: Int32, wakeDescriptors: [Int32]) -> WaitOutcome {
        var requests = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            + wakeDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&requests, nfds_t(requests.count), milliseconds)
        if ready < 0 { return errno == EINTR ? .woken : .readable }  // another failure: the read reports it
        if ready == 0 { return .timedOut }
        if requests.dropFirst().contains(where: { $0.revents != 0 }) { return .woken }
        return .readable
    }

    package var wouldBlock: Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, 0) == 0
    }

    package var isRegularFile: Bool { size != nil }

    /// The file's size, for a regular file.
    package var size: Int64? { regularFileLength(fd) }

    /// Moves to `offset` from the start (a restart reading on); false when the descriptor
    /// cannot seek.
    package func seek(to offset: Int64) -> Bool {
        lseek(fd, off_t(offset), SEEK_SET) == off_t(offset)
    }

    /// The file's device and inode, for a regular file.
    package var deviceAndInode: (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// Up to `count` bytes from the file's start, read without moving the offset; nil when
    /// they cannot be read.
    package func firstBytes(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            // Into the part not yet filled: at most the bytes left in the buffer.
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(fd, base + filled, buffer.count - filled, off_t(filled))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return nil }
            if got == 0 { break }
            filled += got
        }
        return filled == bytes.count ? bytes : Array(bytes[..<filled])
    }

    package var isLive: Bool {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || isatty(fd) == 1
    }
}

/// Input held in memory: for tests and embedding.
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        guard offset < bytes.count else { return .end }
        let count = min(buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
        }
        offset += count
        return .bytes(count)
    }

    package func waitUntilReadable(milliseconds: Int32, wakeDescriptors: [Int32]) -> WaitOutcome { .readable }

    public var wouldBlock: Bool { false }
}
