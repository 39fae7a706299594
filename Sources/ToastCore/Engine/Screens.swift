/// One screen's part of a run when screens are on (docs/events.md, "Screens"): its host, its
/// own instance of each stage that keeps state per screen, and where it stands among the
/// screens (first appearance, last time an event named it). It is its own host (one object for
/// both) and that host's environment: the host's timers carry the screen's serial back to it,
/// and its records go to the pipeline.
final class Screen: Host, RecencyListed, TouchListed, HostEnvironment {
    var key: ScreenKey
    /// Whether the table still remembers it (false once forgotten or ended). (Declared after
    /// `key`, whose last word it shares: a million screens make each word count.)
    var isRemembered = true
    /// Unique for the run: timers carry it, so that a forgotten screen's timers go stale, and
    /// it orders screens by first appearance. A screen object reused for another screen gets
    /// a new one.
    var serial: Int
    /// When an event last named it, on a count of namings the table keeps: orders the screens
    /// by recency in a saved run, whose rows are written one screen at a time.
    var namedStamp: Int = 0
    /// The pipeline owns the screen table, and so every screen; a screen reaches the pipeline
    /// only while the pipeline drives it (`unowned(unsafe)`: no reference count on every
    /// record and timer, as `StageContext.pipeline`).
    unowned(unsafe) let pipeline: Pipeline
    /// Its host: itself.
    var host: Host { self }
    /// Its own instances of stages and their contexts; nil when no stage has an instance for
    /// each screen (the built-in stages key their state by screen), so that such a screen
    /// carries one word for them, not five lists.
    private let own: OwnStages?

    /// For each stage: this screen's own instance, or the one all screens share (empty
    /// without stages of its own).
    var stages: [any ToastStage] {
        get { own?.stages ?? [] }
        set { own?.stages = newValue }
    }
    var contexts: [StageContext] {
        get { own?.contexts ?? [] }
        set { own?.contexts = newValue }
    }
    /// Its own instances of the built-in stages, and where the others of its own (plugins) are.
    var builtIns: [any ScreenState] { own?.builtIns ?? [] }
    var ownPlugins: [Int] { own?.ownPlugins ?? [] }
    /// What the stages that key their state by screen keep on it, by their slot numbers.
    var stageSlots = ScreenStageSlots()
    /// Toasts of this screen that stages hold, and those of them of priority 2 or more.
    var held: Int32 = 0
    var heldErrors: Int32 = 0
    /// Where it stands in the list of screens by when an event last named them
    /// (`ScreenTable.leastRecent` first): in it exactly while the table remembers it.
    var recencyLinks = RecencyLinks<Screen>()
    /// Whether it is among the screens to look at when the next event arrives, the list
    /// (`TouchedList`) the table keeps of them; a screen in it is remembered, spare, or kept
    /// by the table until the list is looked at (`ScreenTable.remove`). (Last: its flag
    /// ends the object, without a word of padding after it.)
    var touchedLink = TouchedLink<Screen>()
    /// Whether it may have changed since the last checkpoint saved it (`ScreenTable.markChanged`):
    /// only such screens are saved again. (After `touchedLink`, in the padding its flag leaves.)
    var isChangedSinceSave = false
    /// Whether a checkpoint wrote its row: when the screen is forgotten, the next one deletes it.
    var hasSavedRow = false

    /// This screen's stage `index` (one of its own) decides on `toast`.
    @inline(__always)
    func process(_ toast: inout Toast, at index: Int) -> StageVerdict {
        own?.unretainedStages[index].process(&toast) ?? .pass
    }

    /// A screen of `pipeline` with `stages`, its own where `ownStages` says so (its contexts
    /// are set after).
    init(key: ScreenKey, serial: Int, pipeline: Pipeline, stages: [any ToastStage], ownStages: [Bool]) {
        self.key = key
        self.serial = serial
        self.pipeline = pipeline
        own = stages.isEmpty ? nil : OwnStages(stages: stages, ownStages: ownStages)
        super.init(sharing: pipeline.hostShared)
        environment = UnretainedEnvironment(self)
    }

    // MARK: The host's environment

    var now: Microseconds { pipeline.now }
    var timeDisplay: TimeDisplay { pipeline.timeDisplay }

    func schedule(_ timer: HostTimer, at time: Microseconds) {
        pipeline.scheduleHostTimer(timer, screen: serial, at: time)
    }

    func write(_ record: consuming Record) {
        pipeline.write(record)
    }
}

/// A screen's own stage instances (`ToastStage.forNewScreen()`), with every stage's context
/// for it.
final class OwnStages {
    /// For each stage: the screen's own instance, or the one all screens share.
    var stages: [any ToastStage] {
        didSet { unretainedStages = Self.unretained(stages, contexts) }
    }
    var contexts: [StageContext] = [] {
        didSet { unretainedStages = Self.unretained(stages, contexts) }
    }
    /// The same, as every toast's run calls them (`UnretainedStage`): `contexts` holds each
    /// context, and these are made again whenever a stage or a context is replaced.
    private(set) var unretainedStages: [UnretainedStage] = []
    /// Its own instances of the built-in stages, found once; and where the others of its own
    /// (plugins) are, which are made again when the screen object is reused.
    let builtIns: [any ScreenState]
    let ownPlugins: [Int]

    init(stages: [any ToastStage], ownStages: [Bool]) {
        self.stages = stages
        let own = stages.indices.filter { ownStages[$0] }
        builtIns = own.compactMap { stages[$0] as? any ScreenState }
        ownPlugins = own.filter { !(stages[$0] is any ScreenState) }
    }

    private static func unretained(_ stages: [any ToastStage], _ contexts: [StageContext]) -> [UnretainedStage] {
        zip(stages, contexts).map { UnretainedStage(stage: $0, context: $1) }
    }
}

/// The screens a run remembers, at most `limit` of them, and what it counted of them.
///
/// A screen is made when a toast first reaches a stage that keeps state per screen, or the host.
/// It is forgotten, without a record, when an event arrives and nothing in it remains
/// (`Pipeline.isIdle`); the screens used since the last event are looked at then, and those kept only by a
/// time window again when the window ends, so no event looks at every screen.
final class ScreenTable {
    let settings: ScreenSettings
    /// `settings.by`, resolved once.
    let field: FieldReference
    /// Which stages keep their state per screen (`ToastStage.forNewScreen()` gave an instance).
    let perScreen: [Bool]
    /// Whether any stage has an instance for each screen.
    let hasOwnStages: Bool
    /// Which stages keep every screen's state in tables of their own (`ScreenKeyedStage`): the
    /// toast's screen is found before them.
    let keyedByScreen: [Bool]
    /// Those stages.
    let keyedStages: [any ScreenKeyedStage]
    /// Which stages never change the field `by`, so a toast's screen found before them holds after.
    let keepsScreen: [Bool]
    /// What changes as screens come and go: each method here reaches it in single steps that
    /// call out to nothing that could reach the table again, and the pipeline is
    /// single-threaded.
    private struct State: ~Copyable {
        /// By the bytes of their keys (`ScreenKey.withKeyBytes`): looked up for every toast,
        /// without hashing a `String` through `Hasher`.
        var byKey = ByteKeyTable<Screen>()
        var bySerial = SerialTable<Screen>()
        var nextSerial: Int = 0
        /// The screens from the least recently named to the most.
        var recency = RecencyList<Screen>()
        /// The screens used since the last look, the last used first.
        var touched = TouchedList<Screen>()
        /// Screens the table stopped remembering while they were in that list: held until
        /// the list is looked at, so that its links stay valid.
        var removedWhileTouched: [Screen] = []
        /// The screen found last: the events of a screen often come in a row. Both slots hold
        /// remembered screens, and `remove` clears them.
        var lastFound = UnownedSlot<Screen>()
        /// The screen of the toast in hand (`Pipeline.screenInHand`).
        var inHand = UnownedSlot<Screen>()
        /// Screens kept only by a time window, to look at again when it ends: (time, serial).
        var windows = TimerQueue<Int>()
        var spare: [Screen] = []
        var seen: Int = 0
        var endedByLimit: Int = 0
        var mostAtOnce: Int = 0
        /// The stamp the next named screen gets (`Screen.namedStamp`).
        var nextNamedStamp: Int = 1
        /// The screens changed and forgotten since the last checkpoint.
        var changes = ScreenChanges()
    }
    private var state = State()

    /// The screens remembered, by serial.
    var bySerial: SerialTable<Screen> {
        _read { yield state.bySerial }
    }
    /// Least recently named first.
    var leastRecent: Screen? { state.recency.leastRecent }
    /// The least recently named screen that `predicate` accepts.
    func leastRecent(where predicate: (Screen) -> Bool) -> Screen? { state.recency.leastRecent(where: predicate) }
    /// Forgotten screens kept for reuse: their hosts are empty and their stages emptied.
    var spare: [Screen] {
        _read { yield state.spare }
        _modify { yield &state.spare }
    }
    /// Screens made, ended by `limit`, and at most remembered at once.
    var seen: Int {
        _read { yield state.seen }
    }
    var endedByLimit: Int {
        _read { yield state.endedByLimit }
        _modify { yield &state.endedByLimit }
    }
    var mostAtOnce: Int {
        _read { yield state.mostAtOnce }
    }

    static let spareLimit = 256

    init(settings: ScreenSettings, stages: [any ToastStage]) {
        self.settings = settings
        self.field = FieldReference(name: settings.by)
        perScreen = stages.map { $0.forNewScreen() != nil }
        hasOwnStages = perScreen.contains(true)
        keyedStages = stages.compactMap { $0 as? any ScreenKeyedStage }
        keyedByScreen = stages.map { $0 is any ScreenKeyedStage }
        keepsScreen = stages.map { Self.leavesScreenField($0, by: settings.by) }
        for (slot, stage) in keyedStages.enumerated() { stage.keyByScreen(in: self, slot: slot) }
    }

    var count: Int { state.byKey.count }

    /// The screen named `key`, if remembered.
    func screen(_ key: ScreenKey) -> Screen? {
        if state.lastFound.with({ $0.key == key }) == true { return state.lastFound.value }
        let found: Screen? = key.withKeyBytes { bytes in
            state.byKey.number(of: bytes, hash: ByteKeyTable<Screen>.hash(bytes)).map { state.byKey[$0] }
        }
        if let found { state.lastFound.value = found }
        return found
    }

    /// The screen of the toast in hand, while no stage that may move it has run since it was
    /// found (`Pipeline.screenInHand`); nil when there is none.
    var inHand: Screen? {
        get { state.inHand.value }
        set { state.inHand.value = newValue }
    }

    /// Whether there is a screen in hand (asked without taking a reference to it).
    var hasScreenInHand: Bool { !state.inHand.isEmpty }

    /// A stage that keys its state by screen decides with its slot `slot` in the screen in hand
    /// and the screen's serial: the pipeline found the screen before calling the stage, so it
    /// is never missing here (were it, the toast would pass).
    @inline(__always)
    func withSlotInHand(_ slot: Int, _ decide: (inout ScreenStageSlot, Int) -> StageVerdict) -> StageVerdict {
        state.inHand.with { screen in decide(&screen.stageSlots[slot], screen.serial) } ?? .pass
    }

    /// `body` with the screen in hand, lent without a reference count; nil when there is none.
    @inline(__always)
    func withScreenInHand<Result>(_ body: (Screen) -> Result) -> Result? {
        state.inHand.with(body)
    }

    /// `screen` was used: it is looked at when the next event arrives, and saved again at the
    /// next checkpoint. Whatever changes a screen touches it (checked at each checkpoint in
    /// debug builds: a screen not touched saves as it did).
    func touch(_ screen: Screen) {
        state.touched.add(screen)
        markChanged(screen)
    }

    /// `screen` may have changed: the next checkpoint saves it again.
    @inline(__always)
    func markChanged(_ screen: Screen) {
        guard !screen.isChangedSinceSave else { return }
        screen.isChangedSinceSave = true
        guard state.changes.isKept else { return }
        state.changes.changed.append(screen.serial)
        // The serials of screens forgotten since are dropped in one pass once the list is
        // twice as long as the table (a pass leaves at most the table's count, so passes are
        // that many appends apart): a long stretch without a checkpoint would otherwise list
        // every screen ever made.
        if state.changes.changed.count > 2 * max(count, 1_024) {
            var changed = state.changes.changed
            state.changes.changed = []
            changed.removeAll { state.bySerial[$0] == nil }
            state.changes.changed = changed
        }
    }

    /// The screens changed and forgotten since the last call, which a checkpoint makes; nil
    /// the first time (none were listed before it: every screen is to be looked at), when the
    /// lists begin.
    func takeChangesSinceSave() -> ScreenChanges? {
        defer { state.changes = ScreenChanges(isKept: true) }
        return state.changes.isKept ? state.changes : nil
    }

    /// After a restore: every screen is as saved, and the lists begin.
    func restoredAsSaved() {
        forEachScreen { screen in
            screen.isChangedSinceSave = false
            screen.hasSavedRow = true
        }
        state.changes = ScreenChanges(isKept: true)
    }

    /// Calls `body` with the screens to look at when an event arrives at `now`: those used
    /// since the last look (the last used first), then those kept by a window that has ended.
    /// The list runs through the screens themselves: an array of them cost more to fill, walk
    /// and empty than the look itself.
    func lookAtScreens(now: Microseconds, _ body: (Screen) -> Void) {
        takeTouched(body)
        while let due = state.windows.popDue(atOrBefore: now) {
            if let screen = bySerial[due.payload] { body(screen) }
        }
    }

    /// Whether `stage` leaves the field that names screens as it is (`FieldPreserving`); a
    /// rule or a plugin stage may change any field.
    static func leavesScreenField(_ stage: any ToastStage, by field: String) -> Bool {
        (stage as? any FieldPreserving)?.leaves(field: field) ?? false
    }

    /// Every screen, in the order they first appeared.
    var inOrderOfAppearance: [Screen] {
        var screens = bySerial.values
        screens.sort { $0.serial < $1.serial }   // (in place: one list of them, not two)
        return screens
    }

    // MARK: Saved state (--state)

    /// The screens from the least recently named to the most.
    var byRecency: [Screen] { state.recency.inOrder() }

    /// The screens used since the last look, the last used first.
    var touchedScreens: [Screen] { state.touched.inOrder() }

    /// The windows' times to look at screens again, saved as `TimerQueue` saves (payload: the
    /// screen's serial).
    var windowsState: JSONValue { state.windows.savedState { .integer(Int64($0)) } }

    /// The windows' timers, each with its sequence, for a checkpoint that saves them as rows.
    func forEachWindow(_ body: (TimerQueue<Int>.Timer) throws -> Void) rethrows {
        try state.windows.forEachTimer(body)
    }

    /// Every remembered screen, in no particular order.
    func forEachScreen(_ body: (Screen) throws -> Void) rethrows {
        try state.bySerial.forEachValue(body)
    }

    /// Takes back what a saved run held, after its screens were added again (`add`) in order
    /// of recency: the touched list (last used first), the windows and the counters.
    func restore(touched: [Screen], windows: TimerQueue<Int>, lastSerial: Int, seen: Int, endedByLimit: Int, mostAtOnce: Int) {
        takeTouched { _ in }
        for screen in touched.reversed() { touch(screen) }
        state.windows = windows
        state.nextSerial = lastSerial
        state.seen = seen
        state.endedByLimit = endedByLimit
        state.mostAtOnce = mostAtOnce
    }

    /// The last serial given (the next screen gets the one after).
    var lastSerial: Int { state.nextSerial }

    func makeSerial() -> Int {
        state.nextSerial += 1
        return state.nextSerial
    }

    func add(_ screen: Screen) {
        assert(screen.isRemembered && bySerial[screen.serial] == nil && self.screen(screen.key) == nil,
               "a screen added twice, or under a key or serial another holds")
        defer { checkInvariants() }
        _ = screen.key.withKeyBytes { bytes in
            state.byKey.insert(bytes, hash: ByteKeyTable<Screen>.hash(bytes), screen)
        }
        state.bySerial[screen.serial] = screen
        state.seen += 1
        state.mostAtOnce = max(mostAtOnce, state.byKey.count)
        state.recency.append(screen)
        stampNamed(screen)
        touch(screen)
    }

    /// `screen` becomes the most recently named (its stamp the next), unless a saved run
    /// restores its stamp (`restoreStamp`).
    private func stampNamed(_ screen: Screen) {
        screen.namedStamp = state.nextNamedStamp
        state.nextNamedStamp += 1
    }

    /// A restored screen takes back the stamp it was saved with (screens are added again in
    /// order of recency, so the stamps go up as they did).
    func restoreStamp(_ stamp: Int, of screen: Screen) {
        screen.namedStamp = stamp
        state.nextNamedStamp = max(state.nextNamedStamp, stamp + 1)
    }

    func remove(_ screen: Screen) {
        guard screen.isRemembered else { return }
        defer { checkInvariants() }
        // Found by its key again, once: a screen keeps no entry number (a word more in each).
        if let entry = screen.key.withKeyBytes({ state.byKey.number(of: $0, hash: ByteKeyTable<Screen>.hash($0)) }) {
            state.byKey.remove(at: entry)
        }
        state.bySerial[screen.serial] = nil
        screen.isRemembered = false
        // Its serial is never given again; reused, it is changed under its new one.
        screen.isChangedSinceSave = false
        if state.changes.isKept && screen.hasSavedRow { state.changes.forgotten.append(screen.serial) }
        screen.hasSavedRow = false
        if state.lastFound.holds(screen) { state.lastFound.value = nil }
        if state.inHand.holds(screen) { state.inHand.value = nil }
        if screen.touchedLink.isTouched { state.removedWhileTouched.append(screen) }
        state.recency.remove(screen)
    }

    /// After a restore, which adds the screens in the order of their rows: `screens`, every
    /// screen the table holds, become the recency list in their order (that of their stamps).
    func orderByRecency(_ screens: [Screen]) {
        assert(screens.count == bySerial.count, "a recency list of other screens than the table's")
        for screen in screens {
            state.recency.remove(screen)
            state.recency.append(screen)
        }
    }

    /// An event named `screen`: it becomes the most recently named.
    func named(_ screen: Screen) {
        state.recency.remove(screen)
        state.recency.append(screen)
        stampNamed(screen)
        touch(screen)
    }

    /// Look at `screen` again at `time`, when a window that keeps it ends.
    func lookAgain(_ screen: Screen, at time: Microseconds) {
        state.windows.schedule(screen.serial, at: time)
    }

    /// What the comments above promise, checked in debug builds (the test suite runs them): a
    /// remembered screen is found by its key and by its serial, and is in the recency list;
    /// the slots hold remembered screens.
    private func checkInvariants() {
        assert(state.byKey.count == state.bySerial.count, "the tables by key and by serial hold different screens")
        assert(state.lastFound.with { $0.isRemembered } ?? true, "the last found screen is forgotten")
        assert(state.inHand.with { $0.isRemembered } ?? true, "the screen in hand is forgotten")
        assert(state.recency.leastRecent.map { $0.isRemembered && bySerial[$0.serial] === $0 } ?? (state.byKey.count == 0),
               "the least recent screen is not remembered, or the list is empty while screens are")
    }

    /// Lets go of every screen, for a pipeline that is done: the unretained links first, while
    /// the tables still hold the screens they lead to.
    func removeAll() {
        takeTouched { _ in }
        state.lastFound.value = nil
        state.inHand.value = nil
        for screen in bySerial.values { state.recency.remove(screen) }
        state.byKey.removeAll()
        state.bySerial.removeAll()
    }

    /// Empties the list of screens used since the last look and calls `body` with each; then
    /// lets go of the screens the table held for the list.
    private func takeTouched(_ body: (Screen) -> Void) {
        // Taken out of the table first: `body` may forget screens, which changes the table.
        var touched = state.touched
        state.touched = TouchedList()
        touched.takeAll(body)
        if !state.removedWhileTouched.isEmpty { state.removedWhileTouched.removeAll() }
    }
}
