import ToastCore
import ToastIO

/// A consumer's state in Redis (docs/scale.md, "Exactly once"): a hash at
/// `toastscript:state:GROUP:NAME` with a field for each row a `--state` file keeps in its
/// tables (`run:NAME`, `part:NAME`, `screen:SERIAL`, `timer:SEQUENCE`, `window:SEQUENCE`,
/// `held:SERIAL`, each a JSON value) and `commit`, the number of the last commit. A commit
/// sets the fields that changed and deletes those of what is gone, so what it costs grows with
/// what changed, not with the number of screens.
struct RedisStateHash {
    /// The parts' text as last written: a part is set again only when it differs.
    private var partsWritten: [String: UInt64] = [:]
    /// Whether the next commit empties the key first (no state was read).
    private var fresh: Bool

    init(fresh: Bool) {
        self.fresh = fresh
    }

    static func field(of id: SavedRowID) -> String {
        switch id.kind {
        case .part: "part:" + id.name
        case .screen, .timer, .window, .held: "\(id.kind.rawValue):\(id.number)"
        }
    }

    /// The row a field names (nil: a run field, `commit`, or a field of no toastscript).
    static func row(ofField field: String) -> SavedRowID? {
        guard let colon = field.firstIndex(of: ":") else { return nil }
        let name = String(field[field.index(after: colon)...])
        guard let kind = SavedRowID.Kind(rawValue: String(field[..<colon])) else { return nil }
        if kind == .part { return .part(name) }
        guard let number = Int64(name) else { return nil }
        return SavedRowID(kind: kind, number: number)
    }

    /// The fields of `run` and of the pipeline's changed rows.
    mutating func changes(run: SavedRun, rows: SavedRowChanges, key: String, commit: Int64) -> RedisHashChanges {
        var changes = RedisHashChanges(key: key, commit: commit)
        changes.replacesAll = fresh
        fresh = false
        for (name, value) in run.runRows { changes.set.append(("run:" + name, Self.text(value)[...])) }
        for row in rows.written {
            if row.id.kind == .part {
                let checksum = FileIdentity.checksum(row.text)
                guard partsWritten[row.id.name] != checksum else { continue }
                partsWritten[row.id.name] = checksum
            }
            changes.set.append((Self.field(of: row.id), row.text))
        }
        for id in rows.deleted {
            if id.kind == .part { partsWritten[id.name] = nil }
            changes.deleted.append(Self.field(of: id))
        }
        return changes
    }

    /// The saved run the hash's fields hold, and its commit number; nil for an empty hash.
    static func savedRun(fields: [(name: String, value: String)]) throws(SavedRun.ReadError) -> (run: SavedRun, commit: Int64)? {
        guard !fields.isEmpty else { return nil }
        var run: [String: JSONValue] = [:]
        var rows: [SavedRowID: JSONValue] = [:]
        // The screens stay text until the restore reads each (`SavedScreenRows`).
        var screenRows = SavedScreenRows()
        var commit: Int64 = 0
        for (name, text) in fields {
            if name == RedisHashChanges.commitField {
                guard let number = Int64(text) else { throw .damaged("its field commit is not a number") }
                commit = number
                continue
            }
            if let id = row(ofField: name), id.kind == .screen {
                screenRows.append(serial: id.number, text: Array(text.utf8))
                continue
            }
            let value: JSONValue
            do {
                value = try JSONScanner.value(of: Array(text.utf8))
            } catch {
                throw .damaged("field \(TerminalText.escaped(name)): \(error.message)")
            }
            if name.hasPrefix("run:") {
                run[String(name.dropFirst(4))] = value
            } else if let id = row(ofField: name) {
                rows[id] = value
            } else {
                throw .damaged("it has a field \(TerminalText.escaped(name)), which no toastscript writes")
            }
        }
        return (try SavedRun(runRows: run, pipelineRows: rows, screenRows: screenRows), commit)
    }

    /// Remembers the parts a restored state holds, so that the first commit leaves out those
    /// that did not change.
    mutating func restored(fields: [(name: String, value: String)]) {
        for (name, text) in fields where name.hasPrefix("part:") {
            partsWritten[String(name.dropFirst(5))] = FileIdentity.checksum(Array(text.utf8))
        }
    }

    private static func text(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.appendValue(value, to: &bytes)
        return bytes
    }
}
