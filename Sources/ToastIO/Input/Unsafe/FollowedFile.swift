#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import ToastCore

/// `--follow FILE` (docs/service.md, "Following a file"): FILE read from its start (or a saved
/// position), then what is appended, as `tail -F` follows it. A rotation (FILE renamed or
/// removed, and a new FILE made) is seen at the end of what the old file holds: the old file
/// is read to its end, then the new one from its start. A truncation (copy-and-truncate: the
/// same file, shorter than what was read, or with other first bytes) reads FILE again from its
/// start, with a note. A FILE that does not exist yet is waited for.
///
/// The input never ends: at the end of what is there, `wouldBlock` says so and
/// `waitUntilReadable` waits for more (inotify on FILE's folder where the system has it, and a
/// look every quarter of a second whatever it is). The bytes handed out are counted across the
/// files read (`LineReader`'s offsets); `location(of:)` says which file and where in it a count
/// stands, for a checkpoint.
///
/// Safe to use: every read writes into the buffer it is lent, at most its count; descriptors
/// are this object's own and closed with it. One thread reads (the run's, or `ReadAhead`'s);
/// `location(of:)` may be asked from another.
package final class FollowedFile: ByteSource {
    package let path: String
    private let note: (String) -> Void
    /// The file being read (-1: none yet) and where it was when it was opened.
    private var fd: Int32 = -1
    private var opened: Opened?
    /// Bytes read from the current file (its offset).
    private var fileOffset: Int64 = 0
    /// Bytes handed out since the start offset, over every file.
    private var handedOut: Int64
    /// Where each file read began among the bytes handed out, the latest last. Locked: the
    /// reading thread adds to it (`ReadAhead`), a checkpoint on the run's thread reads it.
    private let segments = Mutex<[Segment]>([])
    /// An inotify descriptor watching FILE's folder (-1: none; the quarter-second look does).
    private let watch: Int32
    /// Whether FILE is read once the current file (a rotated one read on after a restart) ends.
    private var pathAfterCurrent = false
    private var saidWaiting = false

    /// The longest wait between two looks at FILE, in milliseconds.
    static let lookInterval: Int32 = 250

    private struct Opened {
        var device: UInt64
        var inode: UInt64
        /// The file's first bytes as read (up to `FileIdentity.sampleLimit`): a file whose
        /// first bytes are others now was written again from its start.
        var firstBytes: [UInt8]

        var identity: FileIdentity {
            FileIdentity(device: device, inode: inode, sampledLength: firstBytes.count, checksum: FileIdentity.checksum(firstBytes))
        }
    }

    /// A file's share of the bytes handed out: from `start` on, its bytes from `fileStart` on.
    private struct Segment: Sendable {
        var start: Int64
        var fileStart: Int64
        var identity: FileIdentity
        /// How far the file was read: what a checkpoint knows of its length.
        var readUpTo: Int64
    }

    /// Where a saved run stood: the file it was reading (found again by device and inode, its
    /// first bytes compared) and the offset of the next line in it.
    package struct SavedPlace: Equatable, Sendable {
        package var file: FileIdentity
        package var offset: Int64
        /// How far the file had been read then (nil: not known): bytes after `offset` that a
        /// file gone since took with it.
        package var length: Int64?

        package init(file: FileIdentity, offset: Int64, length: Int64? = nil) {
            self.file = file
            self.offset = offset
            self.length = length
        }
    }

    /// Follows `path`, from its start or from `resuming`; `note` says what happened to the
    /// file (a rotation, a truncation, a wait). Throws `FileOpenError` for a path that cannot
    /// be followed: a directory, or one that exists and cannot be read.
    package init(path: String, resuming saved: SavedPlace? = nil, note: @escaping (String) -> Void) throws {
        self.path = path
        self.note = note
        handedOut = saved?.offset ?? 0
        var status = stat()
        if stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
            throw FileOpenError(message: "--follow \(path) is a directory; it follows one file")
        }
        watch = Self.watchFolder(of: path)
        if let saved {
            try resume(from: saved)
        } else if !(try openPath(at: 0)) {
            sayWaiting()
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if watch >= 0 { close(watch) }
    }

    package var isLive: Bool { true }

    /// Which file, and where in it, `offset` (bytes handed out) stands; nil before any file.
    package func location(of offset: Int64) -> SavedPlace? {
        guard let segment = segments.withLock({ $0.last(where: { $0.start <= offset }) }) else { return nil }
        return SavedPlace(file: segment.identity, offset: segment.fileStart + (offset - segment.start), length: segment.readUpTo)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        while true {
            guard fd >= 0 else {
                do {
                    if try openPath(at: 0) { continue }
                } catch {
                    return .failed((error as? FileOpenError)?.message ?? "\(error)")
                }
                return .interrupted
            }
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                var identity: FileIdentity?
                if fileOffset < Int64(FileIdentity.sampleLimit), var current = opened {
                    let kept = min(count, FileIdentity.sampleLimit - Int(fileOffset))
                    current.firstBytes += UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[..<kept])
                    opened = current
                    identity = current.identity
                }
                fileOffset += Int64(count)
                let readUpTo = fileOffset
                segments.withLock { segments in
                    segments[segments.count - 1].readUpTo = readUpTo
                    if let identity { segments[segments.count - 1].identity = identity }
                }
                handedOut += Int64(count)
                return .bytes(count)
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { return .interrupted }
                return .failed(String(cString: strerror(errno)))
            }
            // The end of what the file holds now: another file to read, or nothing yet.
            do {
                guard try moveOn() else { return .interrupted }
            } catch {
                return .failed((error as? FileOpenError)?.message ?? "\(error)")
            }
        }
    }

    package var wouldBlock: Bool {
        guard fd >= 0 else { return !exists(path) }
        if let size = regularFileLength(fd), size > fileOffset { return false }
        return change() == nil
    }

    package func waitUntilReadable(milliseconds: Int32, wakeDescriptors: [Int32]) -> WaitOutcome {
        var left = milliseconds
        while true {
            if !wouldBlock { return .readable }
            if left == 0 { return .timedOut }
            let slice = left < 0 ? Self.lookInterval : min(left, Self.lookInterval)
            var requests = wakeDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if watch >= 0 { requests.append(pollfd(fd: watch, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&requests, nfds_t(requests.count), slice)
            if ready < 0 && errno == EINTR { return .woken }
            if requests.prefix(wakeDescriptors.count).contains(where: { $0.revents != 0 }) { return .woken }
            if watch >= 0, requests.last?.revents ?? 0 != 0 { drainWatch() }
            if left > 0 { left = max(0, left - slice) }
        }
    }

    // MARK: Moving from file to file

    private enum Change {
        /// FILE is another file now (the one read was renamed or removed).
        case rotated
        /// FILE is the file read, shorter than what was read or with other first bytes.
        case truncated
        /// The current file is a rotated one read on after a restart: FILE comes next.
        case pathNext
    }

    /// What is to be done at the end of the current file; nil: wait for more of it.
    private func change() -> Change? {
        guard let opened else { return nil }
        if pathAfterCurrent { return .pathNext }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }     // removed: the old file may still grow
        if UInt64(status.st_dev) != opened.device || UInt64(status.st_ino) != opened.inode { return .rotated }
        if Int64(status.st_size) < fileOffset { return .truncated }
        if FileDescriptorSource(fd: fd).firstBytes(opened.firstBytes.count) != opened.firstBytes { return .truncated }
        return nil
    }

    /// At the end of the current file: opens the next one or reads FILE again; false when
    /// there is nothing to move on to.
    private func moveOn() throws -> Bool {
        switch change() {
        case nil:
            return false
        case .rotated?, .pathNext?:
            let wasPathNext = pathAfterCurrent
            pathAfterCurrent = false
            close(fd)
            fd = -1
            opened = nil
            if !wasPathNext { note("note: --follow \(path) was rotated: the old file was read to its end; reading the new one from its start") }
            if try !openPath(at: 0) { sayWaiting() }
            return fd >= 0
        case .truncated?:
            note("note: --follow \(path) was truncated (copied and emptied, or written again); reading it again from its start")
            guard lseek(fd, 0, SEEK_SET) == 0 else { throw FileOpenError(message: "cannot read \(path) again from its start") }
            fileOffset = 0
            opened?.firstBytes = []
            if let opened {
                let segment = Segment(start: handedOut, fileStart: 0, identity: opened.identity, readUpTo: 0)
                segments.withLock { $0.append(segment) }
            }
            return true
        }
    }

    /// Opens FILE and reads it from `offset`; false when it does not exist (yet).
    private func openPath(at offset: Int64) throws -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return false }
            throw FileOpenError(message: "cannot open --follow \(path): \(String(cString: strerror(errno)))")
        }
        try start(descriptor, at: offset)
        if saidWaiting {
            note("note: --follow \(path) is there now; reading it from its start")
            saidWaiting = false
        }
        return true
    }

    /// Makes `descriptor` the file read, from `offset`.
    private func start(_ descriptor: Int32, at offset: Int64) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw FileOpenError(message: "--follow \(path) is not a regular file")
        }
        if offset > 0 && lseek(descriptor, off_t(offset), SEEK_SET) != off_t(offset) {
            close(descriptor)
            throw FileOpenError(message: "cannot read --follow \(path) from byte \(offset)")
        }
        fd = descriptor
        fileOffset = offset
        // Reading on from a saved place: the first bytes are those the run before read.
        let before = offset > 0 ? FileDescriptorSource(fd: descriptor).firstBytes(Int(min(offset, Int64(FileIdentity.sampleLimit)))) : []
        let current = Opened(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), firstBytes: before ?? [])
        opened = current
        let segment = Segment(start: handedOut, fileStart: offset, identity: current.identity, readUpTo: offset)
        segments.withLock { $0.append(segment) }
    }

    /// Goes on from a saved place: FILE when it is the saved file; else the saved file found
    /// again in FILE's folder, read to its end before FILE; else FILE from its start, with a
    /// note of what may be lost.
    private func resume(from saved: SavedPlace) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            let source = FileDescriptorSource(fd: descriptor)
            let same = source.deviceAndInode.map { $0 == (saved.file.device, saved.file.inode) } ?? false
            let size = source.size ?? 0
            if same && saved.file.difference(from: source) == nil {
                if size >= saved.offset {
                    handedOut = saved.offset
                    return try start(descriptor, at: saved.offset)
                }
                note("note: --follow \(path) is shorter than the \(saved.offset) bytes read when the state was saved "
                     + "(truncated while toastscript was down); reading it again from its start")
                handedOut = saved.offset
                return try start(descriptor, at: 0)
            }
            close(descriptor)
        }
        handedOut = saved.offset
        if let rotated = findInFolder(saved.file) {
            note("note: --follow \(path) was rotated while toastscript was down: reading \(rotated) on from byte "
                 + "\(saved.offset), then \(path) from its start")
            let old = open(rotated, O_RDONLY | O_CLOEXEC)
            if old >= 0 {
                try start(old, at: saved.offset)
                pathAfterCurrent = true
                return
            }
        }
        let known = saved.length.map { max(0, $0 - saved.offset) } ?? 0
        note("note: --follow \(path): the file it was reading when the state was saved (inode \(saved.file.inode)) is "
             + "gone from its folder; what was written to it after byte \(saved.offset) is lost: \(known) byte"
             + "\(known == 1 ? "" : "s") read then and not yet taken, and whatever was written to it since; reading \(path) from its start")
        if !(try openPath(at: 0)) { sayWaiting() }
    }

    /// The path of a regular file in FILE's folder with `file`'s device, inode and first bytes.
    private func findInFolder(_ file: FileIdentity) -> String? {
        let folder = Self.folder(of: path)
        for name in DirectoryListing.names(in: folder) ?? [] where name != "." && name != ".." {
            let candidate = folder == "." && !path.hasPrefix("./") ? name : folder + "/" + name
            var status = stat()
            guard stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                  UInt64(status.st_dev) == file.device, UInt64(status.st_ino) == file.inode else { continue }
            guard let source = try? FileDescriptorSource.opening(candidate), file.difference(from: source) == nil else { continue }
            return candidate
        }
        return nil
    }

    private func sayWaiting() {
        guard !saidWaiting else { return }
        saidWaiting = true
        note("note: --follow \(path) does not exist yet; waiting for it (as tail -F does)")
    }

    private func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// An inotify descriptor that becomes readable when anything happens in FILE's folder
    /// (-1 when the system has none to give).
    private static func watchFolder(of path: String) -> Int32 {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return -1 }
        let events = UInt32(IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_CLOSE_WRITE)
        guard inotify_add_watch(descriptor, folder(of: path), events) >= 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// Empties the watch's queue of events (each says only that something happened).
    private func drainWatch() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while scratch.withUnsafeMutableBytes({ Glibc.read(watch, $0.baseAddress, $0.count) }) > 0 {}
    }
}
