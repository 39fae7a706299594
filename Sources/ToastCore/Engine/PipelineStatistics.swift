/// Counts of what happened in a run, per stage (docs/events.md, "Records").
public struct PipelineStatistics: Equatable, Sendable {
    public struct StageCounts: Equatable, Sendable {
        public package(set) var name: String
        /// Toasts that reached the stage and were in its scope (not spared, taken by `when`).
        public var entered: Int { reached - skipped - spared }
        /// Toasts that went on from the stage (those that skipped it not counted).
        public var passed: Int { passedBy - skipped - spared }
        /// Toasts that reached the stage and skipped it: its `when` did not take them.
        public package(set) var skipped = 0
        /// Toasts that reached the stage and skipped it because its `spare` matched them.
        public package(set) var spared = 0
        // A toast that skips a stage is counted as reaching and passing it (the count is made
        // once a toast is through, `countPasses`), and taken off again here.
        var reached = 0
        var passedBy = 0
        /// Drops by reason.
        public var dropped: [String: Int] { droppedCounts.byReason }
        /// Dismissals by reason (the host only).
        public var dismissed: [String: Int] { dismissedCounts.byReason }
        /// Presentations (the host only).
        public package(set) var presented = 0
        /// Toasts the stage held, and those of them it released (the rest it dropped, or a
        /// dismiss or the end of the run did).
        public package(set) var held = 0
        public package(set) var released = 0
        /// The `stage` its drop records carry: `rule` for the rules stage, else its name (the
        /// built-in stages' records, and a plugin's that drops as `context.stageName`).
        public var dropRecordStage: String { name == BuiltInStage.rules ? "rule" : name }
        var droppedCounts = ReasonCounts()
        var dismissedCounts = DismissCounts()

        init(name: String) {
            self.name = name
        }
    }

    /// Counts by reason, in a short list: a stage has few reasons, and comparing a few labels
    /// (a built-in reason's is a number) costs less than hashing one for every record.
    struct ReasonCounts: Equatable, Sendable {
        /// By the reason's label: a built-in reason compares as a number.
        private var counts: [(reason: DropLabel, count: Int)] = []

        mutating func add(_ reason: DropReason) {
            add(reason.label)
        }

        mutating func add(_ label: DropLabel) {
            for index in counts.indices where counts[index].reason == label {
                counts[index].count += 1
                return
            }
            counts.append((label, 1))
        }

        /// The counts in the order their labels first came.
        var inOrder: [(label: String, count: Int)] { counts.map { ($0.reason.text, $0.count) } }

        var byReason: [String: Int] {
            Dictionary(counts.map { ($0.reason.text, $0.count) }, uniquingKeysWith: +)
        }

        static func == (left: ReasonCounts, right: ReasonCounts) -> Bool {
            left.byReason == right.byReason
        }
    }

    /// Dismissals by reason: a count for each of the few reasons, by its place among them (a
    /// dismissal is counted for every toast shown, and comparing its reason's name cost more).
    struct DismissCounts: Equatable, Sendable {
        private var counts = [Int](repeating: 0, count: DismissReason.allCases.count)

        mutating func add(_ reason: DismissReason) {
            counts[reason.place] += 1
        }

        var byReason: [String: Int] {
            var byReason: [String: Int] = [:]
            for reason in DismissReason.allCases where counts[reason.place] > 0 {
                byReason[reason.rawValue] = counts[reason.place]
            }
            return byReason
        }
    }

    /// The stages in pipeline order, the host last.
    public package(set) var stages: [StageCounts]
    /// Events handled (input lines that were events).
    public package(set) var events = 0
    /// Events whose `at` was earlier than the clock.
    public package(set) var lateEvents = 0
    /// Toasts that came in: shows, emitted toasts and summaries.
    public package(set) var toastsIn = 0
    public package(set) var records = 0
    /// With screens on: screens made, ended by `screens.limit`, and at most remembered at once.
    package var screens: ScreenCounts?

    /// Toasts of priority 2 or more (errors, unless a script says otherwise) that were shown.
    public package(set) var errorsShown = 0
    /// Such toasts dropped, by the `stage` of their drop records, in the order first seen.
    public var errorsDropped: [(stage: String, count: Int)] { errorDrops.inOrder.map { ($0.label, $0.count) } }
    /// Such toasts dropped, by their role, in the order first seen.
    public var errorsDroppedByRole: [(role: String, count: Int)] { errorRoleDrops.entries.map { ($0.name, $0.count) } }
    /// Summaries and digests shown, the dropped toasts they stand for, and how many of those
    /// were errors: a summary counts for them here only, not as their own presentation.
    public package(set) var summariesShown = 0
    public package(set) var stoodFor = 0
    public package(set) var errorsStoodFor = 0
    /// Toasts shown and dropped, by role, in the order first seen (`--metrics`).
    public var shownByRole: [(role: String, count: Int)] { roleShows.entries.map { ($0.name, $0.count) } }
    public var droppedByRole: [(role: String, count: Int)] { roleDrops.entries.map { ($0.name, $0.count) } }
    /// By the drop's stage label (a built-in stage's compares as a number).
    var errorDrops = ReasonCounts()
    var errorRoleDrops = NameCounts()
    var roleShows = NameCounts()
    var roleDrops = NameCounts()

    /// Counts by name in a short list, in the order first seen: a run has few roles and
    /// stages, and comparing a few short strings costs less than hashing one for every drop.
    struct NameCounts: Equatable, Sendable {
        private(set) var entries: [(name: String, count: Int)] = []

        mutating func add(_ name: String) {
            for index in entries.indices where entries[index].name == name {
                entries[index].count += 1
                return
            }
            entries.append((name, 1))
        }

        static func == (left: NameCounts, right: NameCounts) -> Bool {
            left.entries.elementsEqual(right.entries) { $0 == $1 }
        }
    }

    package struct ScreenCounts: Equatable, Sendable {
        package var seen: Int
        package var endedByLimit: Int
        package var mostAtOnce: Int
    }

    init(stageNames: [String]) {
        stages = (stageNames + [BuiltInStage.host]).map { StageCounts(name: $0) }
    }

    public var host: StageCounts { stages[stages.count - 1] }

    /// A toast entered the stages from `start` to `last` and passed all but `last` (which
    /// dropped it, or is the host). Counted once a toast is through: one change to the array,
    /// not two for every stage (`start..<last` lies within it: both are stage positions).
    mutating func countPasses(from start: Int, upTo last: Int) {
        stages.withUnsafeMutableBufferPointer { stages in
            for index in start..<last {
                stages[index].reached += 1
                stages[index].passedBy += 1
            }
            stages[last].reached += 1
        }
    }
}

extension DismissReason {
    /// Its place in `allCases`.
    var place: Int {
        switch self {
        case .timeout: 0
        case .tap: 1
        case .longPress: 2
        case .swipe: 3
        case .programmatic: 4
        case .replacement: 5
        case .hostRemoved: 6
        case .screenLimit: 7
        case .preempted: 8
        }
    }
}
