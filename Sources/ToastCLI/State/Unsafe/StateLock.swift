#if canImport(Glibc)
import Glibc
#endif

/// The one-writer rule of a state (docs/service.md, "One run at a time"): a run holds an
/// exclusive `flock` on `STATE.lock` for its whole life, and the file holds the process id, so
/// that a second run on the same state stops at once naming the first, before it reads,
/// writes or empties anything. The lock goes with the process (the kernel releases it on any
/// exit, SIGKILL included), so a crashed run never leaves a state locked.
///
/// Safe: the descriptor is this object's alone and closed in `deinit`; the only memory lent
/// to the system is the local buffer of `holder` and the bytes of the process id's text, each
/// for the length of one call.
final class StateLock {
    let path: String
    private let fd: Int32

    /// Takes the lock of the state at `statePath`, or throws naming the process that holds it.
    init(statePath: String) throws(StateRefusal) {
        path = statePath + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StateRefusal(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let holder = Self.holder(fd)
            close(fd)
            guard reason == EWOULDBLOCK else {
                throw StateRefusal(message: "cannot lock \(path): \(String(cString: strerror(reason)))")
            }
            throw StateRefusal(message: "--state \(statePath) is in use by "
                               + (holder.map { "process \($0)" } ?? "another process") + " (it holds \(path)); "
                               + "one run at a time keeps a state, and nothing was read, written or emptied")
        }
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    deinit { close(fd) }

    /// The process id the lock file names, when it names one.
    private static func holder(_ fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let digits = buffer[..<count].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return Int(String(decoding: digits, as: UTF8.self)).flatMap { $0 > 0 ? $0 : nil }
    }
}
