import Testing
@testable import ToastCore
@testable import ToastPipeline
@testable import ToastCLI

/// A host saved for `--state` and restored into a new host goes on as if it had never
/// stopped: the same records, at the same times, whenever the save happens.
@Suite struct HostStateTests {
    typealias Generator = InvariantTests.SeededGenerator

    /// A hand-driven environment whose timers fire in time order, the order they were set
    /// among equal times (as the pipeline's timer queue fires them).
    final class Environment: HostEnvironment {
        var now: Microseconds = 0
        var timers: [(timer: HostTimer, at: Microseconds, order: Int)] = []
        var nextOrder = 0
        var records: [String] = []

        func schedule(_ timer: HostTimer, at time: Microseconds) {
            timers.append((timer, time, nextOrder))
            nextOrder += 1
        }

        func write(_ record: consuming Record) {
            switch record {
            case .present(let toast, let at, let waited): records.append("\(at) present \(toast.id) waited \(waited)")
            case .dismiss(let toast, let at, let reason, let shown): records.append("\(at) dismiss \(toast.id) \(reason.rawValue) \(shown)")
            case .drop(let toast, let at, let drop): records.append("\(at) drop \(toast.id) \(drop.reason)")
            }
        }

        /// Fires, in order, the timers due by `time`; the clock ends at `time`.
        func advance(_ host: Host, to time: Microseconds) {
            while let next = timers.enumerated().filter({ $0.element.at <= time })
                .min(by: { ($0.element.at, $0.element.order) < ($1.element.at, $1.element.order) }) {
                timers.remove(at: next.offset)
                now = max(now, next.element.at)
                if host.isLive(next.element.timer) { host.timerFired(next.element.timer) }
            }
            now = max(now, time)
        }
    }

    /// One step of a random session: a toast of some priority, policy, duration and delay, or a
    /// tap, swipe or drag on the screen, some time after the last.
    private func step(_ number: Int, _ host: Host, _ environment: Environment, _ random: inout Generator) {
        environment.advance(host, to: environment.now + Microseconds.random(in: 0...2_000_000, using: &random))
        switch Int.random(in: 0..<10, using: &random) {
        case 0: _ = host.interact(.tap(target: nil))
        case 1: _ = host.interact(.swipe(target: nil))
        case 2: _ = host.interact(.drag(target: nil, phase: .begin, dy: 0))
        case 3: _ = host.interact(.drag(target: nil, phase: .end, dy: 0))
        default:
            var toast = Toast(id: "t\(number)", message: "M\(number)", priority: Int.random(in: 0...2, using: &random))
            toast.policy = [Policy.enqueue, .replace, .stack].randomElement(using: &random) ?? .enqueue
            toast.durationMicros = [nil, 1_000_000, 3_000_000].randomElement(using: &random) ?? nil
            if Int.random(in: 0..<5, using: &random) == 0 { toast.after = .seconds(1) }
            toast.atMicros = environment.now
            host.admit(toast)
        }
    }

    @Test(arguments: 0..<8)
    func aRestoredHostGoesOnAsTheOneThatNeverStopped(seed: UInt64) throws {
        var settings = QueueSettings()
        settings.limit = 2
        settings.maxVisible = 2
        let steps = 60
        var random = Generator(state: seed)
        let stopAt = Int.random(in: 1..<steps, using: &random)

        var whole = Generator(state: seed &+ 1000)
        let environment = Environment()
        let host = Host(settings: settings, environment: environment)
        for number in 0..<steps { step(number, host, environment, &whole) }
        environment.advance(host, to: environment.now + 60_000_000)

        var split = Generator(state: seed &+ 1000)
        let first = Environment()
        let before = Host(settings: settings, environment: first)
        for number in 0..<stopAt { step(number, before, first, &split) }
        // The restart: a new host and environment, with the saved host and the pending timers.
        let second = Environment()
        second.now = first.now
        second.timers = first.timers
        second.nextOrder = first.nextOrder
        second.records = first.records
        let after = Host(settings: settings, environment: second)
        try after.restore(from: before.savedState)
        #expect(after.savedState == before.savedState)
        for number in stopAt..<steps { step(number, after, second, &split) }
        second.advance(after, to: second.now + 60_000_000)

        #expect(second.records == environment.records, "stopped after step \(stopAt)")
        #expect(environment.records.count > 20)
    }

    @Test func aDamagedSavedHostLeavesTheHostAsItWas() {
        let environment = Environment()
        let host = Host(settings: QueueSettings(), environment: environment)
        host.admit(Toast(id: "a", message: "A"))
        let saved = host.savedState
        #expect(throws: SavedStateError("host has no visible")) { try host.restore(from: .object([])) }
        #expect(throws: SavedStateError("host.waiting is not a list")) {
            try host.restore(from: .object([JSONMember("visible", .array([])), JSONMember("waiting", .null)]))
        }
        #expect(host.savedState == saved)
        #expect(host.visibleIDs == ["a"])
    }
}
