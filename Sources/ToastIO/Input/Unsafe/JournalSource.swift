#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import ToastCore

/// `--journal` (docs/service.md, "Reading the journal"): the systemd journal's entries, read
/// through libsystemd's `sd_journal`, as JSON lines of shows for the decoder, so that a journal
/// entry is read as any input line is. An entry's `MESSAGE` is `message` (not UTF-8: U+FFFD
/// for what is not; longer than `maxMessageBytes`: cut there, with `…`), `PRIORITY` its `level`
/// (the syslog severity's name), `SYSLOG_IDENTIFIER` (else `_COMM`, else `_SYSTEMD_UNIT`) its
/// `source`, `__REALTIME_TIMESTAMP` its `at`, `_SYSTEMD_UNIT`, `_HOSTNAME` and `_PID` the fields
/// `unit`, `host` and `pid` (strings, as `journalctl -o json` gives them).
///
/// Live, it starts at the journal's end and waits for new entries; `once`, it reads every entry
/// there is from the oldest and then ends. Each entry's cursor is kept with the count of bytes
/// handed out after its line, so that a checkpoint saves the cursor of the last entry the
/// pipeline took (`cursor(at:)`), and a restart goes on after it.
///
/// Safe to use: this file is the only Swift that calls `sd_journal`; the journal handle lives
/// as long as this object, and every field's bytes are copied out before the next call.
package final class JournalSource: ByteSource {
    /// Which journal: the local one, a folder's files, or files; `matches` as journalctl's.
    package struct Selection: Equatable, Sendable {
        package var directory: String?
        package var files: [String]
        package var matches: [String]

        package init(directory: String? = nil, files: [String] = [], matches: [String] = []) {
            self.directory = directory
            self.files = files
            self.matches = matches
        }
    }

    /// The fields an entry's line has besides the show's own, which the decoder takes as
    /// intended (no "did you mean").
    package static let fieldNames = ["level", "unit", "host", "pid"]

    private let journal: OpaquePointer
    private let once: Bool
    private let maxMessageBytes: Int
    /// Lines made of entries and not yet handed out.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// Bytes handed out, counted from the saved offset a restart read on from.
    private var handedOut: Int64
    /// The cursor of each entry whose line was made, with the count of bytes handed out once
    /// its line is: the oldest are let go as checkpoints pass them.
    private var cursors: [(end: Int64, cursor: String)] = []
    private var lastCursor: String?
    private var ended = false

    /// Opens the journal `selection` names. `resumingAfter`: the cursor of the last entry a
    /// saved run took (the run goes on after it; one the journal no longer has starts at its
    /// oldest entry, with `warning`); `startOffset`, the offset a restart reads on from.
    /// Throws `FileOpenError` with the reason when the journal cannot be opened.
    package init(selection: Selection, once: Bool, resumingAfter cursor: String?, startOffset: Int64 = 0,
                 maxMessageBytes: Int, warning: (String) -> Void) throws {
        self.once = once
        self.maxMessageBytes = maxMessageBytes
        handedOut = startOffset
        var opened: OpaquePointer?
        let status: Int32
        if let directory = selection.directory {
            var kind = stat()
            guard stat(directory, &kind) == 0 else {
                throw FileOpenError(message: "cannot open --journal-dir \(directory): \(String(cString: strerror(errno)))")
            }
            guard kind.st_mode & S_IFMT == S_IFDIR else { throw FileOpenError(message: "--journal-dir \(directory) is not a folder") }
            status = sd_journal_open_directory(&opened, directory, 0)
        } else if !selection.files.isEmpty {
            for file in selection.files {
                var kind = stat()
                guard stat(file, &kind) == 0 else {
                    throw FileOpenError(message: "cannot open --journal-file \(file): \(String(cString: strerror(errno)))")
                }
                guard kind.st_mode & S_IFMT == S_IFREG else { throw FileOpenError(message: "--journal-file \(file) is not a file") }
                let descriptor = open(file, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw FileOpenError(message: "cannot open --journal-file \(file): \(String(cString: strerror(errno)))")
                }
                close(descriptor)
            }
            var paths = selection.files.map { strdup($0) }
            defer { paths.forEach { free($0) } }
            paths.append(nil)
            status = paths.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                    sd_journal_open_files(&opened, $0, 0)
                }
            }
        } else {
            status = sd_journal_open(&opened, Int32(SD_JOURNAL_LOCAL_ONLY))
        }
        guard status >= 0, let opened else {
            let reason = String(cString: strerror(-status))
            let damaged = [EBADMSG, ENODATA, EPROTONOSUPPORT, EUCLEAN].contains(-status)
            throw FileOpenError(message: "cannot read the journal\(Self.naming(selection)): "
                                + (damaged ? "not a journal file, or a damaged one (\(reason))" : reason))
        }
        journal = opened
        for match in selection.matches {
            let added = match.withCString { sd_journal_add_match(journal, $0, 0) }
            guard added >= 0 else {
                sd_journal_close(journal)
                throw FileOpenError(message: "--journal-match \(match): \(String(cString: strerror(-added)))")
            }
        }
        try position(after: cursor, warning: warning)
    }

    deinit { sd_journal_close(journal) }

    /// Live: new entries come as they are written, a read waits for them.
    package var isLive: Bool { !once }

    /// The cursor of the last entry whose line ends at or before `offset` (bytes handed out):
    /// what a checkpoint at `offset` saves. Cursors before it are let go.
    package func cursor(at offset: Int64) -> String? {
        guard let index = cursors.lastIndex(where: { $0.end <= offset }) else { return lastCursor }
        lastCursor = cursors[index].cursor
        cursors.removeFirst(index + 1)
        return lastCursor
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            switch fill(upTo: buffer.count) {
            case .failed(let reason): return .failed(reason)
            case .none where once: return .end
            case .none: return .interrupted
            case .some: break
            }
        }
        let count = min(buffer.count, pending.count - pendingStart)
        pending.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[pendingStart..<pendingStart + count]))
        }
        pendingStart += count
        handedOut += Int64(count)
        return .bytes(count)
    }

    package var wouldBlock: Bool {
        guard !once, pendingStart == pending.count else { return false }
        if case .some = fill(upTo: 1 << 16) { return false }
        return true
    }

    package func waitUntilReadable(milliseconds: Int32, wakeDescriptors: [Int32]) -> WaitOutcome {
        let descriptor = sd_journal_get_fd(journal)
        var left = milliseconds
        while true {
            if !wouldBlock { return .readable }
            if left == 0 { return .timedOut }
            // The journal's descriptor tells of new entries (inotify); a look a quarter second
            // besides, for what it does not tell.
            let slice = left < 0 ? Int32(250) : min(left, 250)
            var requests = wakeDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if descriptor >= 0 { requests.append(pollfd(fd: descriptor, events: Int16(sd_journal_get_events(journal)), revents: 0)) }
            let ready = poll(&requests, nfds_t(requests.count), slice)
            if ready < 0 && errno == EINTR { return .woken }
            if requests.prefix(wakeDescriptors.count).contains(where: { $0.revents != 0 }) { return .woken }
            _ = sd_journal_process(journal)
            if left > 0 { left = max(0, left - slice) }
        }
    }

    // MARK: Entries

    private enum Filled { case some, none, failed(String) }

    /// Makes lines of the next entries, about `limit` bytes of them; `.none` when the journal
    /// has no entry after the last one read (now).
    private func fill(upTo limit: Int) -> Filled {
        var made = false
        while pending.count < limit {
            let step = sd_journal_next(journal)
            if step < 0 { return .failed("cannot read the journal: \(String(cString: strerror(-step)))") }
            if step == 0 { break }
            appendLine()
            made = true
            var cursor: UnsafeMutablePointer<CChar>?
            if sd_journal_get_cursor(journal, &cursor) >= 0, let cursor {
                cursors.append((handedOut + Int64(pending.count - pendingStart), String(cString: cursor)))
                free(cursor)
            }
        }
        return made ? .some : .none
    }

    /// The current entry as one JSON line of a show.
    private func appendLine() {
        var line = JSONWriter(reservingCapacity: 256)
        line.beginObject()
        line.key("message")
        if let message = field("MESSAGE") {
            let cut = message.count > maxMessageBytes
            var text = String(decoding: cut ? Array(message.prefix(Self.characterBoundary(message, atMost: maxMessageBytes))) : message,
                              as: UTF8.self)
            if cut { text += "…" }
            line.string(text)
        } else {
            line.string("")
        }
        if let priority = field("PRIORITY").flatMap({ Int(String(decoding: $0, as: UTF8.self)) }),
           let level = LogLevel(syslogSeverity: priority) {
            line.key("level")
            line.string(level.rawValue)
        }
        if let source = field("SYSLOG_IDENTIFIER") ?? field("_COMM") ?? field("_SYSTEMD_UNIT") {
            line.key("source")
            line.string(String(decoding: source, as: UTF8.self))
        }
        var microseconds: UInt64 = 0
        if sd_journal_get_realtime_usec(journal, &microseconds) >= 0 {
            line.key("at")
            Array(Self.seconds(microseconds).utf8).withUnsafeBytes { line.json($0) }
        }
        for (field, name) in [("_SYSTEMD_UNIT", "unit"), ("_HOSTNAME", "host"), ("_PID", "pid")] as [(String, StaticString)] {
            guard let value = self.field(field) else { continue }
            line.key(name)
            line.string(String(decoding: value, as: UTF8.self))
        }
        line.endObject()
        pending += line.text
        pending.append(UInt8(ascii: "\n"))
    }

    /// The value of the current entry's field `name`, its bytes as they are; nil without one.
    private func field(_ name: String) -> [UInt8]? {
        var data: UnsafeRawPointer?
        var length = 0
        guard sd_journal_get_data(journal, name, &data, &length) >= 0, let data else { return nil }
        let prefix = name.utf8.count + 1          // "NAME="
        guard length >= prefix else { return nil }
        return Array(UnsafeRawBufferPointer(start: data + prefix, count: length - prefix))
    }

    /// `microseconds` as seconds with six decimals, which the decoder reads back exactly.
    private static func seconds(_ microseconds: UInt64) -> String {
        "\(microseconds / 1_000_000)." + String(String(microseconds % 1_000_000 + 1_000_000).dropFirst())
    }

    /// How many of `bytes`' first bytes end a UTF-8 character, at most `limit`.
    private static func characterBoundary(_ bytes: [UInt8], atMost limit: Int) -> Int {
        var end = min(limit, bytes.count)
        while end > 0 && end < bytes.count && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return end
    }

    /// Goes to where reading starts: after `cursor` when the journal still has that entry,
    /// else its oldest entry (with a warning); without one, the oldest entry (`once`) or the
    /// end (live).
    private func position(after cursor: String?, warning: (String) -> Void) throws {
        if let cursor {
            if sd_journal_seek_cursor(journal, cursor) >= 0, sd_journal_next(journal) > 0,
               sd_journal_test_cursor(journal, cursor) > 0 {
                lastCursor = cursor
                return
            }
            warning("warning: the journal no longer has the entry the state was saved after (vacuumed or rotated away); "
                    + "reading on from its oldest entry")
            sd_journal_seek_head(journal)
            return
        }
        if once {
            sd_journal_seek_head(journal)
        } else {
            sd_journal_seek_tail(journal)
            // On the last entry, so that the next one read is the first written from now on.
            _ = sd_journal_previous(journal)
        }
    }

    private static func naming(_ selection: Selection) -> String {
        if let directory = selection.directory { return " in \(directory)" }
        if !selection.files.isEmpty { return " " + selection.files.joined(separator: ", ") }
        return ""
    }
}
