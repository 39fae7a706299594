import Foundation
import Testing

/// `--journal` against journal files that Debian's `systemd-journal-remote` writes from export
/// streams made here, read back by `journalctl` for what each entry holds: the mapping of
/// fields, matches as journalctl selects, a folder of files, entries followed live, the
/// cursor law under SIGKILL, a MESSAGE that is not text, and files that cannot be read.
@Suite(.serialized) struct JournalTests {
    static let journalRemote = "/usr/lib/systemd/systemd-journal-remote"

    /// A journal entry: its fields (a value of bytes for a MESSAGE that is not text) and its time.
    struct Entry {
        var at: UInt64
        var fields: [(String, [UInt8])]

        init(at seconds: Double, _ fields: [(String, String)], binaryMessage: [UInt8]? = nil) {
            at = UInt64(seconds * 1_000_000)
            self.fields = fields.map { ($0.0, Array($0.1.utf8)) } + (binaryMessage.map { [("MESSAGE", $0)] } ?? [])
        }
    }

    /// Writes `entries` as a journal file at `path` (systemd-journal-remote from the export format).
    static func writeJournal(_ entries: [Entry], to path: String) throws {
        var export: [UInt8] = []
        for (index, entry) in entries.enumerated() {
            export += Array("__REALTIME_TIMESTAMP=\(entry.at)\n__MONOTONIC_TIMESTAMP=\(1_000 + index)\n".utf8)
            export += Array("_BOOT_ID=0123456789abcdef0123456789abcdef\n".utf8)
            for (name, value) in entry.fields {
                if value.contains(where: { $0 == 0x0A || $0 >= 0x80 }) {
                    // The export format's binary field: the name, a 64-bit little-endian length, the bytes.
                    export += Array("\(name)\n".utf8)
                    export += withUnsafeBytes(of: UInt64(value.count).littleEndian, Array.init)
                    export += value + [0x0A]
                } else {
                    export += Array("\(name)=".utf8) + value + [0x0A]
                }
            }
            export += [0x0A]
        }
        let stream = path + ".export"
        try Data(export).write(to: URL(fileURLWithPath: stream))
        defer { try? FileManager.default.removeItem(atPath: stream) }
        let written = try runShell("\(journalRemote) -o '\(path)' - < '\(stream)' 2>&1")
        #expect(written.status == 0, "\(written.stdout)")
    }

    /// What journalctl says each entry of `arguments`' journal holds, in its order.
    static func journalctl(_ arguments: String) throws -> [[String: Any]] {
        let run = try runShell("journalctl --no-pager -o json \(arguments)")
        return run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// A journalctl value as text: a string as it is, bytes (an array) decoded with U+FFFD.
    static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let bytes = value as? [Int] { return String(decoding: bytes.map(UInt8.init), as: UTF8.self) }
        return nil
    }

    final class Folder {
        let path = NSTemporaryDirectory() + "toastscript-journal-\(UUID().uuidString.prefix(8))"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { path + "/" + name }
    }

    /// Every toast shown, none dropped or kept waiting: the records say every entry.
    static let showEverything = #"config{ queue = { policy = "stack", max_visible = 1000, limit = 1000 }, dedup = false, rate_limit = false }"#

    /// The present records of a JSON run, parsed.
    static func presents(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "present" }
    }

    static let entries = [
        Entry(at: 1_764_928_800.25, [("MESSAGE", "disk full"), ("PRIORITY", "3"), ("SYSLOG_IDENTIFIER", "backup"),
                                    ("_SYSTEMD_UNIT", "backup.service"), ("_HOSTNAME", "host1"), ("_PID", "42")]),
        Entry(at: 1_764_928_801, [("MESSAGE", "all good"), ("PRIORITY", "6"), ("_COMM", "cron"), ("_HOSTNAME", "host1")]),
        Entry(at: 1_764_928_802.5, [("MESSAGE", "started"), ("_SYSTEMD_UNIT", "nginx.service"), ("_PID", "7")]),
        Entry(at: 1_764_928_803, [("PRIORITY", "4"), ("SYSLOG_IDENTIFIER", "kernel")], binaryMessage: Array("caf".utf8) + [0xE9, 0x20, 0xFF]),
        Entry(at: 1_764_928_804, [("MESSAGE", "panic"), ("PRIORITY", "0"), ("SYSLOG_IDENTIFIER", "kernel")]),
        Entry(at: 1_764_928_805, [("MESSAGE", "trace line"), ("PRIORITY", "7"), ("SYSLOG_IDENTIFIER", "app"),
                                 ("_SYSTEMD_UNIT", "app.service")]),
        Entry(at: 1_764_928_806, [("MESSAGE", "line one\nline two"), ("PRIORITY", "5"), ("SYSLOG_IDENTIFIER", "app")]),
    ]

    @Test func eachEntryBecomesTheShowJournalctlDescribes() throws {
        let folder = try Folder()
        let file = folder.file("system.journal")
        try Self.writeJournal(Self.entries, to: file)
        let run = try runBinary(["--journal", "--journal-file", file, "--once", "--format", "json", "-e", Self.showEverything])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "", "\(run.stderr)")
        let shown = Self.presents(run.stdout)
        let described = try Self.journalctl("--file '\(file)'")
        try #require(shown.count == described.count && described.count == Self.entries.count, "\(run.stdout)")
        let levels = ["0": "critical", "3": "error", "4": "warning", "5": "info", "6": "info", "7": "debug"]
        for (record, entry) in zip(shown, described) {
            #expect(record["message"] as? String == Self.text(entry["MESSAGE"]), "\(record)")
            let source = Self.text(entry["SYSLOG_IDENTIFIER"]) ?? Self.text(entry["_COMM"]) ?? Self.text(entry["_SYSTEMD_UNIT"])
            #expect(record["source"] as? String == source, "\(record)")
            let extra = record["extra"] as? [String: Any] ?? [:]
            #expect(extra["level"] as? String == Self.text(entry["PRIORITY"]).flatMap { levels[$0] }, "\(record)")
            #expect(extra["unit"] as? String == Self.text(entry["_SYSTEMD_UNIT"]))
            #expect(extra["host"] as? String == Self.text(entry["_HOSTNAME"]))
            #expect(extra["pid"] as? String == Self.text(entry["_PID"]))
            let micros = Int64(Self.text(entry["__REALTIME_TIMESTAMP"]) ?? "") ?? -1
            #expect(Int64(((record["t"] as? Double) ?? 0) * 1_000_000 + 0.5) == micros, "\(record)")
        }
        // PRIORITY gives the role: 3 and 0 are errors, 4 a warning.
        #expect(shown.map { $0["role"] as? String ?? "" } == ["error", "info", "info", "warning", "error", "info", "info"])
        // A MESSAGE that is not UTF-8 has U+FFFD for each byte that is not.
        #expect(shown[3]["message"] as? String == "caf\u{FFFD} \u{FFFD}")
    }

    @Test func matchesSelectAsJournalctlDoes() throws {
        let folder = try Folder()
        let file = folder.file("system.journal")
        try Self.writeJournal(Self.entries, to: file)
        for matches in [["_SYSTEMD_UNIT=backup.service"], ["_SYSTEMD_UNIT=backup.service", "_SYSTEMD_UNIT=nginx.service"],
                        ["SYSLOG_IDENTIFIER=kernel", "PRIORITY=0"], ["_HOSTNAME=host1", "PRIORITY=6"]] {
            let run = try runBinary(["--journal", "--journal-file", file, "--once", "--format", "json", "-e", Self.showEverything]
                                    + matches.flatMap { ["--journal-match", $0] })
            #expect(run.status == 0, "\(run.stderr)")
            let selected = try Self.journalctl("--file '\(file)' " + matches.joined(separator: " ")).map { Self.text($0["MESSAGE"]) }
            #expect(!selected.isEmpty)
            #expect(Self.presents(run.stdout).map { $0["message"] as? String } == selected, "\(matches)")
        }
    }

    @Test func aFolderOfFilesIsReadInTheOrderOfTime() throws {
        let folder = try Folder()
        let early = (0..<5).map { Entry(at: 1_764_928_800 + Double($0 * 2), [("MESSAGE", "even \($0 * 2)"), ("SYSLOG_IDENTIFIER", "a")]) }
        let late = (0..<5).map { Entry(at: 1_764_928_801 + Double($0 * 2), [("MESSAGE", "odd \($0 * 2 + 1)"), ("SYSLOG_IDENTIFIER", "b")]) }
        try Self.writeJournal(early, to: folder.file("a.journal"))
        try Self.writeJournal(late, to: folder.file("b.journal"))
        let run = try runBinary(["--journal", "--journal-dir", folder.path, "--once", "--format", "json", "-e", Self.showEverything])
        #expect(run.status == 0, "\(run.stderr)")
        let described = try Self.journalctl("-D '\(folder.path)'").map { Self.text($0["MESSAGE"]) }
        #expect(described.count == 10)
        #expect(Self.presents(run.stdout).map { $0["message"] as? String } == described)
    }

    @Test func liveItStartsAtTheEndAndFollowsNewEntries() throws {
        let folder = try Folder()
        try Self.writeJournal([Entry(at: 1_764_928_800, [("MESSAGE", "before the start")])], to: folder.file("old.journal"))
        // Written aside and moved in whole, as journald's rotation puts a new file in place.
        let aside = try Folder()
        try Self.writeJournal([Entry(at: 1_764_928_900, [("MESSAGE", "while it runs"), ("PRIORITY", "3")])], to: aside.file("new.journal"))
        let run = try runShell("""
            '\(binary)' --journal --journal-dir '\(folder.path)' --format json > '\(folder.file("out"))' 2> '\(folder.file("err"))' & pid=$!
            sleep 0.5
            mv '\(aside.file("new.journal"))' '\(folder.file("new.journal"))'
            for i in $(seq 300); do grep -q 'while it runs' '\(folder.file("out"))' && break; sleep 0.01; done
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(run.stdout == "status 143\n")
        let out = (try? String(contentsOfFile: folder.file("out"), encoding: .utf8)) ?? ""
        #expect(Self.presents(out).map { $0["message"] as? String } == ["while it runs"], "\(out)")
    }

    /// SPEC 11.4's law on the journal's cursor: runs killed with SIGKILL at each moment of a
    /// checkpoint, each started again on the state, write what one run writes.
    @Test func runsKilledAndStartedAgainOnTheCursorWriteWhatOneRunWrites() throws {
        let folder = try Folder()
        let entries = (0..<1_000).map { index in
            Entry(at: 1_764_928_800 + Double(index) * 0.25, [("MESSAGE", "event \(index % 40)"), ("PRIORITY", String(index % 8)),
                                                           ("SYSLOG_IDENTIFIER", "app\(index % 3)")])
        }
        try Self.writeJournal(entries, to: folder.file("system.journal"))
        func run(state: String, output: String, killAt: String? = nil) throws -> BinaryResult {
            try runBinary(["--journal", "--journal-dir", folder.path, "--once", "--format", "json", "--state", folder.file(state),
                           "--checkpoint", "0.005", "--output", folder.file(output), "examples/service.lua"],
                          environment: killAt.map { ["TOASTSCRIPT_TEST_KILL_AT": $0] } ?? [:])
        }
        let whole = try run(state: "whole.state", output: "whole.jsonl")
        #expect(whole.status == 0 || whole.status == 65, "\(whole.stderr)")
        for point in ["after-records:3", "before-commit:2", "after-commit:4", "after-records:2"] {
            let killed = try run(state: "killed.state", output: "killed.jsonl", killAt: point)
            #expect(killed.status == 137 || killed.status == -9 || killed.status == 9, "\(point): \(killed.status) \(killed.stderr)")
        }
        let last = try run(state: "killed.state", output: "killed.jsonl")
        #expect(last.status == whole.status, "\(last.stderr)")
        let expected = FileManager.default.contents(atPath: folder.file("whole.jsonl")) ?? Data()
        #expect(!expected.isEmpty)
        #expect(FileManager.default.contents(atPath: folder.file("killed.jsonl")) == expected)
        // A run after the end reads what came since: nothing, here.
        let again = try run(state: "killed.state", output: "killed.jsonl")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.contents(atPath: folder.file("killed.jsonl")) == expected)
    }

    @Test func aCursorTheJournalNoLongerHasStartsAtItsOldestEntryWithAWarning() throws {
        let folder = try Folder()
        let file = folder.file("system.journal")
        try Self.writeJournal([Entry(at: 1_764_928_800, [("MESSAGE", "first")])], to: file)
        let first = try runBinary(["--journal", "--journal-dir", folder.path, "--once", "--format", "json", "--state", folder.file("state"),
                                   "--output", folder.file("out.jsonl")])
        #expect(first.status == 0, "\(first.stderr)")
        // Vacuumed: the file is gone, another with other entries in its place.
        try FileManager.default.removeItem(atPath: file)
        try Self.writeJournal([Entry(at: 1_764_928_900, [("MESSAGE", "after the vacuum")])], to: folder.file("other.journal"))
        let second = try runBinary(["--journal", "--journal-dir", folder.path, "--once", "--format", "json", "--state", folder.file("state"),
                                    "--output", folder.file("out.jsonl")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("toastscript: warning: the journal no longer has the entry the state was saved after "
                                       + "(vacuumed or rotated away); reading on from its oldest entry\n"), "\(second.stderr)")
        let out = (try? String(contentsOfFile: folder.file("out.jsonl"), encoding: .utf8)) ?? ""
        #expect(Self.presents(out).map { $0["message"] as? String } == ["first", "after the vacuum"])
    }

    /// The README's "Watch your journal" command, on a journal file with `--once` and JSON in
    /// place of the desktop: the backup unit's errors, and nothing else.
    @Test func theReadmesJournalCommandShowsTheUnitsErrors() throws {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8).components(separatedBy: "\n")
        let start = try #require(readme.firstIndex { $0.hasPrefix("    toastscript --journal") })
        var command = ""
        for line in readme[start...] {
            command += line.trimmingCharacters(in: .whitespaces)
            guard command.hasSuffix("\\") else { break }
            command = String(command.dropLast()) + " "
        }
        let folder = try Folder()
        let file = folder.file("system.journal")
        try Self.writeJournal([
            Entry(at: 1_764_928_800, [("MESSAGE", "backup failed"), ("PRIORITY", "3"), ("_SYSTEMD_UNIT", "backup.service")]),
            Entry(at: 1_764_928_801, [("MESSAGE", "backup done"), ("PRIORITY", "6"), ("_SYSTEMD_UNIT", "backup.service")]),
            Entry(at: 1_764_928_802, [("MESSAGE", "nginx failed"), ("PRIORITY", "3"), ("_SYSTEMD_UNIT", "nginx.service")]),
        ], to: file)
        #expect(command.contains(" --desktop "))
        let local = "'\(binary)'" + command.dropFirst("toastscript".count)
            .replacingOccurrences(of: " --desktop ", with: " --journal-file '\(file)' --once --format json ")
        let run = try runShell(local)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.presents(run.stdout).map { $0["message"] as? String } == ["backup failed"], "\(run.stdout)")
    }

    @Test func aMessageOverTheLineLimitIsCutWithAnEllipsis() throws {
        let folder = try Folder()
        let file = folder.file("system.journal")
        try Self.writeJournal([Entry(at: 1_764_928_800, [("MESSAGE", String(repeating: "é", count: 100))])], to: file)
        let run = try runBinary(["--journal", "--journal-file", file, "--once", "--format", "json", "--max-line-bytes", "51"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.presents(run.stdout).first?["message"] as? String == String(repeating: "é", count: 25) + "…")
    }

    @Test func journalsThatCannotBeReadAreNamedAndOptionsRefused() throws {
        let folder = try Folder()
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: folder.file("bad.journal")))
        for (arguments, message) in [
            (["--journal-file", folder.file("bad.journal")],
             "cannot read the journal \(folder.file("bad.journal")): not a journal file, or a damaged one (Bad message)"),
            (["--journal-file", folder.file("missing.journal")],
             "cannot open --journal-file \(folder.file("missing.journal")): No such file or directory"),
            (["--journal-file", folder.path], "--journal-file \(folder.path) is not a file"),
            (["--journal-dir", folder.file("bad.journal")], "--journal-dir \(folder.file("bad.journal")) is not a folder"),
        ] {
            let run = try runBinary(["--journal", "--once"] + arguments)
            #expect(run.status == 1)
            #expect(run.stderr == "toastscript: \(message)\n", "\(run.stderr)")
        }
        for (arguments, message) in [
            (["--journal", "--input", "text"], "--journal reads the journal's entries; --input cannot be given with it"),
            (["--journal", "--follow", "x.log"], "--journal reads the journal's entries; --follow cannot be given with it"),
            (["--journal", "--clock", "stream"], "--journal reads new entries on the follow clock; --clock stream needs --once"),
            (["--journal-match", "unit=x"],
             "--journal-match takes FIELD=VALUE, a journal field's name in capitals (_SYSTEMD_UNIT=backup.service), not 'unit=x'"),
        ] {
            let run = try runBinary(arguments)
            #expect(run.status == 2)
            #expect(run.stderr.hasPrefix("toastscript: \(message)\n"), "\(run.stderr)")
        }
    }
}
