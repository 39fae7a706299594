import Testing
@testable import ToastCore
@testable import ToastPipelineTesting

/// The pipeline saved as rows (`Pipeline.savedRows`): what a checkpoint writes is what
/// changed since the last, and the rows put together again restore the run that never stopped.
@Suite struct PipelineRowsTests {
    /// Screens by `user`, each with a sticky toast on it once shown; a rate limit and dedup.
    private func makePipeline(_ log: RecordLog) -> Pipeline {
        var settings = PipelineSettings()
        settings.screens = ScreenSettings(by: "user")
        return Pipeline(settings: settings, stages: [
            ("dedup", DedupStage(settings: DedupSettings())), ("rate_limit", RateLimitStage(settings: RateLimitSettings())),
            ("priority", PriorityStage()), ("style", StyleStage()), ("announce", AnnounceStage()),
        ], output: log)
    }

    private func show(_ message: String, user: String, at seconds: Int64, sticky: Bool = true) -> Event {
        var toast = Toast(id: "", message: message)
        toast.extra = [JSONMember("user", .string(user))]
        toast.set(.source, to: .text(user))
        toast.durationMicros = sticky ? nil : 3_000_000
        return Event(.show(toast), at: seconds * 1_000_000)
    }

    /// The rows as a state keeps them: the last value written of each, the deleted gone.
    private func apply(_ changes: SavedRowChanges, to rows: inout [SavedRowID: JSONValue]) {
        for row in changes.written { rows[row.id] = row.value }
        for id in changes.deleted { rows[id] = nil }
    }

    @Test func aCheckpointWritesOnlyTheScreensAnEventTouched() throws {
        let pipeline = makePipeline(RecordLog())
        for user in 0..<50 { pipeline.handle(show("hello", user: "u\(user)", at: Int64(user))) }
        let first = try pipeline.savedRows()
        #expect(first.written.filter { $0.id.kind == .screen }.count == 50)
        #expect(first.deleted.isEmpty)
        // dedup keeps each screen's keys in the screen's row, not in a row of its own for all.
        #expect(first.written.first { $0.id == .part("stage dedup") }?.value == .object([JSONMember("screens", .array([]))]))
        let keyed = first.written.filter { $0.id.kind == .screen }.compactMap { row in row.value.flatMap { try? SavedObject($0, path: "").optional("keyed") } }
        #expect(keyed.count == 50)
        // Nothing happened since: only the parts, which the writer compares with what it wrote.
        let idle = try pipeline.savedRows(verifying: true)
        #expect(idle.written.allSatisfy { $0.id.kind == .part }, "\(idle.written.map(\.id))")
        #expect(idle.unchanged.count == 50)
        // One event for one user: that screen is written, and no other.
        pipeline.handle(show("again", user: "u7", at: 60))
        let one = try pipeline.savedRows()
        let screens = one.written.filter { $0.id.kind == .screen }
        #expect(screens.count == 1)
        #expect(screens.first?.value.map { try? SavedObject($0, path: "").string("key") } == "u7")
        #expect(one.deleted.isEmpty)
    }

    @Test func rowsPutTogetherRestoreTheRunThatNeverStopped() throws {
        let events = (0..<120).map { index in
            show("m\(index % 7)", user: "u\(index % 9)", at: Int64(index), sticky: index % 4 == 0)
        }
        let wholeLog = RecordLog()
        let whole = makePipeline(wholeLog)
        for event in events { whole.handle(event) }
        whole.finish(drain: true)

        let firstLog = RecordLog()
        let first = makePipeline(firstLog)
        var rows: [SavedRowID: JSONValue] = [:]
        for (index, event) in events[..<70].enumerated() {
            first.handle(event)
            if index % 10 == 0 { apply(try first.savedRows(), to: &rows) }
        }
        apply(try first.savedRows(), to: &rows)
        let stages = first.stageNames
        let saved = try Pipeline.savedState(fromRows: rows, stages: stages)
        let secondLog = RecordLog()
        let second = makePipeline(secondLog)
        try second.restore(from: saved)
        second.rowsWereRestored(rows.keys)
        // Restored, the rows are those it would write; and nothing needs writing yet.
        #expect(try second.savedRows().written.allSatisfy { $0.id.kind == .part })
        for event in events[70...] { second.handle(event) }
        second.finish(drain: true)
        #expect(firstLog.jsonLines + secondLog.jsonLines == wholeLog.jsonLines)
    }

    /// Screens are ordered by their stamps of recency: two screens with the same stamp (which
    /// a run never gives twice) make rows that do not go together, whatever order they come in
    /// (a fuzz finding, Fuzz/findings/state-2.tsv).
    @Test func twoScreensWithOneStampOfRecencyAreRefused() throws {
        let pipeline = makePipeline(RecordLog())
        for (index, user) in ["u1", "u2"].enumerated() { pipeline.handle(show("m", user: user, at: Int64(index), sticky: true)) }
        var rows: [SavedRowID: JSONValue] = [:]
        apply(try pipeline.savedRows(), to: &rows)
        let screens = rows.keys.filter { $0.kind == .screen }.sorted { $0.number < $1.number }
        #expect(screens.count == 2)
        guard screens.count == 2, case .object(var members)? = rows[screens[1]],
              let named = members.firstIndex(where: { $0.name == "named" }), case .object(let first)? = rows[screens[0]],
              let stamp = first.first(where: { $0.name == "named" })?.value else { return }
        members[named].value = stamp
        rows[screens[1]] = .object(members)
        #expect(throws: SavedStateError("screens \(screens[0].number) and \(screens[1].number) have the same stamp of recency (named \(JSONText.encode(stamp)))")) {
            try Pipeline.savedState(fromRows: rows, stages: pipeline.stageNames)
        }
    }
}
