import CSQLite
import CSQLiteBridge

/// One SQLite database, owned: this file is the only Swift that calls SQLite's C API (the
/// state file, docs/service.md "The state file"). Statements are prepared once and kept;
/// each bind copies its bytes (`SQLITE_TRANSIENT`), so nothing Swift lends outlives the call.
///
/// Safe to use: the connection lives exactly as long as this object and its statements as
/// long as theirs (finalized before the connection is closed, which `SQLiteStatement` keeps
/// alive); a column's bytes are copied out before the next step.
final class SQLiteDatabase {
    fileprivate let handle: OpaquePointer
    /// The pages the WAL holds after the last commit (set by SQLite, `csqlite_count_wal_pages`);
    /// freed after the connection is closed.
    private let walPageCount = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Opens (or creates) the database at `path`.
    init(path: String) throws(SQLiteError) {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(opened)
            throw SQLiteError(message: message)
        }
        handle = opened
        // A busy database (a reader's transaction on the WAL's checkpoint) is waited for a while.
        sqlite3_busy_timeout(handle, 5_000)
        // The WAL, synced at every commit, stays at close for the next open to read: copying
        // it into the database there would only delay the end of the run. For the same reason
        // it is copied when the state says (`copyWALIfLong`), not after any commit that makes it long.
        csqlite_keep_wal_on_close(handle)
        walPageCount.initialize(to: 0)
        csqlite_count_wal_pages(handle, walPageCount)
    }

    deinit {
        sqlite3_close_v2(handle)
        walPageCount.deallocate()
    }

    /// Runs statements that return no rows (a schema, a pragma).
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw SQLiteError(message: text)
        }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else { throw SQLiteError(message: lastError) }
        return SQLiteStatement(database: self, statement: statement)
    }

    /// The WAL's length, in pages, from which it is copied: the one SQLite copies at by itself.
    private static let longWAL: Int32 = 1_000

    /// Copies what the WAL holds into the database once it is `longWAL` or longer, as far as no
    /// reader needs it (a passive checkpoint), so that the WAL starts again from its beginning
    /// at the next write: a long WAL is copied once, not a short one at every commit.
    func copyWALIfLong() {
        guard walPageCount.pointee >= Self.longWAL else { return }
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        walPageCount.pointee = 0
    }

    /// The first value of the first row of `sql` as text (a pragma's answer); nil for none.
    func text(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.text(0) : nil
    }

    fileprivate var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// Whether the bytes begin as an SQLite database does ("SQLite format 3" and a zero).
    static func isDatabase(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("SQLite format 3".utf8) + [0])
    }
}

/// A prepared statement of a `SQLiteDatabase`, used again and again: bind, step, reset.
final class SQLiteStatement {
    private let database: SQLiteDatabase
    private let statement: OpaquePointer

    fileprivate init(database: SQLiteDatabase, statement: OpaquePointer) {
        self.database = database
        self.statement = statement
    }

    deinit { sqlite3_finalize(statement) }

    /// Runs the statement to its next row: true when there is one.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(statement)
            return false
        default:
            let message = database.lastError
            sqlite3_reset(statement)
            throw SQLiteError(message: message)
        }
    }

    /// Binds `values` to the parameters in order (1, 2, …) and runs the statement to its end
    /// (an insert, a delete). A text is lent to SQLite, not copied (`SQLITE_STATIC`): it is bound
    /// inside the scope that lends its bytes, the statement runs there, and the bindings are
    /// cleared before the scope ends, so SQLite never holds a pointer the caller has taken back.
    func run(_ values: SQLiteValue...) throws(SQLiteError) {
        sqlite3_reset(statement)
        defer { sqlite3_clear_bindings(statement) }
        if let error = bindAndRun(values[...]) { throw error }
    }

    /// Binds the first of `values` to its parameter, then the rest, then runs the statement.
    private func bindAndRun(_ values: ArraySlice<SQLiteValue>) -> SQLiteError? {
        guard let value = values.first else {
            do {
                while try step() {}
                return nil
            } catch {
                return error
            }
        }
        let index = Int32(values.startIndex + 1)
        let rest = values.dropFirst()
        switch value {
        case .integer(let integer):
            return failure(sqlite3_bind_int64(statement, index, integer)) ?? bindAndRun(rest)
        case .null:
            return failure(sqlite3_bind_null(statement, index)) ?? bindAndRun(rest)
        case .text(let text):
            return text.utf8.withContiguousStorageIfAvailable { bindText(UnsafeRawBufferPointer($0), at: index, thenRun: rest) }
                ?? bindText(Array(text.utf8)[...], at: index, thenRun: rest)
        case .bytes(let bytes):
            return bindText(bytes, at: index, thenRun: rest)
        }
    }

    private func bindText(_ bytes: ArraySlice<UInt8>, at index: Int32, thenRun rest: ArraySlice<SQLiteValue>) -> SQLiteError? {
        bytes.withUnsafeBytes { bindText($0, at: index, thenRun: rest) }
    }

    /// Binds UTF-8 `text` (lent for this call) to parameter `index`, then the rest, then runs.
    private func bindText(_ text: UnsafeRawBufferPointer, at index: Int32, thenRun rest: ArraySlice<SQLiteValue>) -> SQLiteError? {
        // A nil pointer would bind NULL: an empty text is copied from a literal instead.
        guard let start = text.baseAddress, !text.isEmpty else {
            return failure(sqlite3_bind_text(statement, index, "", 0, SQLiteStatement.transient)) ?? bindAndRun(rest)
        }
        let status = sqlite3_bind_text(statement, index, start.assumingMemoryBound(to: CChar.self), Int32(text.count),
                                       SQLiteStatement.lent)
        return failure(status) ?? bindAndRun(rest)
    }

    private func failure(_ status: Int32) -> SQLiteError? {
        status == SQLITE_OK ? nil : SQLiteError(message: database.lastError)
    }

    /// Column `index` of the current row as text (nil for NULL).
    func text(_ index: Int32) -> String? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL, let bytes = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as bytes (a text's, copied).
    func bytes(_ index: Int32) -> [UInt8] {
        withBytes(index) { Array($0) }
    }

    /// Column `index` of the current row as bytes, lent to `body` (they are SQLite's, valid
    /// only until the statement steps again): a reader that copies them where they go needs
    /// no array of its own for each row.
    func withBytes<Result>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard let bytes = sqlite3_column_blob(statement, index) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))))
    }

    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    /// `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    /// `SQLITE_STATIC`: SQLite reads the bytes where they are, until they are bound again or cleared.
    private static let lent: sqlite3_destructor_type? = nil
}

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    /// UTF-8 text given as bytes (JSON written by `JSONText`).
    case bytes(ArraySlice<UInt8>)
    case null
}

/// What SQLite said went wrong.
struct SQLiteError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
