import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastCLI

/// A consumer's state hash is written by changes: the run's fields each commit, a part only
/// when its text changed, the rows handed over, and deletes for what is gone; the first commit
/// of a fresh state empties the key. Read back, the fields give the run again.
@Suite struct RedisStateHashTests {
    static let run = SavedRun(writtenBy: "toastscript test", stages: ["dedup"], screensBy: nil, output: nil,
                              input: InputPosition(), inputSeekable: false, outputLength: nil, ended: false,
                              store: .table([]), pipeline: nil)

    @Test func aCommitWritesWhatChangedAndDeletesWhatIsGone() {
        var hash = RedisStateHash(fresh: true)
        var rows = SavedRowChanges()
        rows.written = [SavedRow(id: .part("clock"), value: .object([JSONMember("now", .integer(1))])),
                        SavedRow(id: SavedRowID(kind: .screen, number: 4), value: .object([JSONMember("key", .string("ada"))]))]
        let first = hash.changes(run: Self.run, rows: rows, key: "k", commit: 1)
        #expect(first.replacesAll)
        #expect(first.set.map(\.field).filter { !$0.hasPrefix("run:") } == ["part:clock", "screen:4"])
        #expect(first.set.first { $0.field == "run:format" }.map { String(decoding: $0.value, as: UTF8.self) } == "3")

        rows.written = [SavedRow(id: .part("clock"), value: .object([JSONMember("now", .integer(1))]))]
        rows.deleted = [SavedRowID(kind: .screen, number: 4)]
        let second = hash.changes(run: Self.run, rows: rows, key: "k", commit: 2)
        #expect(!second.replacesAll)
        #expect(second.set.map(\.field).filter { !$0.hasPrefix("run:") } == [], "the clock's text did not change")
        #expect(second.deleted == ["screen:4"])
    }

    @Test func theFieldsReadBackAsTheRun() throws {
        var hash = RedisStateHash(fresh: true)
        let changes = hash.changes(run: Self.run, rows: SavedRowChanges(), key: "k", commit: 9)
        let fields = changes.set.map { (name: $0.field, value: String(decoding: $0.value, as: UTF8.self)) } + [("commit", "9")]
        let read = try #require(try RedisStateHash.savedRun(fields: fields))
        #expect(read.run == Self.run)
        #expect(read.commit == 9)
        #expect(throws: SavedRun.ReadError.damaged("it has a field screens:1, which no toastscript writes")) {
            try RedisStateHash.savedRun(fields: fields + [("screens:1", "{}")])
        }
        #expect(try RedisStateHash.savedRun(fields: []) == nil)
    }
}
