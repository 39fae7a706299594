/// The pipeline saved as rows (`SavedRows.swift`): what changed since the last checkpoint, and
/// the saved form `restore(from:)` reads, put together again from the rows.
///
/// What tells a change, row by row: the parts are written every time (the writer leaves out a
/// text it wrote before); a screen is written when it was touched since (`ScreenTable.touch`);
/// a timer, a window or a held toast when its number is new (they do not change while they
/// wait, but for a held toast changed in place, which is marked); a row whose number is gone
/// is deleted. So a checkpoint costs what changed, not what is kept.
extension Pipeline {
    /// The name of a stage's part starts with this, then the stage's name.
    static let stagePartPrefix = "stage "

    /// How many screens' rows are made and handed ahead at once (`savedRows(handingAhead:)`).
    static let screenRowsHandedAheadAtOnce = 4_096

    /// The rows that changed since the last call (all of them the first time, or after a
    /// restore those that changed since it); `verifying` (debug builds) adds the screens left
    /// out as unchanged, for the writer to check. With `handAhead`, the screens' rows are made
    /// a few thousand at a time, and each lot offered to it as it is made, so that they are
    /// written while the next are made; a lot it does not take is returned with the rest.
    package func savedRows(verifying: Bool = false, handingAhead handAhead: ((SavedRowChanges) -> Bool)? = nil) throws -> SavedRowChanges {
        var changes = SavedRowChanges()
        // Taken out while it changes (and put back however this ends), so that its sets are
        // changed in place, not copied.
        var tracker = rowTracker
        rowTracker = SavedRowTracker()
        defer { rowTracker = tracker }
        changes.written.append(SavedRow(id: .part("clock"), value: .object([
            JSONMember("now", .integer(now)),
            JSONMember("script_timers", .integer(Int64(pendingScriptTimers))),
            JSONMember("emitted", .integer(Int64(generatedIDs.count))),
            JSONMember("hold_serial", .integer(Int64(nextHoldSerial))),
        ])))
        // One writer for every row: its memory grows once, not for each row.
        var writer = JSONWriter(reservingCapacity: 4096)
        host.writeSavedState(to: &writer)
        changes.written.append(SavedRow(id: .part("host"), text: writer.takeText()))

        var stagesNow = Set<String>()
        for (index, stage) in stages.enumerated() {
            let state: JSONValue?
            do {
                // A stage keyed by screen keeps each screen's part in the screen's row.
                state = try (stage as? any ScreenKeyedStage)?.savedSharedState() ?? stage.saveState()
            } catch { throw SavedStateError("stage \(stageNames[index]): \(error)") }
            guard let state else { continue }
            stagesNow.insert(stageNames[index])
            changes.written.append(SavedRow(id: .part(Self.stagePartPrefix + stageNames[index]), value: state))
        }
        for gone in tracker.stages.subtracting(stagesNow) { changes.deleted.append(.part(Self.stagePartPrefix + gone)) }
        tracker.stages = stagesNow

        var timersNow = Set<UInt64>()
        try timers.forEachTimer { timer in
            guard keepsTimer(timer.payload) else { return }
            timersNow.insert(timer.sequence)
            guard !tracker.timers.contains(timer.sequence), let payload = try savedTimerPayload(timer.payload) else { return }
            changes.written.append(SavedRow(id: SavedRowID(kind: .timer, number: Int64(bitPattern: timer.sequence)),
                                            value: Self.savedTimer(timer, payload)))
        }
        for gone in tracker.timers.subtracting(timersNow) {
            changes.deleted.append(SavedRowID(kind: .timer, number: Int64(bitPattern: gone)))
        }
        tracker.timers = timersNow

        var heldNow = Set<Int>()
        for (serial, entry) in held {
            heldNow.insert(serial)
            guard !tracker.held.contains(serial) || tracker.heldChanged.contains(serial) else { continue }
            writeSavedHeld(serial, entry, to: &writer)
            changes.written.append(SavedRow(id: SavedRowID(kind: .held, number: Int64(serial)), text: writer.takeText(),
                                            columns: .held(screen: Int64(entry.screen), stage: stageNames[entry.stage])))
        }
        for gone in tracker.held.subtracting(heldNow) { changes.deleted.append(SavedRowID(kind: .held, number: Int64(gone))) }
        tracker.held = heldNow
        tracker.heldChanged.removeAll()

        if let table = screenTable {
            changes.written.append(SavedRow(id: .part("screens"), value: .object(screenTableCounters(table))))
            var windowsNow = Set<UInt64>()
            table.forEachWindow { window in
                windowsNow.insert(window.sequence)
                guard !tracker.windows.contains(window.sequence) else { return }
                changes.written.append(SavedRow(id: SavedRowID(kind: .window, number: Int64(bitPattern: window.sequence)),
                                                value: Self.savedTimer(window, .integer(Int64(window.payload)))))
            }
            for gone in tracker.windows.subtracting(windowsNow) {
                changes.deleted.append(SavedRowID(kind: .window, number: Int64(bitPattern: gone)))
            }
            tracker.windows = windowsNow

            let keyedParts = keyedStages(of: table)
            for keyed in keyedParts { keyed.stage.willWriteSavedParts() }
            let listed = table.takeChangesSinceSave()
            var (toWrite, gone) = listed.map { screensToSave(listed: $0, in: table) } ?? ([], [])
            if listed == nil || verifying {
                let looked = screensToSave(lookingAtEvery: table, saved: tracker.screens, withUnchanged: verifying)
                if listed != nil { checkListed((toWrite, gone), agreeWith: looked) }
                (toWrite, gone) = looked
            }
            let lot = handAhead == nil ? max(toWrite.count, 1) : Self.screenRowsHandedAheadAtOnce
            for start in stride(from: 0, to: toWrite.count, by: lot) {
                let entries = toWrite[start..<min(start + lot, toWrite.count)]
                var rows = SavedRowChanges()
                let texts = try screenRowTexts(entries.map(\.screen), in: table, keyedParts: keyedParts)
                for (entry, text) in zip(entries, texts) {
                    let row = SavedRow(id: SavedRowID(kind: .screen, number: Int64(entry.screen.serial)), text: text,
                                       columns: .screen(key: entry.screen.key))
                    if entry.changed {
                        rows.written.append(row)
                        entry.screen.isChangedSinceSave = false
                        entry.screen.hasSavedRow = true
                        tracker.screens.insert(entry.screen.serial)
                    } else {
                        rows.unchanged.append(row)
                    }
                }
                if handAhead?(rows) == true { continue }
                changes.written += rows.written
                changes.unchanged += rows.unchanged
            }
            for serial in gone {
                changes.deleted.append(SavedRowID(kind: .screen, number: Int64(serial)))
                tracker.screens.remove(serial)
            }
        }
        return changes
    }

    /// The screens a checkpoint writes (each with whether it changed) and the serials of the
    /// screens whose rows it deletes.
    private typealias ScreensToSave = (toWrite: [(screen: Screen, changed: Bool)], gone: [Int])

    /// The screens a checkpoint writes, from the table's lists: those changed that it still
    /// remembers, in order of serial (the rows' order in the file), and the forgotten (the
    /// table lists only those with a row).
    private func screensToSave(listed: ScreenChanges, in table: ScreenTable) -> ScreensToSave {
        (listed.changed.sorted().compactMap { serial in table.bySerial[serial].map { ($0, true) } }, listed.forgotten)
    }

    /// The same, looking at every screen the table remembers (the first checkpoint, and in
    /// debug builds every one, which also lists the unchanged with `withUnchanged`): a screen
    /// is written when it changed or has no row yet.
    private func screensToSave(lookingAtEvery table: ScreenTable, saved: Set<Int>, withUnchanged: Bool) -> ScreensToSave {
        var toWrite: [(screen: Screen, changed: Bool)] = []
        var remembered = Set<Int>()
        table.forEachScreen { screen in
            remembered.insert(screen.serial)
            let changed = screen.isChangedSinceSave || !saved.contains(screen.serial)
            if changed || withUnchanged { toWrite.append((screen, changed)) }
        }
        return (toWrite, Array(saved.subtracting(remembered)))
    }

    /// What the table's lists promise, checked in debug builds against every screen: they name
    /// each screen that changed or has no row, and each forgotten one that has a row.
    private func checkListed(_ fromLists: ScreensToSave, agreeWith looked: ScreensToSave) {
        #if DEBUG
        assert(Set(fromLists.toWrite.map(\.screen.serial)) == Set(looked.toWrite.filter(\.changed).map(\.screen.serial)),
               "the table's list of changed screens differs from the screens that changed")
        assert(Set(fromLists.gone) == Set(looked.gone), "the table's list of forgotten screens differs from the rows of screens gone")
        #endif
    }

    /// A timer's row: when it is due, its sequence (its order among timers due at once) and
    /// its payload.
    private static func savedTimer<Payload>(_ timer: TimerQueue<Payload>.Timer, _ payload: JSONValue) -> JSONValue {
        .object([JSONMember("due", .integer(timer.due)), JSONMember("sequence", .integer(Int64(bitPattern: timer.sequence))),
                 JSONMember("timer", payload)])
    }

    /// The saved form `restore(from:)` reads, put together from a saved run's rows; `stages`
    /// is the order of the run's stages. Throws `SavedStateError` for rows that do not fit.
    package static func savedState(fromRows rows: [SavedRowID: JSONValue], stages: [String]) throws -> JSONValue {
        try savedPipeline(fromRows: rows, stages: stages).tree
    }

    /// `savedState(fromRows:stages:)` with the screens of `screenRows` besides those of `rows`,
    /// left as text for the restore to read one at a time.
    package static func savedPipeline(fromRows rows: [SavedRowID: JSONValue], screenRows: SavedScreenRows = SavedScreenRows(),
                                      stages: [String]) throws -> SavedPipeline {
        guard let clock = rows[.part("clock")], let host = rows[.part("host")] else {
            throw SavedStateError("the rows have no clock or no host")
        }
        let clockObject = try SavedObject(clock, path: "clock")
        func numbered(_ kind: SavedRowID.Kind) -> [(number: Int64, value: JSONValue)] {
            rows.filter { $0.key.kind == kind }.map { ($0.key.number, $0.value) }.sorted { $0.number < $1.number }
        }
        func inOrderOfFiring(_ kind: SavedRowID.Kind) throws -> JSONValue {
            let timers = try numbered(kind).map { row in (try SavedObject(row.value, path: "\(kind.rawValue) \(row.number)").integer("due"), row) }
            return .array(timers.sorted { ($0.0, $0.1.number) < ($1.0, $1.1.number) }.map(\.1.value))
        }
        // A stage keyed by screen has each screen's part in the screen's row (`keyed`), which
        // the restore gives it with the screen.
        let stageStates: [JSONValue] = stages.compactMap { name in
            rows[.part(stagePartPrefix + name)].map { .object([JSONMember("name", .string(name)), JSONMember("state", $0)]) }
        }
        var screens = JSONValue.null
        if let counters = rows[.part("screens")], case .object(let members) = counters {
            screens = .object([JSONMember("list", .array(numbered(.screen).map(\.value))),
                               JSONMember("windows", try inOrderOfFiring(.window))] + members)
        } else if !screenRows.isEmpty || rows.keys.contains(where: { $0.kind == .screen }) {
            throw SavedStateError("the rows have screens and no part screens")
        }
        return SavedPipeline(tree: .object([
            JSONMember("now", try clockObject.required("now")),
            JSONMember("script_timers", try clockObject.required("script_timers")),
            JSONMember("emitted", try clockObject.required("emitted")),
            JSONMember("timers", try inOrderOfFiring(.timer)),
            JSONMember("host", host),
            JSONMember("held", .array(numbered(.held).map(\.value))),
            JSONMember("hold_serial", try clockObject.required("hold_serial")),
            JSONMember("screens", screens),
            JSONMember("stages", .array(stageStates)),
        ]), screenRows: screenRows)
    }

    /// After a restore from `rows`: the next checkpoint writes only what changes from here.
    package func rowsWereRestored(_ rows: some Sequence<SavedRowID>) {
        rowTracker = SavedRowTracker(restoredFrom: rows)
        screenTable?.restoredAsSaved()
    }
}
