/// The whole flow of toasts, on the stream clock:
///
///     event ─▶ rules ─▶ dedup ─▶ rate_limit ─▶ priority ─▶ style ─▶ announce ─▶ host ─▶ records
///               │         │          │                                          │
///               └─────────┴──────────┴──────────── drop records ────────────────┘
///
/// Follow one toast: a show event at `at: 2` first moves the clock to 2, firing every timer
/// due by then. The toast enters the first stage; each stage passes it (perhaps changed) or
/// drops it, which writes a `drop` record. One that passes them all is admitted by the host,
/// which shows it now or later (`present`) and dismisses it on a timeout or an interaction
/// (`dismiss`). Toasts that stages or scripts bring in wait until the current step is done,
/// then enter at their stage. At the end, `finish` drains the clock so every toast ends.
///
/// With screens on (`PipelineScreens.swift`), the toast's screen is read from its field when it
/// reaches a stage that keeps state per screen, or the host: dedup and rate_limit look up that
/// screen's keys and windows in their tables, and its own host (and debounce and digest) decide for it.
///
/// One show line, from stdin to its record, through the modules:
/// 1. ToastPipeline's `RunLoop` (CLI/) reads standard input with ToastIO's `LineReader`, which
///    cuts it into lines. For a recorded file, ToastIO's `ReadAhead` decodes ahead on a second
///    thread; either way `LineDecoding` hands each line to `EventDecoder` (Input/), which checks
///    it and makes a `DecodedShow` (ToastCore, Model/): a row of the batch's `ShowBatch`,
///    which keeps the show's fields and text until its toast is made.
/// 2. The run loop makes the show's `Toast` and hands the event to `handle(taking:)` here: the
///    clock moves to the event's time, and the toast runs through the stages (Stages/). The
///    rules stage runs each `ToastRule`; Lua rules are ToastLua's `LuaRule`s, reached only
///    through that protocol.
/// 3. A toast that passes every stage is admitted by the host (Host/), which presents it,
///    queues it or evicts another. Every record goes to the run's `RecordWriter`: ToastIO's
///    `SinkRecordWriter`, whose `JSONRecordEncoder` (Output/) encodes it into a block written to
///    standard output.
package final class Pipeline: HostEnvironment {
    /// The run's settings; replaced by `reload` (between events), all but the stages' order.
    package private(set) var settings: PipelineSettings
    package let stageNames: [String]
    let stages: [any ToastStage]
    /// The stages as placed (with screens on, those every screen shares, and the model of
    /// each screen's own).
    var stageInstances: [any ToastStage] { stages }
    var stageContexts: [StageContext] { contexts }
    /// Where the rules stage is, which a toast a stage made goes through first.
    private let rulesIndex: Int?
    /// Each stage's `spare` and `when`, by position, as the loop checks them; replaced by a reload.
    private var scopes: [ScopeCheck]
    /// Runs the `when` functions of the scripts (nil: no scripts, so no such function).
    package var scriptFunctions: (any ScriptFunctionRunner)?
    private var contexts: [StageContext] = [] {
        didSet { unretainedStages = Self.unretained(stages, contexts) }
    }
    /// `stages` with `contexts`, for the loop every toast takes.
    private var unretainedStages: [UnretainedStage] = []
    private let output: any RecordWriter
    /// Run after each record is written (the scripts' hooks).
    private var observers: [any RecordObserver]
    /// The context of code outside the stages (hooks, a `parse` function): its `emit` brings a
    /// toast in at the first stage.
    package private(set) var entryContext: StageContext!
    // Each access to the state below is one step that calls out to no stage, host or writer
    // while it lasts (a timer is popped, then fired; a pending toast is copied out, then run),
    // so no two accesses overlap.
    var timers = TimerQueue<PipelineTimer>()
    /// Toasts brought in during a step, with the stage each enters at; `isNew` is false for
    /// a held toast that a stage released (it came in before).
    var pending: [(toast: Toast, stage: Int, isNew: Bool)] = []
    /// Toasts the stages hold, by serial (the order they were held), with their stage, when
    /// they were held and, with screens on, the serial of their screen (0: none).
    var held: [Int: HeldToast] = [:]
    /// The hold made in the stage call running now, before its `.hold` verdict comes back: the
    /// stage sees it held already (`isHeld`), with the toast it gave (`heldToast`). Emptied
    /// when the verdict comes, or by the next hold.
    // Looked at after every stage's call; no access calls out to anything that could reach
    // it again.
    var holdsInHand: [(serial: Int, toast: Toast?, changed: Bool)] = []
    /// With screens on, every screen's host and stages; nil: one host for every toast.
    let screenTable: ScreenTable?
    var nextHoldSerial = 0
    /// What the last checkpoint saved, to tell what changed since (`savedRows`).
    var rowTracker = SavedRowTracker()
    private var pendingStart = 0
    private var isRunningPending = false
    /// How deep inside `handle`, a timer or `finish` we are: toasts emitted there wait.
    var stepDepth = 0
    package let generatedIDs: GeneratedIDs
    /// Where decisions are traced (`--trace`); nil traces nothing.
    package let tracer: (any TraceWriter)?
    /// Trace records written so far, so that a stage that traced its own steps gets none more.
    private var tracesWritten = 0
    /// Why the current stage decided as it did, when it said so (`StageContext.explain`).
    private var stageBecause: String?

    /// How explanations (`--trace`, `--explain`) show a time: a log's own timestamps as dates.
    package var timeDisplay = TimeDisplay()

    /// The stream clock.
    package internal(set) var now: Microseconds = 0
    /// The input line being handled, for toasts brought in while handling it.
    package private(set) var currentLine = 0
    /// What the run has counted so far.
    package var statistics: PipelineStatistics {
        var statistics = counts
        statistics.screens = screenCounts
        return statistics
    }
    var counts: PipelineStatistics
    /// Whether toasts shown and dropped are counted by role too (`--metrics` asks; a run
    /// without it does not pay for the count).
    package var countsRoles = false

    /// The last stage, whose environment is the pipeline (set once the pipeline is made: a
    /// stored property, read without a call for every toast).
    package let host: Host
    /// What the host and every screen's host share: the queue settings and the tracing.
    let hostShared: HostShared

    enum PipelineTimer {
        case host(HostTimer)
        /// The timer of a screen's host (screens on).
        case screenHost(HostTimer, screen: Int)
        /// A stage's timer; `screen` is the serial of the screen whose instance set it (0: the
        /// stage every screen shares).
        case stage(Int, token: Int, screen: Int)
        /// A stage's timer that carries a value (`StageContext.setTimer(at:value:)`).
        case stageValue(Int, id: Int)
        /// A script's timer, of the scripts of `generation` (a reload starts a new one).
        case script(token: Int, generation: Int)
    }

    /// The scripts' timers and end-of-input hooks, and how many were attached (a reload
    /// attaches new ones, and the old ones' timers go stale).
    private var scriptClockState: (clock: (any ScriptClock)?, generation: Int) = (nil, 0)
    var scriptClock: (any ScriptClock)? { scriptClockState.clock }
    var scriptClockGeneration: Int { scriptClockState.generation }

    /// A pipeline of `stages` (in order, named as in `config{ stages = ... }`) before the
    /// host, writing records to `output` and, when there is a `tracer`, every decision to it.
    package init(settings: PipelineSettings, stages: [(name: String, stage: any ToastStage)],
                output: any RecordWriter, generatedIDs: GeneratedIDs = GeneratedIDs(),
                tracer: (any TraceWriter)? = nil, observers: [any RecordObserver] = []) {
        self.settings = settings
        self.generatedIDs = generatedIDs
        self.tracer = tracer
        self.observers = observers
        self.stageNames = stages.map(\.name)
        self.stages = stages.map(\.stage)
        self.rulesIndex = stages.firstIndex { $0.name == BuiltInStage.rules }
        self.scopes = stages.map { ScopeCheck(stage: $0.name, $0.stage, settings: settings) }
        self.errorRoleLengths = settings.roles.lengthsOfRoles(withPriorityAtLeast: RoleTable.errorPriority)
        self.output = output
        self.counts = PipelineStatistics(stageNames: stages.map(\.name))
        self.screenTable = settings.screens.map { ScreenTable(settings: $0, stages: stages.map(\.stage)) }
        hostShared = HostShared(settings: settings.queue)
        host = Host(sharing: hostShared)
        host.environment = UnretainedEnvironment(self)
        if tracer != nil { hostShared.trace = { [unowned self] in self.trace($0) } }
        self.contexts = stages.enumerated().map { index, entry in
            StageContext(stageName: entry.name, position: index, pipeline: self)
        }
        unretainedStages = Self.unretained(self.stages, contexts)  // (`didSet` does not run in `init`)
        entryContext = StageContext(stageName: "scripts", position: -1, pipeline: self)
    }

    deinit {
        screenTable?.removeAll()
    }

    private static func unretained(_ stages: [any ToastStage], _ contexts: [StageContext]) -> [UnretainedStage] {
        zip(stages, contexts).map { UnretainedStage(stage: $0, context: $1) }
    }

    /// The scripts were reloaded while the run goes on: `settings` and `observers` replace the
    /// run's, and each stage in place takes the settings of its namesake in `replacements`
    /// (`ToastStage.reload(from:)`), keeping what it holds; so does the host. The stages'
    /// order stays as it is until a restart: the result is whether the new settings ask for
    /// another one.
    @discardableResult
    package func reload(settings newSettings: PipelineSettings, stages replacements: [(name: String, stage: any ToastStage)],
                       observers: [any RecordObserver]) -> Bool {
        let orderChanged = replacements.map(\.name) != stageNames
        for (name, replacement) in replacements {
            guard let index = stageNames.firstIndex(of: name) else { continue }
            stages[index].reload(from: replacement)
            for screen in screenTable?.bySerial.values ?? [] where screenTable?.perScreen[index] == true {
                screen.stages[index].reload(from: replacement)
            }
        }
        var kept = newSettings
        kept.stages = settings.stages
        settings = kept
        scopes = zip(stageNames, stages).map { ScopeCheck(stage: $0, $1, settings: kept) }
        errorRoleLengths = kept.roles.lengthsOfRoles(withPriorityAtLeast: RoleTable.errorPriority)
        hostShared.settings = kept.queue
        self.observers = observers
        // The contexts hand the stages the new roles and settings.
        contexts = stageNames.enumerated().map { StageContext(stageName: $0.element, position: $0.offset, pipeline: self) }
        if let table = screenTable, table.hasOwnStages {
            for screen in table.bySerial.values { screen.contexts = screenContexts(for: screen) }
        }
        entryContext = StageContext(stageName: "scripts", position: -1, pipeline: self)
        return orderChanged
    }

    // MARK: Driving

    /// Handles one event at its time (or now, when it has none or is late).
    package func handle(_ event: Event) {
        var event = event
        handle(taking: &event)
    }

    /// `handle`, taking the event's toast out of `event` (left a `tick`), so the toast is not
    /// shared with the caller when a stage changes it (a shared toast is copied whole).
    package func handle(taking event: inout Event) {
        stepDepth += 1
        defer { stepDepth -= 1 }
        var time = event.at ?? now
        if time < now {
            time = now
            counts.lateEvents += 1
        }
        // Timers this event's time fires run during its line (what they bring in names it).
        currentLine = event.line
        advance(to: time)
        counts.events += 1
        if let table = screenTable { forgetIdleScreens(table) }
        if var toast = event.kind.takeToast() {
            toast.atMicros = now
            counts.toastsIn += 1
            if let table = screenTable {
                stampScreen(&toast)
                if let key = toast.screenKey, let screen = table.screen(key) { table.named(screen) }
            }
            run(&toast, from: 0)
        } else if let table = screenTable {
            interact(event, on: table)
        } else {
            let found = host.interact(event.kind)
            switch event.kind {
            case .dismiss(let target?) where !found:
                // An explicit id finds a held toast after visible, waiting and delayed ones.
                if let serial = held.filter({ $0.value.toast.id == target }).keys.max() {
                    endHeld(serial, reason: .cancelled, because: "a dismiss for it came while it was held")
                }
            case .dismissAll:
                endAllHeld(reason: .cancelled, because: "dismiss_all came while it was held")
            default:
                break
            }
        }
        runPending()
    }

    /// The scripts' clock (`after`, `on("end")`), and the timers they set while loading, each
    /// `delay` from now. A clock attached before replaces it: its pending timers are dropped.
    package func attach(scriptClock: any ScriptClock, timers: [(token: Int, delay: Microseconds)]) {
        scriptClockState = (scriptClock, scriptClockGeneration + 1)
        for timer in timers { scheduleScriptTimer(token: timer.token, at: now + timer.delay) }
    }

    /// Calls the script clock's `scriptTimerFired(token:context:)` at `time`.
    package func scheduleScriptTimer(token: Int, at time: Microseconds) {
        timers.schedule(.script(token: token, generation: scriptClockGeneration), at: max(time, now))
    }

    /// The input has ended: the scripts' `on("end")` hooks run, and what they bring in enters,
    /// before the drain (`finish`). Not on a signal.
    package func endOfInput() {
        stepDepth += 1
        scriptClock?.inputEnded(context: entryContext)
        stepDepth -= 1
        runPending()
    }

    /// The run is over, every toast ended: the scripts' `on("finish")` hooks run with what the
    /// run did (`rejectedLines`: the input lines the run rejected).
    package func runFinished(rejectedLines: Int) {
        scriptClock?.runFinished(RunTotals(statistics: statistics, rejectedLines: rejectedLines), context: entryContext)
    }

    /// A saved run was restored into this pipeline: the timers the scripts set while they
    /// loaded (`timersWhileLoading`) are due that long after the restored clock, and the
    /// scripts' `on("restore")` hooks run; what they bring in enters before the first event.
    package func stateRestored(timersWhileLoading: [(token: Int, delay: Microseconds)] = []) {
        for timer in timersWhileLoading { scheduleScriptTimer(token: timer.token, at: now + timer.delay) }
        stepDepth += 1
        scriptClock?.stateRestored(context: entryContext)
        stepDepth -= 1
        runPending()
    }

    /// The scripts were reloaded (`reload(scripts:)`): their `on("reload")` hooks run, and what
    /// they bring in enters, before the next event.
    package func scriptsReloaded() {
        stepDepth += 1
        scriptClock?.scriptsReloaded(context: entryContext)
        stepDepth -= 1
        runPending()
    }

    /// Moves the clock to `time`, firing every timer due at or before it in order.
    package func advance(to time: Microseconds) {
        while let timer = timers.popDue(atOrBefore: time) {
            fire(timer)
        }
        if time > now { now = time }
    }

    /// When the next timer that still means something is due.
    package var nextTimerDue: Microseconds? {
        while let timer = timers.next {
            if isLive(timer.payload) { return timer.due }
            _ = timers.popNext()
        }
        return nil
    }

    /// Ends the run: with `drain`, the clock runs on through every timer; then every toast
    /// still in the host ends with `host_removed` (docs/events.md, "The clock").
    /// `stops`: asked after each timer of the drain; true ends the drain there, as if there
    /// were none (a signal: scripts whose timers set themselves again would drain for ever).
    package func finish(drain: Bool, stops: () -> Bool = { false }) {
        stepDepth += 1
        defer { stepDepth -= 1 }
        var draining = drain
        repeat {
            while draining, let timer = timers.popNext() {
                fire(timer)
                if stops() { draining = false }
            }
            if !draining { timers.removeAll() }
            forEachHost { $0.removeAll() }
            runPending()
        } while anyHostHoldsToasts || (draining && !timers.isEmpty)
        // After the host's own endings, the toasts still held, in the order they were held.
        endAllHeld(reason: .hostRemoved, because: "the run ended while it was held")
    }

    private func fire(_ timer: TimerQueue<PipelineTimer>.Timer) {
        guard isLive(timer.payload) else { return }
        stepDepth += 1
        defer { stepDepth -= 1 }
        if timer.due > now { now = timer.due }
        switch timer.payload {
        case .host(let hostTimer):
            host.timerFired(hostTimer)
        case .screenHost(let hostTimer, let serial):
            guard let screen = screenTable?.bySerial[serial] else { break }
            screenTable?.touch(screen)
            screen.host.timerFired(hostTimer)
        case .stage(let index, let token, let serial):
            guard let (stage, context) = stage(index, ofScreen: serial) else { break }
            stage.timerFired(token: token, context: context)
        case .stageValue(let index, let id):
            if let (value, serial) = stageTimerValues.removeValue(forKey: id), let (stage, context) = stage(index, ofScreen: serial) {
                stage.timerFired(StageTimer(id: id, value: value), context: context)
            }
        case .script(let token, _):
            scriptClock?.scriptTimerFired(token: token, context: entryContext)
        }
        runPending()
    }

    private func isLive(_ payload: PipelineTimer) -> Bool {
        switch payload {
        case .host(let hostTimer): return host.isLive(hostTimer)
        case .screenHost(let hostTimer, let serial): return screenTable?.bySerial[serial]?.host.isLive(hostTimer) ?? false
        case .script(_, let generation): return generation == scriptClockGeneration
        case .stageValue(_, let id): return stageTimerValues[id] != nil
        case .stage: return true
        }
    }

    // MARK: Toasts

    /// Runs `toast` through the stages from `start` (it is taken: `inout` so that the caller
    /// keeps no second reference and a stage's change does not copy it whole). A traced run
    /// takes the same steps with a trace record of each stage's decision; the choice is made
    /// once per toast, so an untraced run does not pay for tracing.
    private func run(_ toast: inout Toast, from start: Int) {
        if let table = screenTable {
            table.inHand = nil
            runStages(&toast, from: start) { toast, index in
                let verdict: StageVerdict
                if table.keyedByScreen[index] && !table.hasScreenInHand { _ = screenInHand(of: &toast, in: table) }
                if tracer != nil {
                    let (stage, context) = table.perScreen[index] ? screenInHand(of: &toast, in: table).stageAndContext(index)
                        : (stages[index], contexts[index])
                    verdict = processTraced(&toast, stage, context, at: index)
                } else if table.perScreen[index] {
                    verdict = processOnScreen(&toast, at: index, in: table)
                } else {
                    verdict = unretainedStages[index].process(&toast)
                }
                if !table.keepsScreen[index] { table.inHand = nil }
                return verdict
            }
        } else if tracer != nil {
            runStages(&toast, from: start) { toast, index in processTraced(&toast, at: index) }
        } else {
            runStages(&toast, from: start) { toast, index in unretainedStages[index].process(&toast) }
        }
    }

    /// The stages from `start`, each deciding through `process`, then the host.
    @inline(__always)
    private func runStages(_ toast: inout Toast, from start: Int, _ process: (inout Toast, Int) -> StageVerdict) {
        for index in start..<stages.count {
            if scopes[index].checks, !takes(toast, at: index) { continue }
            switch process(&toast, index) {
            case .pass:
                continue
            case .drop(let drop):
                counts.countPasses(from: start, upTo: index)
                counts.stages[index].droppedCounts.add(drop.reason)
                if screenTable != nil { stampScreen(&toast) }
                write(.drop(toast, at: now, drop))
                return
            case .hold(let handle):
                counts.countPasses(from: start, upTo: index)
                counts.stages[index].held += 1
                hold(toast, handle, at: index)
                return
            }
        }
        counts.countPasses(from: start, upTo: stages.count)
        if let table = screenTable {
            let host = screenInHand(of: &toast, in: table).host
            host.admit(toast)
            host.releaseEmptyLine()
        } else {
            host.admit(toast)
        }
    }

    /// Whether stage `index` takes `toast`: not when a `spare` matches it (read first), nor
    /// when its `when` does not; a toast it does not take is counted and traced as spared or
    /// skipping it. A `spare` function that fails spares the toast and a `when` function that
    /// fails skips it: each counts as a script error of the stage (the runner reports it).
    private func takes(_ toast: Toast, at index: Int) -> Bool {
        if let spare = spareMatching(toast, at: index) {
            counts.stages[index].spared += 1
            if tracer != nil {
                trace(TraceRecord(time: now, toast: toast, stage: stageNames[index], verdict: .skip,
                                  details: [JSONMember("spare", .string(scopes[index].spares[spare].description))], because: "spare"))
            }
            return false
        }
        guard scopes[index].hasWhen, let when = scopes[index].when else { return true }
        let inScope: Bool
        switch when {
        case .match(let table):
            inScope = table.matches(toast, roles: settings.roles)
        case .function(let function):
            inScope = scriptFunctions?.matches(calling: function, with: toast, stage: stageNames[index], setting: "when",
                                               context: contexts[index]) ?? false
        }
        if !inScope {
            counts.stages[index].skipped += 1
            if tracer != nil {
                trace(TraceRecord(time: now, toast: toast, stage: stageNames[index], verdict: .skip,
                                  details: [JSONMember("when", .string(when.description))], because: "when"))
            }
        }
        return inScope
    }

    /// The position of the first of stage `index`'s spares that matches `toast`, if any. The
    /// first spare, when a range of priorities (the default), is read from the check's fields in
    /// place, without touching the list.
    @inline(__always)
    private func spareMatching(_ toast: Toast, at index: Int) -> Int? {
        var first = 0
        if scopes[index].spareIsPriorityRange {
            // No role of the name's length reaches `atLeast`: not spared, without comparing names.
            let mayReach = !scopes[index].isAtLeastOnly || toast.priority != nil
                || Self.mayBeNamed(toast.role, among: scopes[index].lengthsReachingAtLeast)
            if mayReach {
                let priority = toast.effectivePriority(in: settings.roles)
                if priority >= scopes[index].atLeast && priority < scopes[index].below { return 0 }
            }
            guard scopes[index].spareCount > 1 else { return nil }
            first = 1
        }
        for position in first..<scopes[index].spareCount {
            switch scopes[index].spares[position] {
            case .match(let table):
                if table.matches(toast, roles: settings.roles) { return position }
            case .function(let function):
                let matched = scriptFunctions?.matches(calling: function, with: toast, stage: stageNames[index], setting: "spare",
                                                       context: contexts[index])
                if matched ?? true { return position }
            }
        }
        return nil
    }

    private func hold(_ toast: Toast, _ handle: HoldHandle, at index: Int) {
        // A toast the stage changed while it held it in this call (`changeHeld`) is held so.
        let inHand = holdsInHand.first { $0.serial == handle.serial }
        var toast = inHand?.changed == true ? inHand?.toast ?? toast : toast
        holdsInHand.removeAll()
        var serial = 0
        var countsAsError = false
        if let table = screenTable {
            stampScreen(&toast)
            if let key = toast.screenKey, let screen = table.screen(key) {
                screen.held += 1
                countsAsError = isError(toast)
                if countsAsError { screen.heldErrors += 1 }
                assert(screen.heldErrors <= screen.held)
                table.touch(screen)
                serial = screen.serial
            }
        }
        held[handle.serial] = HeldToast(toast: toast, stage: index, since: now, screen: serial, isError: countsAsError)
    }

    /// A toast a stage made, through the rules stage alone before it goes on after its maker:
    /// whether the rules kept it (a drop is written).
    private func passesRules(_ toast: inout Toast, at rules: Int) -> Bool {
        let verdict = tracer != nil ? processTraced(&toast, at: rules) : stages[rules].process(&toast, context: contexts[rules])
        counts.stages[rules].reached += 1
        switch verdict {
        case .pass:
            counts.stages[rules].passedBy += 1
            return true
        case .drop(let drop):
            counts.stages[rules].droppedCounts.add(drop.reason)
            if screenTable != nil { stampScreen(&toast) }
            write(.drop(toast, at: now, drop))
            return false
        case .hold(let handle):
            // The rules stage holds nothing; should a plugin in its place, the toast waits there.
            counts.stages[rules].held += 1
            hold(toast, handle, at: rules)
            return false
        }
    }

    /// `process` at stage `index`, with a trace record of its decision unless the stage traced
    /// its own steps.
    private func processTraced(_ toast: inout Toast, at index: Int) -> StageVerdict {
        processTraced(&toast, stages[index], contexts[index], at: index)
    }

    private func processTraced(_ toast: inout Toast, _ stage: any ToastStage, _ context: StageContext,
                               at index: Int) -> StageVerdict {
        let before = toast
        let tracesBefore = tracesWritten
        stageBecause = nil
        let verdict = stage.process(&toast, context: context)
        guard tracesWritten == tracesBefore else { return verdict }
        let trace: TraceRecord
        switch verdict {
        case .pass:
            let changed = toast.changedFields(since: before)
            trace = TraceRecord(time: now, toast: toast, stage: stageNames[index], verdict: changed.isEmpty ? .pass : .change,
                                changedFields: changed, because: stageBecause)
        case .drop(let drop):
            trace = TraceRecord(time: now, toast: toast, stage: stageNames[index], verdict: .drop, rule: drop.rule,
                                details: drop.traceDetails, because: stageBecause)
        case .hold:
            trace = TraceRecord(time: now, toast: toast, stage: stageNames[index], verdict: .held, because: stageBecause)
        }
        self.trace(trace)
        return verdict
    }

    /// Writes a trace record, when tracing. `aboutToastInHand`: a stage's own step for the
    /// toast it is deciding (then the pipeline adds no record of its own for that decision);
    /// false for what a stage does to another, held toast.
    func trace(_ record: TraceRecord, aboutToastInHand: Bool = true) {
        guard let tracer else { return }
        if aboutToastInHand { tracesWritten += 1 }
        tracer.write(record)
    }

    /// Keeps a stage's words for the trace of its current decision.
    func explainStage(_ because: String) {
        stageBecause = because
    }

    /// Brings a new toast in at the first stage, once the current step is done, as a
    /// script's `emit` does.
    package func emit(_ toast: Toast) {
        emit(toast, atStage: 0)
    }

    /// Brings a toast in at `stage`, once the current step is done (at once outside a step).
    func emit(_ toast: Toast, atStage stage: Int) {
        enqueue(toast, atStage: stage)
        if stepDepth == 0 { runPending() }
    }

    private func enqueue(_ toast: Toast, atStage stage: Int) {
        var toast = toast
        toast.atMicros = now
        if toast.inputLine == 0 { toast.inputLine = currentLine }
        pending.append((toast, stage, true))
    }

    func runPending() {
        guard !isRunningPending else { return }
        isRunningPending = true
        while pendingStart < pending.count {
            var (toast, stage, isNew) = pending[pendingStart]
            pendingStart += 1
            if isNew {
                counts.toastsIn += 1
                if toast.madeBy != nil, let rules = rulesIndex, rules < stage {
                    guard passesRules(&toast, at: rules) else { continue }
                }
            }
            run(&toast, from: stage)
        }
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        isRunningPending = false
    }

    /// The next id for a toast that `emit` or a summary brings in: `e<N>`.
    package func nextGeneratedID() -> String {
        generatedIDs.next()
    }

    /// A toast with the defaults of a show event (docs/events.md), the next `e<N>` id
    /// and the current time.
    package func makeGeneratedToast(message: String, role: String = "info") -> Toast {
        var toast = settings.queue.show(id: nextGeneratedID(), message: message, role: role)
        toast.atMicros = now
        toast.inputLine = currentLine
        return toast
    }

    func scheduleStageTimer(stage: Int, screen: Int, token: Int, at time: Microseconds) {
        timers.schedule(.stage(stage, token: token, screen: screen), at: max(time, now))
    }

    /// The values of the timers stages set with a value, by id, until they fire or are
    /// cancelled, with the serial of the screen whose stage set them (0: none).
    var stageTimerValues: [Int: (value: any Sendable, screen: Int)] = [:]
    /// Ids of errors dropped into a summary or digest (or rate-limited, which a summary may
    /// stand for), until one that names them is shown (`countPresented`). Bounded: past
    /// `errorsAwaitingLimit` ids (a flood of rate-limited errors with no summary) more are not
    /// kept, and `--stats` counts fewer errors stood for than there were.
    var errorsAwaitingSummary: Set<String> = []
    static let errorsAwaitingLimit = 65_536
    /// The name lengths of the roles of priority `RoleTable.errorPriority` or more (`isError`).
    var errorRoleLengths: UInt64
    var nextStageTimer = 0

    func scheduleStageTimer(stage: Int, screen: Int, value: any Sendable, at time: Microseconds) -> StageTimer {
        nextStageTimer += 1
        stageTimerValues[nextStageTimer] = (value, screen)
        timers.schedule(.stageValue(stage, id: nextStageTimer), at: max(time, now))
        return StageTimer(id: nextStageTimer, value: value)
    }

    func cancelStageTimer(_ timer: StageTimer) {
        stageTimerValues[timer.id] = nil
    }

    // MARK: HostEnvironment

    package func schedule(_ timer: HostTimer, at time: Microseconds) {
        timers.schedule(.host(timer), at: time)
    }

    func scheduleHostTimer(_ timer: HostTimer, screen: Int, at time: Microseconds) {
        timers.schedule(.screenHost(timer, screen: screen), at: time)
    }

    package func write(_ record: consuming Record) {
        counts.records += 1
        let hostIndex = stages.count
        switch record {
        case .present(let toast, _, _):
            counts.stages[hostIndex].presented += 1
            countPresented(toast)
        case .dismiss(_, _, let reason, _):
            counts.stages[hostIndex].dismissedCounts.add(reason)
        case .drop(let toast, _, let drop):
            if drop.stageLabel == .word(.host) { counts.stages[hostIndex].droppedCounts.add(drop.reason) }
            countDropped(toast, drop)
        }
        // Only with observers: reading `entryContext` is an access the run-time check guards.
        guard !observers.isEmpty else { return output.write(record) }
        output.write(copy record)
        for observer in observers { observer.observe(record, context: entryContext) }
    }
}
