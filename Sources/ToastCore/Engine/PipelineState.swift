/// The pipeline's saved form for `--state` (SPEC 11.4): the clock, the `e<N>` counter, the
/// timers, the host and every stage that keeps state (`ToastStage.saveState()`), by the
/// stage's name. A run restored from it goes on as the one that never stopped. Lua's `after`
/// timers are closures and are not kept. With screens on, each screen is saved with its key,
/// serial, host and own stages, in order of recency.
extension Pipeline {
    /// The pipeline as a JSON value that `restore(from:)` reads back; throws `SavedStateError`
    /// for what cannot be saved.
    package func savedState() throws -> JSONValue {
        let stageStates = try Self.savedStages(stages.indices.map { (stageNames[$0], stages[$0]) })
        let timers = try timerState()
        return .object([
            JSONMember("now", .integer(now)),
            JSONMember("script_timers", .integer(Int64(pendingScriptTimers))),
            JSONMember("emitted", .integer(Int64(generatedIDs.count))),
            JSONMember("timers", timers),
            JSONMember("host", host.savedState),
            JSONMember("held", .array(held.sorted { $0.key < $1.key }.map { savedHeld($0.key, $0.value) })),
            JSONMember("hold_serial", .integer(Int64(nextHoldSerial))),
            JSONMember("screens", try screensState()),
            JSONMember("stages", .array(stageStates)),
        ])
    }

    /// A held toast as the saved run keeps it.
    func savedHeld(_ serial: Int, _ entry: HeldToast) -> JSONValue {
        var writer = JSONWriter()
        writeSavedHeld(serial, entry, to: &writer)
        return writer.value ?? .null
    }

    /// `savedHeld`'s text, written straight into `writer` (a checkpoint's rows).
    func writeSavedHeld(_ serial: Int, _ entry: HeldToast, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("serial", serial)
        writer.member("stage", stageNames[entry.stage])
        writer.member("since", entry.since)
        writer.member("error", entry.isError)
        writer.member("screen", entry.screen)
        writer.key("toast")
        entry.toast.writeSavedState(to: &writer)
        writer.endObject()
    }

    /// Makes the pipeline hold what `savedState()` gave (its stages must have the names it
    /// names), before any event; throws `SavedStateError` naming the part that is wrong, and a
    /// pipeline whose restore threw is not to be run (the run stops before any input).
    package func restore(from saved: JSONValue) throws {
        try restore(from: SavedPipeline(tree: saved))
    }

    /// `restore(from:)` for a pipeline put together from rows: its screens are read one row
    /// at a time, each after the last is restored.
    package func restore(from saved: SavedPipeline) throws {
        let object = try SavedObject(saved.tree, path: "pipeline")
        let savedStages = try object.list("stages")
        var restores: [(stage: any ToastStage, state: JSONValue, name: String)] = []
        for (index, item) in savedStages.enumerated() {
            let entry = try SavedObject(item, path: "pipeline.stages[\(index)]")
            let name = try entry.string("name")
            guard let position = stageNames.firstIndex(of: name) else {
                throw SavedStateError("pipeline.stages[\(index)] is for a stage \(name) this run does not have")
            }
            restores.append((stages[position], try entry.required("state"), name))
        }
        let savedHeld = try object.list("held")
        var restoredHeld: [Int: HeldToast] = [:]
        for (index, item) in savedHeld.enumerated() {
            let itemPath = "pipeline.held[\(index)]"
            let entry = try SavedObject(item, path: itemPath)
            let name = try entry.string("stage")
            guard let stage = stageNames.firstIndex(of: name) else {
                throw SavedStateError("\(itemPath) is held by a stage \(name) this run does not have")
            }
            restoredHeld[Int(try entry.integer("serial"))] = HeldToast(
                toast: try Toast(savedState: try entry.required("toast")), stage: stage, since: try entry.integer("since"),
                screen: Int(try entry.integer("screen")), isError: try entry.bool("error"))
        }
        let holdSerial = Int(try object.integer("hold_serial"))
        let savedNow = try object.integer("now")
        let emitted = Int(try object.integer("emitted"))
        try host.restore(from: try object.required("host"))
        // The stages before the screens, which restore their parts of those that key their state
        // by screen (the parts a whole saved pipeline lists in the stage's state are set aside
        // for their screens).
        var keyedParts: [String: [Int64: JSONValue]] = [:]
        for restore in restores {
            var state = restore.state
            if screenTable != nil, restore.stage is any ScreenKeyedStage {
                keyedParts[restore.name] = try Self.takeScreensParts(from: &state, path: "pipeline.stages \(restore.name)")
            }
            try Self.restore(restore.stage, named: restore.name, from: state)
        }
        try restoreScreens(from: try object.required("screens"), rows: saved.screenRows, keyedParts: keyedParts)
        // After the screens: a timer with a value is restored by the instance that set it.
        var timerValues: [Int: (value: any Sendable, screen: Int)] = [:]
        let restoredTimers = try TimerQueue<PipelineTimer>(savedState: try object.required("timers"), path: "pipeline.timers") {
            try self.timer(from: $0, path: $1, values: &timerValues)
        }
        stageTimerValues = timerValues
        nextStageTimer = timerValues.keys.max() ?? 0
        timers = restoredTimers
        held = restoredHeld
        nextHoldSerial = holdSerial
        now = savedNow
        generatedIDs.restore(count: emitted)
    }

    /// The scripts' timers still to run: closures, which a saved run does not keep.
    var pendingScriptTimers: Int {
        var count = 0
        timers.forEach { payload in
            if case .script(let token, let generation) = payload, generation == scriptClockGeneration,
               scriptClock?.isPending(token: token) ?? false {
                count += 1
            }
        }
        return count
    }

    /// The timers as `TimerQueue` saves them; Lua's are left out (they are closures).
    private func timerState() throws -> JSONValue {
        try timers.savedState { try savedTimerPayload($0) }
    }

    /// A timer's payload as the saved run keeps it; nil for one that is not kept (Lua's, and a
    /// cancelled one that would not fire).
    func savedTimerPayload(_ payload: PipelineTimer) throws -> JSONValue? {
        switch payload {
        case .host(let timer): return Self.saved(timer, screen: nil)
        case .screenHost(let timer, let screen): return Self.saved(timer, screen: screen)
        case .stage(let index, let token, let screen):
            return .object([JSONMember("stage", .string(stageNames[index])), JSONMember("token", .integer(Int64(token))),
                            JSONMember("screen", .integer(Int64(screen)))])
        case .script: return nil
        case .stageValue(let index, let id):
            guard let (value, screen) = stageTimerValues[id], let stage = stageInstance(index, ofScreen: screen) else { return nil }
            let saved: JSONValue
            do { saved = try stage.saveTimerValue(StageTimer(id: id, value: value)) } catch {
                throw SavedStateError("stage \(stageNames[index]): \(error)")
            }
            return .object([JSONMember("stage", .string(stageNames[index])), JSONMember("timer", .integer(Int64(id))),
                            JSONMember("screen", .integer(Int64(screen))), JSONMember("value", saved)])
        }
    }

    /// Whether `savedTimerPayload` keeps the timer, asked without saving it.
    func keepsTimer(_ payload: PipelineTimer) -> Bool {
        switch payload {
        case .host, .screenHost, .stage: return true
        case .script: return false
        case .stageValue(let index, let id):
            guard let (_, screen) = stageTimerValues[id] else { return false }
            return stageInstance(index, ofScreen: screen) != nil
        }
    }

    private static func saved(_ timer: HostTimer, screen: Int?) -> JSONValue {
        var members: [JSONMember]
        switch timer {
        case .arrival(let serial):
            members = [JSONMember("host", .string("arrival")), JSONMember("serial", .integer(Int64(serial)))]
        case .timeout(let serial, let generation):
            members = [JSONMember("host", .string("timeout")), JSONMember("serial", .integer(Int64(serial))),
                       JSONMember("generation", .integer(Int64(generation)))]
        }
        if let screen { members.append(JSONMember("screen", .integer(Int64(screen)))) }
        return .object(members)
    }

    private func timer(from saved: JSONValue, path: String, values: inout [Int: (value: any Sendable, screen: Int)]) throws -> PipelineTimer {
        let object = try SavedObject(saved, path: path)
        let screen = object.optional("screen") == nil ? nil : Int(try object.integer("screen"))
        if let kind = object.optional("host") {
            let serial = Int(try object.integer("serial"))
            let hostTimer: HostTimer
            switch kind {
            case .string("arrival"): hostTimer = .arrival(serial: serial)
            case .string("timeout"): hostTimer = .timeout(serial: serial, generation: Int(try object.integer("generation")))
            default: throw SavedStateError("\(path).host is neither arrival nor timeout")
            }
            return screen.map { .screenHost(hostTimer, screen: $0) } ?? .host(hostTimer)
        }
        let name = try object.string("stage")
        guard let index = stageNames.firstIndex(of: name) else {
            throw SavedStateError("\(path) is for a stage \(name) this run does not have")
        }
        guard object.optional("timer") != nil else { return .stage(index, token: Int(try object.integer("token")), screen: screen ?? 0) }
        let id = Int(try object.integer("timer"))
        guard let stage = stageInstance(index, ofScreen: screen ?? 0) else {
            throw SavedStateError("\(path) is for a screen that is not saved")
        }
        do {
            values[id] = (try stage.restoreTimerValue(from: try object.required("value")), screen ?? 0)
        } catch {
            throw SavedStateError("\(path): stage \(name): \(error)")
        }
        return .stageValue(index, id: id)
    }

    /// The instance of stage `index` that screen `serial` uses (0: the one every screen
    /// shares), without touching the screen.
    func stageInstance(_ index: Int, ofScreen serial: Int) -> (any ToastStage)? {
        guard serial != 0 else { return stageInstances[index] }
        return screenTable?.bySerial[serial]?.stages[index]
    }

    private func screensState() throws -> JSONValue {
        guard let table = screenTable else { return .null }
        return .object([JSONMember("list", .array(try table.byRecency.map { try savedScreen($0, in: table) })),
                        JSONMember("windows", table.windowsState)] + screenTableCounters(table))
    }

    /// A screen as the saved run keeps it: its key, serial and stamp of recency, held counts,
    /// host and own stages.
    func savedScreen(_ screen: Screen, in table: ScreenTable) throws -> JSONValue {
        var writer = JSONWriter()
        try writeSavedScreen(screen, in: table, keyedParts: [], to: &writer)
        return writer.value ?? .null
    }

    /// A stage that keeps its state by screen, with its name: what a screen's row holds of it
    /// (`keyed`).
    typealias KeyedStage = (name: String, stage: any ScreenKeyedStage)

    /// The stages whose parts a screen's row holds, found once for a checkpoint's screens.
    func keyedStages(of table: ScreenTable) -> [KeyedStage] {
        stages.indices.compactMap { index in
            guard table.keyedByScreen[index], let stage = stages[index] as? any ScreenKeyedStage else { return nil }
            return (stageNames[index], stage)
        }
    }

    /// `savedScreen`'s text, written straight into `writer`, with what `keyedParts` keep for
    /// it (`keyed`, by stage name), for a state of rows.
    func writeSavedScreen(_ screen: Screen, in table: ScreenTable, keyedParts: [KeyedStage], to writer: inout JSONWriter) throws {
        writer.beginObject()
        switch screen.key {
        case .text(let text): writer.member("key", text)
        case .integer(let integer): writer.member("key", integer)
        }
        writer.member("serial", screen.serial)
        writer.member("named", screen.namedStamp)
        writer.member("held", Int64(screen.held))
        writer.member("held_errors", Int64(screen.heldErrors))
        writer.key("host")
        screen.host.writeSavedState(to: &writer)
        writer.key("stages")
        writer.beginArray()
        if table.hasOwnStages {
            for state in try Self.savedStages(stageNames.indices.filter { table.perScreen[$0] }.map { (stageNames[$0], screen.stages[$0]) }) {
                writer.value(state)
            }
        }
        writer.endArray()
        var wroteAny = false
        for keyed in keyedParts where keyed.stage.hasSavedPart(of: screen) {
            if !wroteAny {
                writer.key("keyed")
                writer.beginObject()
                wroteAny = true
            }
            writer.key(escaping: keyed.name)
            keyed.stage.writeSavedPart(of: screen, to: &writer)
        }
        if wroteAny { writer.endObject() }
        writer.endObject()
    }

    /// The screen table's list of screens to look at and its counters.
    func screenTableCounters(_ table: ScreenTable) -> [JSONMember] {
        [JSONMember("touched", .array(table.touchedScreens.map { .integer(Int64($0.serial)) })),
         JSONMember("last_serial", .integer(Int64(table.lastSerial))),
         JSONMember("seen", .integer(Int64(table.seen))),
         JSONMember("ended_by_limit", .integer(Int64(table.endedByLimit))),
         JSONMember("most_at_once", .integer(Int64(table.mostAtOnce)))]
    }

    /// The screens of a whole saved pipeline (`list`) and those of `rows`, each with its part
    /// of each stage that keys its state by screen (in its row's `keyed`, or set aside from
    /// the stage's state in `keyedParts`); then the screen table's lists and counters.
    private func restoreScreens(from saved: JSONValue, rows: SavedScreenRows, keyedParts: [String: [Int64: JSONValue]]) throws {
        guard let table = screenTable else {
            guard saved == .null, rows.isEmpty else { throw SavedStateError("pipeline.screens: the saved run had screens, this one has none") }
            return
        }
        let object = try SavedObject(saved, path: "pipeline.screens")
        let keyed = keyedStages(of: table)
        var restored: [Screen] = []
        for (index, item) in try object.list("list").enumerated() {
            restored.append(try restoreScreen(item, path: "pipeline.screens.list[\(index)]", in: table, keyed: keyed, keyedParts: keyedParts))
        }
        try rows.forEach { serial, row in
            restored.append(try restoreScreen(row.value, host: row.host, path: "screen \(serial)", in: table, keyed: keyed,
                                              keyedParts: keyedParts))
        }
        // The stamps order the screens by recency: each is given once, so two alike are damage.
        restored.sort { ($0.namedStamp, $0.serial) < ($1.namedStamp, $1.serial) }
        for (earlier, later) in zip(restored, restored.dropFirst()) where earlier.namedStamp == later.namedStamp {
            throw SavedStateError("screens \(earlier.serial) and \(later.serial) have the same stamp of recency (named \(later.namedStamp))")
        }
        for (name, parts) in keyedParts {
            if let serial = parts.keys.sorted().first(where: { table.bySerial[Int($0)] == nil }) {
                throw SavedStateError("pipeline.stages \(name): its part of screen \(serial) is for a screen that is not saved")
            }
        }
        table.orderByRecency(restored)
        let bySerial = table.bySerial
        let touched = try object.list("touched")
        let touchedScreens = try touched.map { item -> Screen in
            guard case .integer(let serial) = item, let screen = bySerial[Int(serial)] else {
                throw SavedStateError("pipeline.screens.touched names a screen that is not saved")
            }
            return screen
        }
        let windows = try TimerQueue<Int>(savedState: try object.required("windows"), path: "pipeline.screens.windows") { value, path in
            guard case .integer(let serial) = value else { throw SavedStateError("\(path) is not a screen's serial") }
            return Int(serial)
        }
        table.restore(touched: touchedScreens, windows: windows, lastSerial: Int(try object.integer("last_serial")),
                      seen: Int(try object.integer("seen")), endedByLimit: Int(try object.integer("ended_by_limit")),
                      mostAtOnce: Int(try object.integer("most_at_once")))
    }

    /// One saved screen, added to `table`: its key, serial, stamp, held counts, host (`host`
    /// when it was read from the text already), own stages, and its parts of the stages `keyed`.
    private func restoreScreen(_ item: JSONValue, host: Host.ReadState? = nil, path: String, in table: ScreenTable,
                               keyed: [KeyedStage], keyedParts: [String: [Int64: JSONValue]]) throws -> Screen {
        let entry = try SavedObject(item, path: path)
        let key: ScreenKey
        switch try entry.required("key") {
        case .string(let text): key = .text(text)
        case .integer(let integer): key = .integer(integer)
        default: throw SavedStateError("\(path).key is neither a string nor an integer")
        }
        let serial = Int(try entry.integer("serial"))
        guard serial > 0, table.bySerial[serial] == nil, table.screen(key) == nil else {
            throw SavedStateError("\(path) has the serial or the key of another saved screen")
        }
        let screen = addNewScreen(key, serial: serial, in: table)
        if let stamp = entry.optional("named") {
            guard case .integer(let named) = stamp else { throw SavedStateError("\(path).named is not an integer") }
            table.restoreStamp(Int(named), of: screen)
        }
        screen.held = Int32(clamping: try entry.integer("held"))
        screen.heldErrors = Int32(clamping: try entry.integer("held_errors"))
        if let host { screen.host.restore(from: host) } else { try screen.host.restore(from: try entry.required("host")) }
        let stages = try entry.list("stages")
        for (stageIndex, stageItem) in stages.enumerated() {
            let stageEntry = try SavedObject(stageItem, path: "\(path).stages[\(stageIndex)]")
            let name = try stageEntry.string("name")
            guard let position = stageNames.firstIndex(of: name), table.perScreen[position] else {
                throw SavedStateError("\(path).stages[\(stageIndex)] is for a stage \(name) this run does not have per screen")
            }
            try Self.restore(screen.stages[position], named: "\(name) of screen \(serial)", from: try stageEntry.required("state"))
        }
        var parts: [JSONMember] = []
        if let saved = entry.optional("keyed") {
            guard case .object(let members) = saved else { throw SavedStateError("\(path).keyed is not an object") }
            parts = members
        }
        for (name, stageParts) in keyedParts {
            if let part = stageParts[Int64(serial)] { parts.append(JSONMember(name, part)) }
        }
        for part in parts {
            let partPath = "\(path).keyed.\(part.name)"
            guard let stage = keyed.first(where: { $0.name == part.name })?.stage else {
                throw SavedStateError("\(partPath) is for a stage this run does not key by screen")
            }
            do {
                try stage.restoreSavedPart(of: screen, from: try SavedObject(part.value, path: partPath), path: partPath)
            } catch { throw SavedStateError("stage \(part.name): \(error)") }
        }
        return screen
    }

    /// Takes the list of screens' parts out of a whole saved pipeline's state of a stage that
    /// keys its state by screen (`screens` left an empty list), by serial.
    private static func takeScreensParts(from state: inout JSONValue, path: String) throws -> [Int64: JSONValue] {
        guard case .object(var members) = state, let index = members.firstIndex(where: { $0.name == "screens" }),
              case .array(let list) = members[index].value, !list.isEmpty else { return [:] }
        var parts: [Int64: JSONValue] = [:]
        for (position, item) in list.enumerated() {
            let serial = try SavedObject(item, path: "\(path).screens[\(position)]").integer("screen")
            guard parts.updateValue(item, forKey: serial) == nil else {
                throw SavedStateError("\(path).screens[\(position)] is a second part for the screen \(serial)")
            }
        }
        members[index].value = .array([])
        state = .object(members)
        return parts
    }

    /// The saved states of the stages that keep one, by name.
    static func savedStages(_ stages: [(name: String, stage: any ToastStage)]) throws -> [JSONValue] {
        try stages.compactMap { name, stage in
            let state: JSONValue?
            do { state = try stage.saveState() } catch { throw SavedStateError("stage \(name): \(error)") }
            return state.map { .object([JSONMember("name", .string(name)), JSONMember("state", $0)]) }
        }
    }

    private static func restore(_ stage: any ToastStage, named name: String, from saved: JSONValue) throws {
        do { try stage.restoreState(from: saved) } catch { throw SavedStateError("stage \(name): \(error)") }
    }
}
