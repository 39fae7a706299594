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

    private func show(_ message: String, user: String, at seconds: Int64, sticky: Bool = true, source: String? = nil) -> Event {
        var toast = Toast(id: "", message: message)
        toast.extra = [JSONMember("user", .string(user))]
        toast.set(.source, to: .text(source ?? user))
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

    /// A checkpoint learns what changed from the table's lists, not by looking at every screen:
    /// a screen ended (by the limit here) has its row deleted, one made and ended between two
    /// checkpoints never gets a row, and a forgotten screen's object reused for a new one is
    /// written under its new serial.
    @Test func aCheckpointWritesTheScreensMadeAndDeletesThoseEndedSinceTheLast() throws {
        var settings = PipelineSettings()
        settings.screens = ScreenSettings(by: "user")
        settings.screens?.limit = 3
        let pipeline = Pipeline(settings: settings, stages: [("dedup", DedupStage(settings: DedupSettings()))], output: RecordLog())
        func screenRows(_ changes: SavedRowChanges) -> (written: [String], deleted: [Int64]) {
            (changes.written.filter { $0.id.kind == .screen }.compactMap { row in row.value.flatMap { try? SavedObject($0, path: "").string("key") } }.sorted(),
             changes.deleted.filter { $0.kind == .screen }.map(\.number).sorted())
        }
        for user in ["a", "b", "c"] { pipeline.handle(show("hello", user: user, at: 1)) }
        let first = screenRows(try pipeline.savedRows())
        #expect(first.written == ["a", "b", "c"] && first.deleted.isEmpty)
        // Each new screen ends the least recently named: d ends a, e b, f c, and g ends d, made
        // since the last checkpoint, which never had a row.
        for (index, user) in ["d", "e", "f", "g"].enumerated() { pipeline.handle(show("hello", user: user, at: 2 + Int64(index))) }
        let second = screenRows(try pipeline.savedRows())
        #expect(second.written == ["e", "f", "g"], "\(second)")
        #expect(second.deleted == [1, 2, 3], "the rows of a, b and c (serials 1 to 3), and none for d: \(second)")
        // Nothing since: nothing written, nothing deleted.
        let idle = screenRows(try pipeline.savedRows())
        #expect(idle.written.isEmpty && idle.deleted.isEmpty, "\(idle)")
        // h ends e (serial 5), whose row goes; h is written.
        pipeline.handle(show("hello", user: "h", at: 9))
        let third = screenRows(try pipeline.savedRows())
        #expect(third.written == ["h"] && third.deleted == [5], "\(third)")
        #expect(Set(pipeline.screenTable?.bySerial.values.map(\.key) ?? []) == Set(["f", "g", "h"].map { ScreenKey.text($0) }))
    }

    /// The table's lists of what changed stay as long as what they must say, however many
    /// screens come and go before a checkpoint: screens made and forgotten since the last are
    /// dropped from the changed as the list grows, and only screens with a row are listed as
    /// forgotten.
    @Test func theListsOfChangedScreensStayShortWithoutACheckpoint() throws {
        var settings = PipelineSettings()
        settings.screens = ScreenSettings(by: "user")
        settings.screens?.limit = 3
        let pipeline = Pipeline(settings: settings, stages: [("dedup", DedupStage(settings: DedupSettings()))], output: RecordLog())
        for user in 0..<3 { pipeline.handle(show("hello", user: "u\(user)", at: 1)) }
        _ = try pipeline.savedRows()
        for user in 3..<20_000 { pipeline.handle(show("hello", user: "u\(user)", at: 2)) }
        let listed = try #require(pipeline.screenTable?.takeChangesSinceSave())
        #expect(listed.changed.count <= 2 * 1_024 + 1, "\(listed.changed.count) serials listed as changed")
        #expect(listed.forgotten.sorted() == [1, 2, 3], "only the screens with rows: \(listed.forgotten.prefix(10))")
    }

    /// A rate limit's groups are kept with their screens: a screen's row holds them, and the
    /// stage's own row stays small however many screens there are.
    @Test func aScreensRateLimitGroupsAreInItsRow() throws {
        let pipeline = makePipeline(RecordLog())
        for user in 0..<600 { pipeline.handle(show("hello", user: "u\(user)", at: 1)) }
        let rows = try pipeline.savedRows()
        let part = try #require(rows.written.first { $0.id == .part("stage rate_limit") }?.value)
        #expect(try SavedObject(part, path: "").list("groups") == [])
        let row = try #require(rows.written.first { row in
            row.id.kind == .screen && row.value.flatMap { try? SavedObject($0, path: "").string("key") } == "u7"
        })
        let screen = try SavedObject(try #require(row.value), path: "screen")
        let keyed = try SavedObject(try screen.required("keyed"), path: "keyed")
        let rateLimit = try SavedObject(try keyed.required("rate_limit"), path: "rate_limit")
        #expect(try rateLimit.list("groups") == [.object([JSONMember("key", .object([JSONMember("value", .string("u7"))])),
                                                          JSONMember("passes", .array([.integer(1_000_000)]))])])
    }

    /// With a taker, a checkpoint's screens are offered a lot at a time as they are made; a
    /// lot it takes is not returned, one it refuses is, and every changed screen is in exactly one.
    @Test func screensRowsAreHandedAheadALotAtATime() throws {
        let pipeline = makePipeline(RecordLog())
        let count = 2 * Pipeline.screenRowsHandedAheadAtOnce + 300
        for user in 0..<count { pipeline.handle(show("a", user: "u\(user)", at: 0)) }
        var lots: [[SavedRow]] = []
        let rest = try pipeline.savedRows { lot in
            lots.append(lot.written)
            return lots.count != 2
        }
        #expect(lots.map(\.count) == [Pipeline.screenRowsHandedAheadAtOnce, Pipeline.screenRowsHandedAheadAtOnce, 300])
        #expect(lots.allSatisfy { $0.allSatisfy { $0.id.kind == .screen } })
        let returned = rest.written.filter { $0.id.kind == .screen }
        #expect(returned.map(\.id) == lots[1].map(\.id))
        let handed = (lots[0] + lots[2] + returned).map(\.id.number)
        #expect(handed.sorted() == Array(1...Int64(count)))
        // The parts are returned, not handed ahead.
        #expect(rest.written.contains { $0.id == .part("clock") } && rest.written.contains { $0.id == .part("screens") })
        // Nothing changed since: the next checkpoint offers no lot.
        lots.removeAll()
        #expect(try pipeline.savedRows { lots.append($0.written); return true }.written.allSatisfy { $0.id.kind != .screen })
        #expect(lots.isEmpty)
    }

    /// A screen's groups are a list of their own, which a sweep of the groups whose windows
    /// ended makes again: after one, each screen's row lists its groups, and no other's.
    @Test func aSweepOfEndedGroupsLeavesEachScreenItsOwn() throws {
        let pipeline = makePipeline(RecordLog())
        // 1,500 screens each with a group, held by their sticky toasts; then 1,600 more a minute
        // later, when the first groups' windows have ended: the table doubles, and is swept.
        for user in 0..<1_500 { pipeline.handle(show("a", user: "u\(user)", at: 0)) }
        for user in 0..<1_600 { pipeline.handle(show("b", user: "v\(user)", at: 60)) }
        for user in 0..<3 { pipeline.handle(show("c", user: "u\(user)", at: 61)) }
        let rows = try pipeline.savedRows().written.filter { $0.id.kind == .screen }
        #expect(rows.count == 3_100)
        for row in rows {
            let screen = try SavedObject(try #require(row.value), path: "screen")
            let key = try screen.string("key")
            let keyed = try SavedObject(try screen.required("keyed"), path: "keyed")
            let groups = try SavedObject(try keyed.required("rate_limit"), path: "rate_limit").list("groups")
            // A first screen's group was swept, but for those shown a toast again since.
            let expected: [JSONValue] = key.hasPrefix("u") && !["u0", "u1", "u2"].contains(key) ? [] : [.object([JSONMember("value", .string(key))])]
            #expect(groups.map { try? SavedObject($0, path: "").required("key") } == expected, "\(key)")
        }
    }

    /// A sweep changes the rows of the screens whose groups it forgot: the next checkpoint
    /// writes them again, though no event touched them.
    @Test func aSweepSavesTheScreensWhoseGroupsItForgot() throws {
        let pipeline = makePipeline(RecordLog())
        for user in 0..<1_500 { pipeline.handle(show("a", user: "u\(user)", at: 0)) }
        _ = try pipeline.savedRows()
        for user in 0..<1_600 { pipeline.handle(show("b", user: "v\(user)", at: 60)) }
        let rows = try pipeline.savedRows().written.filter { $0.id.kind == .screen }
        let keys = Set(try rows.map { try SavedObject(try #require($0.value), path: "screen").string("key") })
        #expect(keys == Set((0..<1_500).map { "u\($0)" } + (0..<1_600).map { "v\($0)" }))
    }

    /// A sweep that forgets some of a screen's groups leaves it the others, in their order.
    @Test func aSweepKeepsAScreensGroupsThatAreStillInTheirWindows() throws {
        let pipeline = makePipeline(RecordLog())
        // Each of 1,500 screens a group "a" at 0 s, then "b" and "c" at 55 s, when "a"'s window
        // (10 s) has ended: the table doubles while "b"s are made, and the "a"s are swept.
        for user in 0..<1_500 { pipeline.handle(show("ma", user: "u\(user)", at: 0, source: "a")) }
        for user in 0..<1_500 { pipeline.handle(show("mb", user: "u\(user)", at: 55, source: "b")) }
        for user in 0..<1_500 { pipeline.handle(show("mc", user: "u\(user)", at: 56, source: "c")) }
        let rows = try pipeline.savedRows().written.filter { $0.id.kind == .screen }
        #expect(rows.count == 1_500)
        for row in rows {
            let screen = try SavedObject(try #require(row.value), path: "screen")
            let keyed = try SavedObject(try screen.required("keyed"), path: "keyed")
            let groups = try SavedObject(try keyed.required("rate_limit"), path: "rate_limit").list("groups")
            let keys = groups.map { try? SavedObject($0, path: "").required("key") }
            let user = try screen.string("key")
            // Newest first.
            #expect(keys == ["c", "b"].map { .object([JSONMember("value", .string($0))]) }, "\(user)")
        }
    }

    /// A state saved before each screen's row held its rate-limit groups has them in the stage's
    /// row, each naming its screen: it restores into the same run.
    @Test func rateLimitGroupsKeptInTheStagesRowStillRestore() throws {
        let events = (0..<40).map { show("m\($0 % 3)", user: "u\($0 % 5)", at: Int64($0 / 8)) }
        let pipeline = makePipeline(RecordLog())
        for event in events { pipeline.handle(event) }
        var rows: [SavedRowID: JSONValue] = [:]
        apply(try pipeline.savedRows(), to: &rows)
        // The earlier form: the groups out of each screen's part, into the stage's row.
        var groups: [JSONValue] = []
        for (id, value) in rows where id.kind == .screen {
            guard case .object(var members) = value, let keyedIndex = members.firstIndex(where: { $0.name == "keyed" }),
                  case .object(var keyed) = members[keyedIndex].value, let partIndex = keyed.firstIndex(where: { $0.name == "rate_limit" }),
                  case .object(var part) = keyed[partIndex].value, let groupsIndex = part.firstIndex(where: { $0.name == "groups" }),
                  case .array(let own) = part[groupsIndex].value else { continue }
            for case .object(let group) in own { groups.append(.object([JSONMember("screen", .integer(id.number))] + group)) }
            part.remove(at: groupsIndex)
            keyed[partIndex].value = .object(part)
            members[keyedIndex].value = .object(keyed)
            rows[id] = .object(members)
        }
        #expect(groups.count == 5)
        guard case .object(var stage)? = rows[.part("stage rate_limit")], let index = stage.firstIndex(where: { $0.name == "groups" }) else {
            Issue.record("no rate_limit part")
            return
        }
        stage[index].value = .array(groups)
        rows[.part("stage rate_limit")] = .object(stage)
        let again = makePipeline(RecordLog())
        try again.restore(from: try Pipeline.savedState(fromRows: rows, stages: pipeline.stageNames))
        #expect(JSONText.encode(try again.savedState()) == JSONText.encode(try pipeline.savedState()))
    }

    /// Screens' rows as text, as a state file gives them, are read one at a time (by threads
    /// of their own when there are many): they restore the run their values restore, and a row
    /// that is not JSON is named.
    @Test func screensRowsAsTextRestoreAsTheirValuesDo() throws {
        let pipeline = makePipeline(RecordLog())
        for user in 0..<1_500 { pipeline.handle(show("hello \(user % 11)", user: "u\(user % 1_300)", at: Int64(user / 100))) }
        let written = try pipeline.savedRows().written
        var rows: [SavedRowID: JSONValue] = [:]
        var screenRows = SavedScreenRows()
        // In an order other than the serials': the restore orders the screens by their stamps.
        for row in written.reversed() {
            if row.id.kind == .screen { screenRows.append(serial: row.id.number, text: Array(row.text)) } else { rows[row.id] = row.value }
        }
        #expect(screenRows.serials.count == 1_300)
        let again = makePipeline(RecordLog())
        try again.restore(from: try Pipeline.savedPipeline(fromRows: rows, screenRows: screenRows, stages: pipeline.stageNames))
        #expect(JSONText.encode(try again.savedState()) == JSONText.encode(try pipeline.savedState()))

        var damaged = SavedScreenRows()
        for row in written where row.id.kind == .screen {
            damaged.append(serial: row.id.number, text: Array(row.id.number == 700 ? row.text.dropLast() : row.text))
        }
        #expect(throws: SavedStateError("screen 700: invalid JSON: unexpected end of line, expected ',' or '}'")) {
            try makePipeline(RecordLog()).restore(from: try Pipeline.savedPipeline(fromRows: rows, screenRows: damaged,
                                                                                  stages: pipeline.stageNames))
        }
        // A host not in the form a run writes is read as a value, which says what is wrong.
        var unlike = SavedScreenRows()
        for row in written where row.id.kind == .screen {
            let text = String(decoding: row.text, as: UTF8.self)
            unlike.append(serial: row.id.number, text: Array((row.id.number == 9 ? text.replacingOccurrences(of: #"{"serial":0,"#, with: "{")
                                                                                 : text).utf8))
        }
        #expect(throws: SavedStateError("host.visible[0] has no serial")) {
            try makePipeline(RecordLog()).restore(from: try Pipeline.savedPipeline(fromRows: rows, screenRows: unlike,
                                                                                  stages: pipeline.stageNames))
        }
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
    /// a run never gives twice) make rows that do not restore, whatever order they come in
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
        let saved = try Pipeline.savedState(fromRows: rows, stages: pipeline.stageNames)
        #expect(throws: SavedStateError("screens \(screens[0].number) and \(screens[1].number) have the same stamp of recency (named \(JSONText.encode(stamp)))")) {
            try makePipeline(RecordLog()).restore(from: saved)
        }
    }
}
