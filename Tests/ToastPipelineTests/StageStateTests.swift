import Testing
@testable import ToastCore
@testable import ToastPipelineTesting

/// A stage saved for `--state` and restored into a new instance decides as the one that never
/// stopped.
@Suite struct StageStateTests {
    typealias Generator = InvariantTests.SeededGenerator

    /// The dedup drops of toasts `range` of a random stream (`message` from a few texts), sent to
    /// `harness` at their times.
    private func dedupDrops(_ harness: StageHarness, _ range: Range<Int>, _ seed: UInt64) -> [String] {
        var random = Generator(state: seed)
        var times: [Duration] = []
        var messages: [String] = []
        var time = Duration.zero
        for _ in 0..<range.upperBound {
            time += .milliseconds(Int.random(in: 0...1_500, using: &random))
            times.append(time)
            messages.append("m\(Int.random(in: 0..<6, using: &random))")
        }
        for index in range { harness.show(Toast(id: "t\(index)", message: messages[index]), at: times[index]) }
        return harness.lines.filter { $0.contains("stage=dedup") }
    }

    /// The drops of 80 toasts through a stage `make` builds, whole; then through one stopped
    /// at a random toast and another restored from its saved form.
    private func wholeAndRestored<Stage: ToastStage>(
        name: String, make: () -> Stage, drops: (StageHarness, Range<Int>, UInt64) -> [String], seed: UInt64, stopSeed: UInt64
    ) throws -> (whole: [String], restored: [String], stopAt: Int) {
        let count = 80
        var random = Generator(state: stopSeed)
        let stopAt = Int.random(in: 1..<count, using: &random)
        let whole = drops(StageHarness(stages: [(name, make())]), 0..<count, seed)
        let first = make()
        let before = drops(StageHarness(stages: [(name, first)]), 0..<stopAt, seed)
        let second = make()
        try second.restoreState(from: try #require(try first.saveState()))
        #expect(try second.saveState() == first.saveState())
        return (whole, before + drops(StageHarness(stages: [(name, second)]), stopAt..<count, seed), stopAt)
    }

    @Test(arguments: 0..<6)
    func aRestoredDedupDropsWhatTheOneThatNeverStoppedDrops(seed: UInt64) throws {
        var settings = DedupSettings()
        settings.cache = 4
        settings.window = 3_000_000
        let run = try wholeAndRestored(name: "dedup", make: { DedupStage(settings: settings) }, drops: dedupDrops,
                                       seed: seed, stopSeed: seed &+ 99)
        #expect(run.restored == run.whole, "stopped after toast \(run.stopAt)")
        #expect(run.whole.count > 10)
    }

    @Test func aDamagedSavedDedupSaysWhereAndKeepsWhatItHad() {
        let stage = DedupStage(settings: DedupSettings())
        let harness = StageHarness(stages: [("dedup", stage)])
        harness.show(Toast(id: "a", message: "A"), at: .zero)
        let saved = stage.saveState()
        let badKey = JSONValue.object([
            JSONMember("keys", .array([.object([JSONMember("key", .string("zz")), JSONMember("time", .integer(0)),
                                                JSONMember("id", .string("a"))])])),
        ])
        #expect(throws: SavedStateError("state.keys[0].key is not hexadecimal bytes")) { try stage.restoreState(from: badKey) }
        #expect(throws: SavedStateError("state has no keys")) { try stage.restoreState(from: .object([])) }
        #expect(stage.saveState() == saved)
    }

    /// Two windows (or bursts) on one timer cannot be: a timer ends one of them, and which would
    /// depend on the order of a dictionary. Such a state is damaged (a fuzz finding,
    /// Fuzz/findings/state-1.tsv, had two digest windows on timer 96).
    @Test func windowsAndBurstsThatShareATimerAreRefused() {
        func window(_ key: String, timer: Int64) -> JSONValue {
            .object([JSONMember("key", .string(key)), JSONMember("value", .null), JSONMember("has_value", .bool(false)),
                     JSONMember("timer", .integer(timer)), JSONMember("held", .array([]))])
        }
        let digest = DigestStage(settings: DigestSettings())
        let shared = JSONValue.object([JSONMember("windows", .array([window("61", timer: 96), window("62", timer: 96)])),
                                       JSONMember("next_token", .integer(98))])
        #expect(throws: SavedStateError("state.windows[1].timer is another window's too")) { try digest.restoreState(from: shared) }
        let twice = JSONValue.object([JSONMember("windows", .array([window("61", timer: 96), window("61", timer: 97)])),
                                      JSONMember("next_token", .integer(98))])
        #expect(throws: SavedStateError("state.windows[1].key is another window's too")) { try digest.restoreState(from: twice) }

        func burst(_ key: String, timer: Int64) -> JSONValue {
            .object([JSONMember("key", .string(key)), JSONMember("held", .integer(1)), JSONMember("first", .integer(0)),
                     JSONMember("timer", .integer(timer))])
        }
        let debounce = DebounceStage(settings: DebounceSettings())
        let bursts = JSONValue.object([JSONMember("bursts", .array([burst("61", timer: 5), burst("62", timer: 5)])),
                                       JSONMember("timers", .array([])), JSONMember("next_token", .integer(6))])
        #expect(throws: SavedStateError("state.bursts[1].timer is another burst's too")) { try debounce.restoreState(from: bursts) }
    }

    /// The rate limit's drops of toasts `range` of a random stream from a few sources.
    private func rateLimitDrops(_ harness: StageHarness, _ range: Range<Int>, _ seed: UInt64) -> [String] {
        var random = Generator(state: seed)
        var toasts: [(Duration, String)] = []
        var time = Duration.zero
        for _ in 0..<range.upperBound {
            time += .milliseconds(Int.random(in: 0...700, using: &random))
            toasts.append((time, "s\(Int.random(in: 0..<3, using: &random))"))
        }
        for index in range {
            var toast = Toast(id: "t\(index)", message: "M\(index)")
            toast.source = toasts[index].1
            harness.show(toast, at: toasts[index].0)
        }
        return harness.lines.filter { $0.contains("stage=rate_limit") }
    }

    @Test(arguments: 0..<6)
    func aRestoredRateLimitDropsWhatTheOneThatNeverStoppedDrops(seed: UInt64) throws {
        var settings = RateLimitSettings()
        settings.limit = 2
        settings.window = 2_000_000
        settings.summary = false
        let run = try wholeAndRestored(name: "rate_limit", make: { RateLimitStage(settings: settings) }, drops: rateLimitDrops,
                                       seed: seed, stopSeed: seed &+ 7)
        #expect(run.restored == run.whole, "stopped after toast \(run.stopAt)")
        #expect(run.whole.count > 10)
    }

    /// With summaries pending, the saved form comes back whole (their timers are the
    /// pipeline's, saved with it).
    @Test func aRateLimitWithPendingSummariesSavesThemWhole() throws {
        var settings = RateLimitSettings()
        settings.limit = 1
        settings.summary = true
        let stage = RateLimitStage(settings: settings)
        let harness = StageHarness(stages: [("rate_limit", stage)])
        for (index, source) in ["a", "a", "b", "a", "b"].enumerated() {
            var toast = Toast(id: "t\(index)", message: "M", role: index == 3 ? "error" : "info")
            toast.source = source
            harness.show(toast, at: .milliseconds(100 * index))
        }
        let saved = stage.saveState()
        let restored = RateLimitStage(settings: settings)
        try restored.restoreState(from: try #require(saved))
        #expect(restored.saveState() == saved)
        guard case .object(let members) = saved, case .array(let summaries)? = members.first(where: { $0.name == "summaries" })?.value else {
            Issue.record("no summaries in \(saved)")
            return
        }
        #expect(summaries.count == 2)
    }
}
