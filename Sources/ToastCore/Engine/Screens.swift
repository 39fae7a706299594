/// One screen's part of a run when screens are on (docs/events.md, "Screens"): its host, its
/// own instance of each stage that keeps state per screen, and where it stands among the
/// screens (first appearance, last time an event named it).
final class Screen {
    var key: ScreenKey
    /// Unique for the run: timers carry it, so that a forgotten screen's timers go stale, and
    /// it orders screens by first appearance. A screen object reused for another screen gets
    /// a new one.
    var serial: Int {
        didSet { environment.screen = serial }
    }
    let host: Host
    let environment: ScreenHostEnvironment
    /// For each stage: this screen's own instance, or the one all screens share.
    var stages: [any ToastStage] = [] {
        didSet { unretainedStages = Self.unretained(stages, contexts) }
    }
    var contexts: [StageContext] = [] {
        didSet { unretainedStages = Self.unretained(stages, contexts) }
    }
    /// The same, as every toast's run calls them (`UnretainedStage`): `contexts` holds each
    /// context, and these are made again whenever a stage or a context is replaced.
    private(set) var unretainedStages: [UnretainedStage] = []
    /// Its own instances of the built-in stages, found once; and where the others of its own
    /// (plugins) are, which are made again when the object is reused.
    let builtIns: [any ScreenState]
    let ownPlugins: [Int]
    /// Toasts of this screen that stages hold, and those of them of priority 2 or more.
    var held = 0
    var heldErrors = 0
    /// Whether the table still remembers it (false once forgotten or ended).
    var isRemembered = true
    /// Its entry in the table's screens by key, while remembered.
    var entry = -1
    /// Whether it is among the screens to look at when the next event arrives: those are a
    /// list through `nextTouched`, the last used first, each in it once. The links count no
    /// references (`Unmanaged`): a screen in the list is remembered, spare, or kept by the
    /// table until the list is looked at (`ScreenTable.remove`).
    var isTouched = false
    var nextTouched: Unmanaged<Screen>?
    /// The list of screens by when an event last named them (`ScreenTable.leastRecent` first).
    /// A screen is in the list exactly while the table remembers it, and the table holds it
    /// strongly then: the links count no references (`Unmanaged`), so moving a screen to the
    /// end of the list, on every event, costs a few stores and no reference counting.
    var older: Unmanaged<Screen>?
    var newer: Unmanaged<Screen>?

    private static func unretained(_ stages: [any ToastStage], _ contexts: [StageContext]) -> [UnretainedStage] {
        zip(stages, contexts).map { UnretainedStage(stage: $0, context: $1) }
    }

    /// This screen's stage `index` decides on `toast`.
    @inline(__always)
    func process(_ toast: inout Toast, at index: Int) -> StageVerdict {
        unretainedStages[index].process(&toast)
    }

    /// A screen with `stages`, its own where `ownStages` says so (its contexts are set after).
    init(key: ScreenKey, serial: Int, host: Host, environment: ScreenHostEnvironment, stages: [any ToastStage],
         ownStages: [Bool]) {
        self.key = key
        self.serial = serial
        self.host = host
        self.environment = environment
        self.stages = stages
        let own = stages.indices.filter { ownStages[$0] }
        builtIns = own.compactMap { stages[$0] as? any ScreenState }
        ownPlugins = own.filter { !(stages[$0] is any ScreenState) }
    }
}

/// A host's timers and records, marked with its screen: the pipeline is every screen's
/// environment, and a timer must find its way back to its own host.
final class ScreenHostEnvironment: HostEnvironment {
    /// The pipeline owns the screen table, and so every screen's host and environment; a host
    /// reaches its environment only while the pipeline drives it (`unowned(unsafe)`: no
    /// reference count on every record and timer, as `StageContext.pipeline`).
    unowned(unsafe) let pipeline: Pipeline
    var screen: Int

    init(pipeline: Pipeline, screen: Int) {
        self.pipeline = pipeline
        self.screen = screen
    }

    var now: Microseconds { pipeline.now }
    var timeDisplay: TimeDisplay { pipeline.timeDisplay }

    func schedule(_ timer: HostTimer, at time: Microseconds) {
        pipeline.scheduleHostTimer(timer, screen: screen, at: time)
    }

    func write(_ record: consuming Record) {
        pipeline.write(record)
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
        /// The list of screens from the least recently named to the most (see `Screen.older`).
        var leastRecent: Unmanaged<Screen>? = nil
        var mostRecent: Unmanaged<Screen>? = nil
        /// The last screen used since the last look: the first of their list (`Screen.nextTouched`).
        var touched: Unmanaged<Screen>? = nil
        /// Screens the table stopped remembering while they were in that list: held until
        /// the list is looked at, so that its links stay valid.
        var removedWhileTouched: [Screen] = []
        /// The screen found last: the events of a screen often come in a row. Unretained, as
        /// is the screen in hand: both are remembered screens, and `remove` clears them.
        var lastFound: Unmanaged<Screen>? = nil
        /// The screen of the toast in hand (`Pipeline.screenInHand`).
        var inHand: Unmanaged<Screen>? = nil
        /// Screens kept only by a time window, to look at again when it ends: (time, serial).
        var windows = TimerQueue<Int>()
        var spare: [Screen] = []
        var seen: Int = 0
        var endedByLimit: Int = 0
        var mostAtOnce: Int = 0
    }
    private var state = State()

    /// The screens remembered, by serial.
    var bySerial: SerialTable<Screen> {
        _read { yield state.bySerial }
    }
    /// Least recently named first.
    var leastRecent: Screen? { state.leastRecent?.takeUnretainedValue() }
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

    init(settings: ScreenSettings, perScreen: [Bool], keepsScreen: [Bool]) {
        self.settings = settings
        self.field = FieldReference(name: settings.by)
        self.perScreen = perScreen
        self.keepsScreen = keepsScreen
    }

    var count: Int { state.byKey.count }

    /// The screen named `key`, if remembered.
    func screen(_ key: ScreenKey) -> Screen? {
        if let lastFound = state.lastFound, lastFound._withUnsafeGuaranteedRef({ $0.key == key }) {
            return lastFound.takeUnretainedValue()
        }
        let found: Screen? = key.withKeyBytes { bytes in
            state.byKey.number(of: bytes, hash: ByteKeyTable<Screen>.hash(bytes)).map { state.byKey[$0] }
        }
        if let found { state.lastFound = .passUnretained(found) }
        return found
    }

    /// The screen of the toast in hand, while no stage that may move it has run since it was
    /// found (`Pipeline.screenInHand`); nil when there is none.
    var inHand: Screen? {
        get { state.inHand?.takeUnretainedValue() }
        set { state.inHand = newValue.map(Unmanaged.passUnretained) }
    }

    /// `body` with the screen in hand, lent without a reference count; nil when there is none.
    @inline(__always)
    func withScreenInHand<Result>(_ body: (Screen) -> Result) -> Result? {
        state.inHand?._withUnsafeGuaranteedRef(body)
    }

    /// `screen` was used: it is looked at when the next event arrives.
    func touch(_ screen: Screen) {
        guard !screen.isTouched else { return }
        screen.isTouched = true
        screen.nextTouched = state.touched
        state.touched = .passUnretained(screen)
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
    var inOrderOfAppearance: [Screen] { bySerial.values.sorted { $0.serial < $1.serial } }

    func makeSerial() -> Int {
        state.nextSerial += 1
        return state.nextSerial
    }

    func add(_ screen: Screen) {
        screen.entry = screen.key.withKeyBytes { bytes in
            state.byKey.insert(bytes, hash: ByteKeyTable<Screen>.hash(bytes), screen)
        }
        state.bySerial[screen.serial] = screen
        state.seen += 1
        state.mostAtOnce = max(mostAtOnce, state.byKey.count)
        link(screen)
        touch(screen)
    }

    func remove(_ screen: Screen) {
        // (A screen's entry number may go to another screen once it is removed.)
        guard screen.isRemembered else { return }
        state.byKey.remove(at: screen.entry)
        state.bySerial[screen.serial] = nil
        screen.isRemembered = false
        let unretained = Unmanaged.passUnretained(screen).toOpaque()
        if state.lastFound?.toOpaque() == unretained { state.lastFound = nil }
        if state.inHand?.toOpaque() == unretained { state.inHand = nil }
        if screen.isTouched { state.removedWhileTouched.append(screen) }
        unlink(screen)
    }

    /// An event named `screen`: it becomes the most recently named.
    func named(_ screen: Screen) {
        unlink(screen)
        link(screen)
        touch(screen)
    }

    /// Look at `screen` again at `time`, when a window that keeps it ends.
    func lookAgain(_ screen: Screen, at time: Microseconds) {
        state.windows.schedule(screen.serial, at: time)
    }

    private func link(_ screen: Screen) {
        let linked = Unmanaged.passUnretained(screen)
        screen.older = state.mostRecent
        screen.newer = nil
        state.mostRecent?._withUnsafeGuaranteedRef { $0.newer = linked }
        state.mostRecent = linked
        if state.leastRecent == nil { state.leastRecent = linked }
    }

    private func unlink(_ screen: Screen) {
        let (older, newer) = (screen.older, screen.newer)
        if let older {
            older._withUnsafeGuaranteedRef { $0.newer = newer }
        } else if state.leastRecent?.toOpaque() == Unmanaged.passUnretained(screen).toOpaque() {
            state.leastRecent = newer
        }
        if let newer {
            newer._withUnsafeGuaranteedRef { $0.older = older }
        } else if state.mostRecent?.toOpaque() == Unmanaged.passUnretained(screen).toOpaque() {
            state.mostRecent = older
        }
        screen.older = nil
        screen.newer = nil
    }

    /// Lets go of every screen, for a pipeline that is done: the unretained links first, while
    /// the tables still hold the screens they lead to.
    func removeAll() {
        takeTouched { _ in }
        state.lastFound = nil
        state.inHand = nil
        for screen in bySerial.values { unlink(screen) }
        state.byKey.removeAll()
        state.bySerial.removeAll()
    }

    /// Empties the list of screens used since the last look and calls `body` with each; then
    /// lets go of the screens the table held for the list.
    private func takeTouched(_ body: (Screen) -> Void) {
        var next = state.touched
        state.touched = nil
        while let unretained = next {
            unretained._withUnsafeGuaranteedRef { screen in
                next = screen.nextTouched
                screen.nextTouched = nil
                screen.isTouched = false
                body(screen)
            }
        }
        if !state.removedWhileTouched.isEmpty { state.removedWhileTouched.removeAll() }
    }
}
