/// The pipeline's saved form for `--state` (SPEC 11.4): the clock, the `e<N>` counter, the
/// timers, the host and every stage that keeps state, by the stage's name. A run restored from
/// it goes on as the one that never stopped. Lua's `after` timers are closures and are not
/// kept (`pendingScriptTimers` says how many were pending); screens and stages that cannot say
/// what they keep are refused by name.
extension Pipeline {
    /// The pipeline as a JSON value that `restore(from:)` reads back; throws `SavedStateError`
    /// for what cannot be saved.
    package func savedState() throws -> JSONValue {
        guard screenTable == nil else { throw SavedStateError("screens cannot be saved yet") }
        var stageStates: [JSONValue] = []
        for (name, stage) in zip(stageNames, stages) {
            if stage is any StatelessStage { continue }
            guard let saved = stage as? any StageWithSavedState else {
                throw SavedStateError("stage \(name) keeps state that cannot be saved yet")
            }
            stageStates.append(.object([JSONMember("name", .string(name)), JSONMember("state", saved.savedState)]))
        }
        let timers = try timerState()
        return .object([
            JSONMember("now", .integer(now)),
            JSONMember("emitted", .integer(Int64(generatedIDs.count))),
            JSONMember("timers", timers),
            JSONMember("host", host.savedState),
            JSONMember("held", .array(held.sorted { $0.key < $1.key }.map { serial, entry in
                .object([JSONMember("serial", .integer(Int64(serial))), JSONMember("stage", .string(stageNames[entry.stage])),
                         JSONMember("since", .integer(entry.since)), JSONMember("error", .bool(entry.isError)),
                         JSONMember("toast", entry.toast.savedState)])
            })),
            JSONMember("hold_serial", .integer(Int64(nextHoldSerial))),
            JSONMember("stages", .array(stageStates)),
        ])
    }

    /// How many of the scripts' `after` timers are pending: they are not saved.
    package var pendingScriptTimers: Int {
        var count = 0
        var copy = timers
        while let timer = copy.popNext() { if case .script = timer.payload { count += 1 } }
        return count
    }

    /// Makes the pipeline hold what `savedState()` gave (its stages must have the names it
    /// names), before any event; throws `SavedStateError` naming the part that is wrong, and a
    /// pipeline whose restore threw is not to be run (the run stops before any input).
    package func restore(from saved: JSONValue) throws {
        let object = try SavedObject(saved, path: "pipeline")
        guard case .array(let savedStages) = try object.required("stages") else {
            throw SavedStateError("pipeline.stages is not a list")
        }
        var restores: [(stage: any StageWithSavedState, state: JSONValue, path: String)] = []
        for (index, item) in savedStages.enumerated() {
            let entry = try SavedObject(item, path: "pipeline.stages[\(index)]")
            let name = try entry.string("name")
            guard let position = stageNames.firstIndex(of: name),
                  let stage = stages[position] as? any StageWithSavedState else {
                throw SavedStateError("pipeline.stages[\(index)] is for a stage \(name) this run does not have")
            }
            restores.append((stage, try entry.required("state"), "stage \(name)"))
        }
        let restoredTimers = try TimerQueue<PipelineTimer>(savedState: try object.required("timers"), path: "pipeline.timers") {
            try self.timer(from: $0, path: $1)
        }
        guard case .array(let savedHeld) = try object.required("held") else { throw SavedStateError("pipeline.held is not a list") }
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
                screen: 0, isError: try entry.bool("error"))
        }
        let holdSerial = Int(try object.integer("hold_serial"))
        let savedNow = try object.integer("now")
        let emitted = Int(try object.integer("emitted"))
        try host.restore(from: try object.required("host"))
        for restore in restores { try restore.stage.restore(from: restore.state, path: restore.path) }
        timers = restoredTimers
        held = restoredHeld
        nextHoldSerial = holdSerial
        now = savedNow
        generatedIDs.restore(count: emitted)
    }

    private func timerState() throws -> JSONValue {
        var unsaved: String?
        let saved = timers.savedState { payload in
            switch payload {
            case .host(.arrival(let serial)):
                return .object([JSONMember("host", .string("arrival")), JSONMember("serial", .integer(Int64(serial)))])
            case .host(.timeout(let serial, let generation)):
                return .object([JSONMember("host", .string("timeout")), JSONMember("serial", .integer(Int64(serial))),
                                JSONMember("generation", .integer(Int64(generation)))])
            case .stage(let index, let token, _):
                return .object([JSONMember("stage", .string(stageNames[index])), JSONMember("token", .integer(Int64(token)))])
            case .script:
                return .null
            case .screenHost, .stageValue:
                unsaved = "a timer of a screen or with a value cannot be saved yet"
                return .null
            }
        }
        if let unsaved { throw SavedStateError(unsaved) }
        // Lua's timers are left out: they are closures.
        guard case .array(let items) = saved else { return saved }
        return .array(items.filter { item in
            if case .object(let members) = item, members.contains(where: { $0.name == "timer" && $0.value == .null }) { return false }
            return true
        })
    }

    private func timer(from saved: JSONValue, path: String) throws -> PipelineTimer {
        let object = try SavedObject(saved, path: path)
        if let kind = object.optional("host") {
            let serial = Int(try object.integer("serial"))
            switch kind {
            case .string("arrival"): return .host(.arrival(serial: serial))
            case .string("timeout"): return .host(.timeout(serial: serial, generation: Int(try object.integer("generation"))))
            default: throw SavedStateError("\(path).host is neither arrival nor timeout")
            }
        }
        let name = try object.string("stage")
        guard let index = stageNames.firstIndex(of: name) else {
            throw SavedStateError("\(path) is for a stage \(name) this run does not have")
        }
        return .stage(index, token: Int(try object.integer("token")), screen: 0)
    }
}
