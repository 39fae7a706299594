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
}
