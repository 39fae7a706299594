#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore

/// Where encoded records go. Writes that fail are remembered, not thrown, so the pipeline
/// never unwinds mid-step; the run checks `failure` between events.
///
/// Safe to use: a write reads only the `bytes.count` bytes it is lent, and keeps no pointer to
/// them after it returns.
package protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer)
    /// Pushes everything written so far to its destination (and to disk, where asked).
    func flush()
    /// The first failure, if any; later writes are ignored.
    var failure: SinkFailure? { get }
}

package enum SinkFailure: Equatable, Sendable {
    /// The reader went away (`| head -1`): a quiet end, not an error.
    case closedPipe
    /// A write failed, with the system's reason.
    case writeFailed(String)
}

/// A sink on a file descriptor: stdout, or a file opened for appending.
package final class FileDescriptorSink: ByteSink {
    package let fd: Int32
    /// The path for messages (`<stdout>` for standard output).
    package let name: String
    private let syncToDisk: Bool
    private let ownsDescriptor: Bool
    /// Whether the disk is asked to start writing what was written, every `writebackStep`
    /// bytes: a file that a checkpoint syncs then has little left to wait for.
    private let startsWriteback: Bool
    private var writtenSinceWriteback = 0
    private static let writebackStep = 8 << 20
    package private(set) var failure: SinkFailure?

    init(fd: Int32, name: String, syncToDisk: Bool, ownsDescriptor: Bool, startsWriteback: Bool = false) {
        self.fd = fd
        self.name = name
        self.syncToDisk = syncToDisk
        self.ownsDescriptor = ownsDescriptor
        self.startsWriteback = startsWriteback
    }

    package static func standardOutput() -> FileDescriptorSink {
        FileDescriptorSink(fd: STDOUT_FILENO, name: "<stdout>", syncToDisk: false, ownsDescriptor: false)
    }

    package static func standardError() -> FileDescriptorSink {
        FileDescriptorSink(fd: STDERR_FILENO, name: "<stderr>", syncToDisk: false, ownsDescriptor: false)
    }

    /// Opens `path` for appending (creating it), or throws with the system's reason.
    /// `synced`: checkpoints sync the file (`--state`), so its writing to disk starts as it
    /// grows rather than all at the next sync.
    package static func appending(to path: String, fsync: Bool, synced: Bool = false) throws -> FileDescriptorSink {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw FileOpenError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return FileDescriptorSink(fd: fd, name: path, syncToDisk: fsync, ownsDescriptor: true, startsWriteback: synced)
    }

    /// Creates `path` empty (replacing a file there) for writing, or throws with the system's reason.
    package static func replacing(_ path: String) throws -> FileDescriptorSink {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw FileOpenError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return FileDescriptorSink(fd: fd, name: path, syncToDisk: false, ownsDescriptor: true)
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Whether the descriptor is a terminal (for `--color auto`).
    package var isTerminal: Bool { isatty(fd) == 1 }

    package func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(fd, next, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno == EPIPE ? .closedPipe : .writeFailed("\(name): \(String(cString: strerror(errno)))")
                return
            }
            remaining -= written
            next += written
        }
        guard startsWriteback else { return }
        writtenSinceWriteback += bytes.count
        if writtenSinceWriteback >= Self.writebackStep {
            writtenSinceWriteback = 0
            // Linux starts writing the file's dirty pages and returns (and lets go of those
            // already on disk). A hint: a failure here is the next sync's to report.
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        }
    }

    package func flush() {
        guard syncToDisk else { return }
        sync()
    }

    /// Pushes everything written so far to disk, `--fsync` or not (the state file of `--state`).
    package func sync() {
        guard failure == nil else { return }
        if fsync(fd) != 0 && errno != EINVAL {
            failure = .writeFailed("\(name): \(String(cString: strerror(errno)))")
        }
    }

    /// The length of the file written to (nil: not a regular file).
    package var length: Int64? { regularFileLength(fd) }

    /// Cuts the file back to `length` bytes (a restart, dropping what the last checkpoint did
    /// not count); false with the system's reason when it cannot.
    package func truncate(to length: Int64) -> String? {
        guard ftruncate(fd, off_t(length)) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }
}

extension ByteSink {
    /// Writes the UTF-8 bytes of `text`.
    package func write(_ text: String) {
        text.withUTF8Bytes { write($0) }
    }

    package func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }
}

/// A sink that keeps everything in memory: for tests and for embedding.
public final class MemorySink: ByteSink {
    public private(set) var bytes: [UInt8] = []
    package private(set) var failure: SinkFailure?

    public init() {}

    package func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }

    package func flush() {}

    /// What was written, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// The length of the regular file open on `fd`; nil for anything else (a pipe, a terminal, a
/// device), which has no length to count or cut back.
package func regularFileLength(_ fd: Int32) -> Int64? {
    var status = stat()
    guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(status.st_size)
}
