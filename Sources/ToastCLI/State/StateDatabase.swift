#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO

/// The database `--state FILE` names (docs/service.md, "The state file"): SQLite in WAL mode,
/// one table a kind of row. A checkpoint is one transaction — the rows that changed, the rows
/// of what is gone deleted, the run's positions — synced at its commit, so that FILE holds at
/// every moment the last checkpoint or the one before, never a mix. Readers (`sqlite3`) are
/// not blocked; the one writer is this run (`StateLock`).
final class StateDatabase {

    let path: String
    /// The database; nil until the first write when there was no file (so that a run refused
    /// before it begins leaves no state behind).
    private var database: SQLiteDatabase?
    /// `TOASTSCRIPT_TEST_KILL_AT=POINT:N`: the process kills itself with SIGKILL at POINT of
    /// its Nth checkpoint (`after-records`, `before-commit`, `after-commit`), so that tests
    /// reach the moments that matter for certain. Unset in any real run.
    let killPoint: (point: String, checkpoint: Int)?
    private(set) var checkpoints = 0
    /// The checksum of each part's text as last written, so that a part written again the same
    /// is left out; in debug builds of every row, to check that a row the pipeline calls
    /// unchanged is. (The other rows are handed over only when they changed.)
    private var written: [SavedRowID: UInt64] = [:]
    private static let checksAllRows: Bool = {
        var debug = false
        assert({ debug = true; return true }())
        return debug
    }()
    /// Whether a checkpoint's transaction is open: rows handed ahead of it are in (`writeAhead`).
    private var inTransaction = false
    /// Each kind's statements, prepared once.
    private var writes: [SavedRowID.Kind: SQLiteStatement] = [:]
    private var deletes: [SavedRowID.Kind: SQLiteStatement] = [:]
    private var setRun: SQLiteStatement?

    /// The tables, made in one transaction. Pages of 16 KiB (set before the file's first
    /// write): a checkpoint writes screens in runs of serial numbers, so larger pages mean
    /// fewer of them to write and sync. A page cache of up to 64 MiB: a checkpoint that
    /// rewrites every screen finds the pages it changes in memory instead of reading them
    /// back from the file and its WAL again. Freed space is not overwritten with zeros (Debian
    /// builds SQLite to do so): every row a checkpoint rewrites frees its old cell, so zeroing
    /// grows with the rows written; and the old texts it would clear stay in the WAL's
    /// frames until they are written over, so it kept nothing from a reader of the files.
    private static let schema = """
        PRAGMA page_size = 16384;
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = FULL;
        PRAGMA cache_size = -65536;
        PRAGMA secure_delete = OFF;
        BEGIN IMMEDIATE;
        CREATE TABLE IF NOT EXISTS run (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS parts (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS screens (serial INTEGER PRIMARY KEY, key NOT NULL, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS timers (sequence INTEGER PRIMARY KEY, due INTEGER NOT NULL, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS windows (sequence INTEGER PRIMARY KEY, due INTEGER NOT NULL, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS held (serial INTEGER PRIMARY KEY, screen INTEGER NOT NULL, stage TEXT NOT NULL,
                                         value TEXT NOT NULL);
        COMMIT;
        """

    /// The tables of the pipeline's rows, by kind.
    private static func table(of kind: SavedRowID.Kind) -> String {
        switch kind {
        case .part: "parts"
        case .screen: "screens"
        case .timer: "timers"
        case .window: "windows"
        case .held: "held"
        }
    }

    /// Removes the state at `path` and its WAL files (`--state-reset`, under the state's lock).
    static func remove(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] { unlink(file) }
    }

    /// The column that names a row of each kind.
    private static func key(of kind: SavedRowID.Kind) -> String {
        switch kind {
        case .part: "name"
        case .screen, .held: "serial"
        case .timer, .window: "sequence"
        }
    }

    /// Opens the state at `path`. A file that is there and is no state of this format is
    /// refused here, before anything is written to it (`read` says why).
    init(path: String, killPoint setting: String?) throws(StateRefusal) {
        self.path = path
        killPoint = setting.flatMap { setting in
            let parts = setting.split(separator: ":")
            guard parts.count == 2, let count = Int(parts[1]) else { return nil }
            return (String(parts[0]), count)
        }
        if let problem = Self.notADatabase(path) { throw problem }
        guard access(path, F_OK) == 0 else { return }
        do {
            database = try SQLiteDatabase(path: path)
        } catch {
            throw StateRefusal(message: SavedRun.ReadError.damaged("\(error)").message(place: .file(path)))
        }
    }

    /// The database, made with its tables the first time.
    private func opened() throws(SQLiteError) -> SQLiteDatabase {
        if let database { return database }
        let made = try SQLiteDatabase(path: path)
        try made.execute(Self.schema)
        database = made
        return made
    }

    /// Why the file at `path` is not an SQLite database (an earlier format's, or anything
    /// else), as a refusal; nil when it is one or there is none.
    private static func notADatabase(_ path: String) -> StateRefusal? {
        guard let source = try? FileDescriptorSource.opening(path), let first = source.firstBytes(4096), !first.isEmpty,
              !SQLiteDatabase.isDatabase(first) else { return nil }
        let place = StatePlace.file(path)
        switch SavedRun.earlier(firstLine: Array(first.prefix { $0 != 0x0A })) {
        case .damaged:
            return StateRefusal(message: SavedRun.ReadError.damaged("it is not a toastscript state: not an SQLite database").message(place: place))
        case let earlier:
            return StateRefusal(message: earlier.message(place: place))
        }
    }

    /// The saved run, with its pipeline put together from the rows; nil for a new state
    /// (no rows yet).
    func read() throws(SavedRun.ReadError) -> SavedRun? {
        var run: [String: JSONValue] = [:]
        var rows: [SavedRowID: JSONValue] = [:]
        // The screens stay text until the restore reads each (`SavedScreenRows`).
        var screenRows = SavedScreenRows()
        guard let database else { return nil }
        do {
            // The tables are made in one transaction: a database without any is one a run made
            // and was killed before it wrote, and holds nothing to go on from.
            guard try database.text("SELECT count(*) FROM sqlite_master") != "0" else {
                try database.execute(Self.schema)
                return nil
            }
            guard try database.text("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'run'") == "1" else {
                throw SavedRun.ReadError.damaged("it is an SQLite database, but not a toastscript state: it has no table run")
            }
            // A state written by this toastscript has its tables; one of an older version gets those it lacks.
            try database.execute(Self.schema)
            let runRows = try database.prepare("SELECT name, value FROM run")
            while try runRows.step() {
                run[runRows.text(0) ?? ""] = try Self.value(runRows.bytes(1), row: "run \(runRows.text(0) ?? "")")
            }
            guard !run.isEmpty else { return nil }
            for kind in SavedRowID.Kind.allCases {
                let statement = try database.prepare("SELECT \(Self.key(of: kind)), value FROM \(Self.table(of: kind))")
                while try statement.step() {
                    let id = kind == .part ? SavedRowID.part(statement.text(0) ?? "") : SavedRowID(kind: kind, number: statement.integer(0))
                    if kind == .screen {
                        // The screens' rows, most of the state, go straight from SQLite's page into one buffer.
                        statement.withBytes(1) { text in
                            screenRows.append(serial: id.number, text: text)
                            if Self.checksAllRows { written[id] = Self.checksum(text) }
                        }
                        continue
                    }
                    let bytes = statement.bytes(1)
                    rows[id] = try Self.value(bytes, row: "\(Self.table(of: kind)) \(kind == .part ? id.name : String(id.number))")
                    if kind == .part || Self.checksAllRows { written[id] = Self.checksum(bytes) }
                }
            }
        } catch let error as SavedRun.ReadError {
            throw error
        } catch {
            throw .damaged("\(error)")
        }
        return try SavedRun(runRows: run, pipelineRows: rows, screenRows: screenRows)
    }

    private static func value(_ bytes: [UInt8], row: String) throws(SavedRun.ReadError) -> JSONValue {
        do {
            return try JSONScanner.value(of: bytes)
        } catch {
            throw .damaged("\(row): \(error.message)")
        }
    }

    /// Writes a checkpoint in one transaction: the run's rows, and the pipeline's that changed
    /// (`rows` nil: the state of a run that has not begun, whose pipeline has no rows yet).
    /// `beforeCommit` runs last before the commit (the output's sync, which so goes on while the
    /// rows are written); a reason it returns rolls the checkpoint back. Unless it is the run's
    /// `last`, a long WAL is then copied into the database (the last one's stays in the WAL, for
    /// the next run to read, and the run ends sooner). Returns the reason when it cannot (the last
    /// checkpoint stays).
    func write(_ run: SavedRun, rows: SavedRowChanges?, last: Bool = false, beforeCommit: () -> String? = { nil }) -> String? {
        checkpoints += 1
        do {
            let database = try opened()
            if !inTransaction { try database.execute("BEGIN IMMEDIATE") }
            inTransaction = false
            do {
                let setRun: SQLiteStatement
                if let prepared = self.setRun {
                    setRun = prepared
                } else {
                    setRun = try opened().prepare("INSERT OR REPLACE INTO run (name, value) VALUES (?, ?)")
                    self.setRun = setRun
                }
                for (name, value) in run.runRows {
                    try setRun.run(.text(name), .bytes(Self.text(value)[...]))
                }
                if let rows {
                    try apply(rows)
                } else {
                    for kind in SavedRowID.Kind.allCases { try database.execute("DELETE FROM \(Self.table(of: kind))") }
                    written.removeAll()
                }
                if let reason = beforeCommit() {
                    try? database.execute("ROLLBACK")
                    return reason
                }
                killIfAsked(at: "before-commit")
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        } catch {
            return "cannot write --state \(path): \(error)"
        }
        killIfAsked(at: "after-commit")
        if !last { database?.copyWALIfLong() }
        return nil
    }

    /// Writes rows of the checkpoint being taken ahead of it, in its transaction (opened by the
    /// first such rows): `write` adds the rest and commits them together. Returns the reason
    /// when it cannot (the transaction is rolled back; the last checkpoint stays).
    func writeAhead(_ rows: SavedRowChanges) -> String? {
        do {
            let database = try opened()
            if !inTransaction {
                try database.execute("BEGIN IMMEDIATE")
                inTransaction = true
            }
            try apply(rows)
        } catch {
            abandon()
            return "cannot write --state \(path): \(error)"
        }
        return nil
    }

    /// Rolls back rows written ahead of a checkpoint that was never taken to its end (the run
    /// stopped while it was being made).
    func abandon() {
        guard inTransaction else { return }
        inTransaction = false
        try? database?.execute("ROLLBACK")
    }

    private func apply(_ rows: SavedRowChanges) throws(SQLiteError) {
        for row in rows.unchanged {
            assert(written[row.id] == Self.checksum(row.text),
                   "\(row.id.kind) \(row.id.number) changed, and nothing touched it: \(String(decoding: row.text, as: UTF8.self)); it was \((try? database?.text("SELECT value FROM screens WHERE serial = \(row.id.number)")) ?? "no row")")
        }
        for row in rows.written {
            let id = row.id
            if id.kind == .part || Self.checksAllRows {
                let checksum = Self.checksum(row.text)
                guard written[id] != checksum else { continue }
                written[id] = checksum
            }
            let statement = try writeStatement(id.kind)
            switch (id.kind, row.columns) {
            case (.part, _): try statement.run(.text(id.name), .bytes(row.text))
            case (.screen, .screen(key: .text(let key))): try statement.run(.integer(id.number), .text(key), .bytes(row.text))
            case (.screen, .screen(key: .integer(let key))): try statement.run(.integer(id.number), .integer(key), .bytes(row.text))
            case (.timer, .due(let due)), (.window, .due(let due)):
                try statement.run(.integer(id.number), .integer(due), .bytes(row.text))
            case (.held, .held(let screen, let stage)):
                try statement.run(.integer(id.number), .integer(screen), .text(stage), .bytes(row.text))
            case (.screen, _), (.timer, _), (.window, _), (.held, _):
                throw SQLiteError(message: "the row of \(id.kind) \(id.number) lacks the columns of its table")
            }
        }
        for id in rows.deleted {
            written[id] = nil
            let statement: SQLiteStatement
            if let prepared = deletes[id.kind] {
                statement = prepared
            } else {
                statement = try opened().prepare("DELETE FROM \(Self.table(of: id.kind)) WHERE \(Self.key(of: id.kind)) = ?")
                deletes[id.kind] = statement
            }
            try statement.run(id.kind == .part ? .text(id.name) : .integer(id.number))
        }
    }

    private func writeStatement(_ kind: SavedRowID.Kind) throws(SQLiteError) -> SQLiteStatement {
        if let prepared = writes[kind] { return prepared }
        let database = try opened()
        let statement = try database.prepare(Self.writeStatements[kind] ?? "")
        writes[kind] = statement
        return statement
    }

    private static let writeStatements: [SavedRowID.Kind: String] = [
        .part: "INSERT OR REPLACE INTO parts (name, value) VALUES (?, ?)",
        .screen: "INSERT OR REPLACE INTO screens (serial, key, value) VALUES (?, ?, ?)",
        .timer: "INSERT OR REPLACE INTO timers (sequence, due, value) VALUES (?, ?, ?)",
        .window: "INSERT OR REPLACE INTO windows (sequence, due, value) VALUES (?, ?, ?)",
        .held: "INSERT OR REPLACE INTO held (serial, screen, stage, value) VALUES (?, ?, ?, ?)",
    ]

    /// The rows the state holds and the bytes of its files (the database and its WAL), for
    /// `--metrics`; nil before the file exists or when SQLite cannot say.
    func size() -> (rows: Int, bytes: Int64)? {
        guard let database else { return nil }
        let tables = ["run", "parts"] + SavedRowID.Kind.allCases.filter { $0 != .part }.map(Self.table(of:))
        let query = "SELECT " + tables.map { "(SELECT count(*) FROM \($0))" }.joined(separator: " + ")
        guard let rows = (try? database.text(query)).flatMap({ $0 }).flatMap({ Int($0) }) else { return nil }
        var bytes: Int64 = 0
        for file in [path, path + "-wal"] {
            var status = stat()
            if stat(file, &status) == 0 { bytes += Int64(status.st_size) }
        }
        return (rows, bytes)
    }

    /// A test's kill point (`killPoint`), when this is it.
    func killIfAsked(at point: String, checkpoint: Int? = nil) {
        guard let killPoint, killPoint.point == point, killPoint.checkpoint == (checkpoint ?? checkpoints) else { return }
        kill(getpid(), SIGKILL)
    }

    private static func text(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.appendValue(value, to: &bytes)
        return bytes
    }

    private static func checksum(_ bytes: some Collection<UInt8>) -> UInt64 { FileIdentity.checksum(bytes) }
}

/// Why a run cannot go on from its state: said before any input is read (exit 1).
struct StateRefusal: Error {
    var message: String
}
