import Testing
@testable import ToastCore
@testable import ToastPipelineTesting

/// A stage saved for `--state` and restored into a new instance decides as the one that never
/// stopped.
@Suite struct StageStateTests {
    typealias Generator = InvariantTests.SeededGenerator

    /// The dedup drops of toasts `range` of a random stream (`message` from a few texts), sent to
    /// `harness` at their times.
    private func dedupDrops(_ harness: StageHarness, _ range: Range<Int>, seed: UInt64) -> [String] {
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

    @Test(arguments: 0..<6)
    func aRestoredDedupDropsWhatTheOneThatNeverStoppedDrops(seed: UInt64) throws {
        var settings = DedupSettings()
        settings.cache = 4
        settings.window = 3_000_000
        let count = 80
        var random = Generator(state: seed &+ 99)
        let stopAt = Int.random(in: 1..<count, using: &random)

        let whole = StageHarness(stages: [("dedup", DedupStage(settings: settings))])
        let all = dedupDrops(whole, 0..<count, seed: seed)

        let first = DedupStage(settings: settings)
        let before = dedupDrops(StageHarness(stages: [("dedup", first)]), 0..<stopAt, seed: seed)
        let second = DedupStage(settings: settings)
        try second.restore(from: first.savedState, path: "dedup")
        #expect(second.savedState == first.savedState)
        let after = dedupDrops(StageHarness(stages: [("dedup", second)]), stopAt..<count, seed: seed)

        #expect(before + after == all, "stopped after toast \(stopAt)")
        #expect(all.count > 10)
    }

    @Test func aDamagedSavedDedupSaysWhereAndKeepsWhatItHad() {
        let stage = DedupStage(settings: DedupSettings())
        let harness = StageHarness(stages: [("dedup", stage)])
        harness.show(Toast(id: "a", message: "A"), at: .zero)
        let saved = stage.savedState
        let badKey = JSONValue.object([
            JSONMember("keys", .array([.object([JSONMember("key", .string("zz")), JSONMember("time", .integer(0)),
                                                JSONMember("id", .string("a"))])])),
            JSONMember("last_pass", .null),
        ])
        #expect(throws: SavedStateError("dedup.keys[0].key is not hexadecimal bytes")) { try stage.restore(from: badKey, path: "dedup") }
        #expect(throws: SavedStateError("dedup has no keys")) { try stage.restore(from: .object([]), path: "dedup") }
        #expect(stage.savedState == saved)
    }

    /// The rate limit's drops of toasts `range` of a random stream from a few sources.
    private func rateLimitDrops(_ harness: StageHarness, _ range: Range<Int>, seed: UInt64) -> [String] {
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
        let count = 80
        var random = Generator(state: seed &+ 7)
        let stopAt = Int.random(in: 1..<count, using: &random)

        let all = rateLimitDrops(StageHarness(stages: [("rate_limit", RateLimitStage(settings: settings))]), 0..<count, seed: seed)
        let first = RateLimitStage(settings: settings)
        let before = rateLimitDrops(StageHarness(stages: [("rate_limit", first)]), 0..<stopAt, seed: seed)
        let second = RateLimitStage(settings: settings)
        try second.restore(from: first.savedState, path: "rate_limit")
        #expect(second.savedState == first.savedState)
        let after = rateLimitDrops(StageHarness(stages: [("rate_limit", second)]), stopAt..<count, seed: seed)

        #expect(before + after == all, "stopped after toast \(stopAt)")
        #expect(all.count > 10)
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
        let saved = stage.savedState
        let restored = RateLimitStage(settings: settings)
        try restored.restore(from: saved, path: "rate_limit")
        #expect(restored.savedState == saved)
        guard case .object(let members) = saved, case .array(let summaries)? = members.first(where: { $0.name == "summaries" })?.value else {
            Issue.record("no summaries in \(saved)")
            return
        }
        #expect(summaries.count == 2)
    }
}
