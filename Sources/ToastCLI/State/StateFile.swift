#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO

/// The file `--state FILE` names: read once at the start, and replaced whole at each
/// checkpoint — written to `FILE.new`, synced, renamed over FILE, and the folder synced — so
/// that FILE is at every moment either the last state or the one before, never a mix.
struct StateFile {
    let path: String
    /// `TOASTSCRIPT_TEST_KILL_AT=POINT:N`: the process kills itself with SIGKILL at POINT of
    /// its Nth checkpoint (`after-records`, `before-rename`, `after-rename`), so that tests
    /// reach the moments that matter for certain. Unset in any real run.
    let killPoint: (point: String, checkpoint: Int)?
    private(set) var checkpoints = 0

    init(path: String, killPoint setting: String?) {
        self.path = path
        killPoint = setting.flatMap { setting in
            let parts = setting.split(separator: ":")
            guard parts.count == 2, let count = Int(parts[1]) else { return nil }
            return (String(parts[0]), count)
        }
    }

    /// The file's bytes; nil when there is no file (a first run).
    func read() throws(StateRefusal) -> [UInt8]? {
        var status = stat()
        if stat(path, &status) != 0 && errno == ENOENT { return nil }
        let source: FileDescriptorSource
        do {
            source = try FileDescriptorSource.opening(path)
        } catch let error as FileOpenError {
            throw StateRefusal(message: "--state \(error.message)")
        } catch {
            throw StateRefusal(message: "--state \(path): \(error)")
        }
        guard let bytes = source.readAll() else { throw StateRefusal(message: "--state \(path): cannot read it") }
        return bytes
    }

    /// Replaces the file with `bytes`; the system's reason when it cannot (the old file stays).
    mutating func write(_ bytes: [UInt8]) -> String? {
        checkpoints += 1
        let newPath = path + ".new"
        do {
            let file = try FileDescriptorSink.replacing(newPath)
            file.write(bytes)
            file.sync()
            if case .writeFailed(let reason)? = file.failure { return reason }
        } catch let error as FileOpenError {
            return error.message
        } catch {
            return "\(error)"
        }
        killIfAsked(at: "before-rename")
        guard rename(newPath, path) == 0 else { return "cannot rename \(newPath) to \(path): \(String(cString: strerror(errno)))" }
        syncFolder()
        killIfAsked(at: "after-rename")
        return nil
    }

    /// A test's kill point (`killPoint`), when this is it.
    func killIfAsked(at point: String, checkpoint: Int? = nil) {
        guard let killPoint, killPoint.point == point, killPoint.checkpoint == (checkpoint ?? checkpoints) else { return }
        kill(getpid(), SIGKILL)
    }

    /// Syncs the folder that holds the file, so that the rename itself is on disk.
    private func syncFolder() {
        let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}

/// Why a run cannot go on from its state file: said before any input is read (exit 1).
struct StateRefusal: Error {
    var message: String
}
