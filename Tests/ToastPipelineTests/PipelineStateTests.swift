import Testing
@testable import ToastCore
@testable import ToastPipelineTesting

/// The law of `--state` (SPEC 11.4), in one process: a run saved at any event, and restored
/// into a new pipeline of the same stages, writes from there on the records of the run that
/// never stopped.
@Suite struct PipelineStateTests {
    typealias Generator = InvariantTests.SeededGenerator

    /// The stages of a run that holds toasts too: debounce and digest before the others.
    private func holdingStages(_ debounce: DebounceSettings, _ digest: DigestSettings,
                               _ rateLimit: RateLimitSettings) -> [(name: String, stage: any ToastStage)] {
        [("debounce", DebounceStage(settings: debounce)), ("dedup", DedupStage(settings: DedupSettings())),
         ("digest", DigestStage(settings: digest)), ("rate_limit", RateLimitStage(settings: rateLimit)),
         ("priority", PriorityStage()), ("style", StyleStage()), ("announce", AnnounceStage())]
    }

    /// A waiting line of two, and `screens`.
    private func settings(screens: ScreenSettings? = nil) -> PipelineSettings {
        var settings = PipelineSettings()
        settings.queue.limit = 2
        settings.screens = screens
        return settings
    }

    private func makeHoldingPipeline(_ log: RecordLog) -> Pipeline {
        var debounce = DebounceSettings()
        debounce.fields = ["source"]
        debounce.window = 1_500_000
        debounce.maxWait = 4_000_000
        var digest = DigestSettings()
        digest.window = 3_000_000
        digest.leading = false
        var rateLimit = RateLimitSettings()
        rateLimit.limit = 3
        rateLimit.window = 2_000_000
        rateLimit.summary = true
        return Pipeline(settings: settings(), stages: holdingStages(debounce, digest, rateLimit), output: log)
    }

    private func makePipeline(_ log: RecordLog) -> Pipeline {
        var dedup = DedupSettings()
        dedup.cache = 8
        dedup.window = 4_000_000
        var rateLimit = RateLimitSettings()
        rateLimit.limit = 2
        rateLimit.window = 3_000_000
        rateLimit.summary = true
        return Pipeline(settings: settings(), stages: [
            ("dedup", DedupStage(settings: dedup)), ("rate_limit", RateLimitStage(settings: rateLimit)),
            ("priority", PriorityStage()), ("style", StyleStage()), ("announce", AnnounceStage()),
        ], output: log)
    }

    /// A random stream: shows from a few sources with a few messages and roles, taps, dismisses.
    private func events(seed: UInt64, count: Int) -> [Event] {
        var random = Generator(state: seed)
        var time: Microseconds = 0
        return (0..<count).map { index in
            time += Microseconds.random(in: 0...900_000, using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0: return Event(.tap(target: nil), at: time, line: index + 1)
            case 1: return Event(.dismiss(target: "t\(Int.random(in: 0...index, using: &random))"), at: time, line: index + 1)
            default:
                var toast = Toast(id: "t\(index)", message: "m\(Int.random(in: 0..<5, using: &random))",
                                  role: ["info", "info", "warning", "error"].randomElement(using: &random) ?? "info")
                toast.source = "s\(Int.random(in: 0..<3, using: &random))"
                if Int.random(in: 0..<6, using: &random) == 0 { toast.durationMicros = nil }
                toast.inputLine = index + 1
                return Event(.show(toast), at: time, line: index + 1)
            }
        }
    }

    /// Runs `stream` through a pipeline `make` builds, whole; then again, saved after a random
    /// event and restored into a new one that takes the rest. Returns the records of both runs.
    private func wholeAndRestored(_ make: (RecordLog) -> Pipeline, _ stream: [Event], seed: UInt64) throws
        -> (whole: [String], restored: [String], stopAfter: Int) {
        var random = Generator(state: seed)
        let stopAfter = Int.random(in: 1..<stream.count, using: &random)
        let wholeLog = RecordLog()
        let whole = make(wholeLog)
        for event in stream { whole.handle(event) }
        whole.finish(drain: true)

        let firstLog = RecordLog()
        let first = make(firstLog)
        for event in stream[..<stopAfter] { first.handle(event) }
        let saved = try first.savedState()
        let secondLog = RecordLog()
        let second = make(secondLog)
        try second.restore(from: saved)
        #expect(try second.savedState() == saved)
        for event in stream[stopAfter...] { second.handle(event) }
        second.finish(drain: true)
        return (wholeLog.jsonLines, firstLog.jsonLines + secondLog.jsonLines, stopAfter)
    }

    @Test(arguments: 0..<12)
    func aRestoredRunWritesTheRecordsOfTheRunThatNeverStopped(seed: UInt64) throws {
        let run = try wholeAndRestored(makePipeline, events(seed: seed, count: 120), seed: seed &+ 500)
        #expect(run.restored == run.whole, "stopped after event \(run.stopAfter)")
        #expect(run.whole.contains { $0.contains(#""stage":"rate_limit""#) })
        #expect(run.whole.contains { $0.contains(#""stage":"dedup""#) })
    }

    @Test(arguments: 0..<12)
    func aRestoredRunThatHoldsToastsWritesTheRecordsOfTheRunThatNeverStopped(seed: UInt64) throws {
        let run = try wholeAndRestored(makeHoldingPipeline, events(seed: seed &+ 77, count: 120), seed: seed &+ 900)
        #expect(run.restored == run.whole, "stopped after event \(run.stopAfter)")
        for reason in ["debounced", "digested"] {
            #expect(run.whole.contains { $0.contains(#""reason":"\#(reason)""#) }, "no \(reason) drop")
        }
    }

    /// The holding run with screens on, by `user`, at most four at once (so the limit ends some).
    private func makeScreensPipeline(_ log: RecordLog) -> Pipeline {
        var screens = ScreenSettings(by: "user")
        screens.limit = 4
        var debounce = DebounceSettings()
        debounce.fields = ["source"]
        var digest = DigestSettings()
        digest.window = 3_000_000
        var rateLimit = RateLimitSettings()
        rateLimit.limit = 1
        rateLimit.window = 4_000_000
        rateLimit.summary = true
        return Pipeline(settings: settings(screens: screens), stages: holdingStages(debounce, digest, rateLimit), output: log)
    }

    /// `events`, each show and tap on one of six users' screens.
    private func screenEvents(seed: UInt64, count: Int) -> [Event] {
        var random = Generator(state: seed &+ 31)
        return events(seed: seed, count: count).map { event in
            var event = event
            let user = "u\(Int.random(in: 0..<6, using: &random))"
            if case .show(var toast) = event.kind {
                toast.extra = [JSONMember("user", .string(user))]
                event.kind = .show(toast)
            } else {
                event.screen = .text(user)
            }
            return event
        }
    }

    @Test(arguments: 0..<12)
    func aRestoredRunWithScreensWritesTheRecordsOfTheRunThatNeverStopped(seed: UInt64) throws {
        let run = try wholeAndRestored(makeScreensPipeline, screenEvents(seed: seed, count: 150), seed: seed &+ 300)
        #expect(run.restored == run.whole, "stopped after event \(run.stopAfter)")
        #expect(run.whole.contains { $0.contains(#""reason":"screen_limit""#) })
        // dedup and rate_limit keep every screen's state in one table of their own: it is
        // saved and restored with the screens' serials.
        #expect(run.whole.contains { $0.contains(#""stage":"dedup""#) }, "no dedup drop")
        #expect(run.whole.contains { $0.contains(#""stage":"rate_limit""#) }, "no rate_limit drop")
        #expect(run.whole.contains { $0.contains(" more") }, "no summary")
    }

    /// A plugin stage that keeps state: it holds warnings and lets them go on together two
    /// seconds after the first, with a value timer, counting the batches it let go.
    final class Batcher: PluginStage {
        static let name = "batcher"
        struct Settings: PluginSettings {
            static let fields: [SettingField<Settings>] = []
        }
        struct Flush: Sendable, StateRepresentable {
            var batch: Int
            var savedState: JSONValue { batch.savedState }
            init(batch: Int) { self.batch = batch }
            init(savedState: JSONValue) throws { batch = try Int(savedState: savedState) }
        }
        private var held: [HoldHandle] = []
        private var batches = 0
        init(settings: Settings) {}

        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            guard toast.role == "warning" else { return .pass }
            if held.isEmpty { context.setTimer(at: context.now + .seconds(2), value: Flush(batch: batches + 1)) }
            let handle = context.hold()
            held.append(handle)
            return .hold(handle)
        }

        func timerFired(value: Flush, context: StageContext) {
            batches = value.batch
            for handle in held {
                context.changeHeld(handle) { $0.extra.append(JSONMember("batch", .integer(Int64(value.batch)))) }
                context.release(handle)
            }
            held.removeAll()
        }

        func saveState() -> JSONValue? {
            .object([JSONMember("held", held.savedState), JSONMember("batches", batches.savedState)])
        }

        func restoreState(from saved: JSONValue) throws {
            guard case .object(let members) = saved, members.count == 2 else { throw SavedStateError("not a batcher's state") }
            held = try [HoldHandle](savedState: members[0].value)
            batches = try Int(savedState: members[1].value)
        }
    }

    private func makePluginPipeline(_ log: RecordLog) -> Pipeline {
        Pipeline(settings: settings(), stages: [("batcher", Batcher(settings: Batcher.Settings())), ("priority", PriorityStage())],
                 output: log)
    }

    @Test(arguments: 0..<6)
    func aPluginStageSavesWhatItKeepsAndItsTimersValues(seed: UInt64) throws {
        let run = try wholeAndRestored(makePluginPipeline, events(seed: seed, count: 80), seed: seed &+ 500)
        #expect(run.restored == run.whole, "stopped after event \(run.stopAfter)")
        #expect(run.whole.filter { $0.contains(#""batch":"#) }.count >= 3)
    }

    /// A plugin stage whose timers carry a value that cannot be saved.
    final class Reminder: PluginStage {
        static let name = "reminder"
        struct Settings: PluginSettings {
            static let fields: [SettingField<Settings>] = []
        }
        struct Remind: Sendable {}
        init(settings: Settings) {}
        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            context.setTimer(at: context.now + .seconds(5), value: Remind())
            return .pass
        }
    }

    @Test func aTimerWhoseValueCannotBeSavedIsNamedWithItsStage() throws {
        let pipeline = Pipeline(settings: PipelineSettings(), stages: [("reminder", Reminder(settings: Reminder.Settings()))],
                                output: RecordLog())
        #expect(try pipeline.savedState() != .null)
        pipeline.handle(Event(.show(Toast(id: "a", message: "A")), at: 0))
        #expect(throws: SavedStateError("stage reminder: its timers carry Remind, which is not StateRepresentable")) {
            try pipeline.savedState()
        }
    }

    @Test func aSavedRunForOtherStagesIsRefused() throws {
        let saved = try makePipeline(RecordLog()).savedState()
        let other = Pipeline(settings: PipelineSettings(), stages: [("dedup", DedupStage(settings: DedupSettings()))],
                             output: RecordLog())
        #expect(throws: SavedStateError("pipeline.stages[1] is for a stage rate_limit this run does not have")) {
            try other.restore(from: saved)
        }
    }
}
