import Testing
@testable import ToastCore

/// The stream clock's timers come out by due time, and in the order they were set when due
/// at the same time, whatever the heap's shape: checked step by step against a plain list on
/// random schedules, with timers taken out between the settings as a run does.
@Suite struct TimerQueueTests {
    /// The plain model: the pending timers in the order set; the next is the first of the
    /// earliest due.
    private struct PlainQueue {
        var pending: [(due: Microseconds, payload: Int)] = []

        mutating func popDue(atOrBefore time: Microseconds) -> (due: Microseconds, payload: Int)? {
            guard let earliest = pending.map(\.due).min(), earliest <= time,
                  let index = pending.firstIndex(where: { $0.due == earliest }) else { return nil }
            return pending.remove(at: index)
        }
    }

    @Test func timersFireByDueTimeThenInTheOrderSet() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            var queue = TimerQueue<Int>()
            var plain = PlainQueue()
            var now: Microseconds = 0
            // Few distinct times in half the rounds, so that ties are common.
            let spread: Microseconds = round % 2 == 0 ? 5 : 5_000
            for payload in 0..<Int.random(in: 1...400, using: &generator) {
                let due = now + Microseconds.random(in: 0...spread, using: &generator)
                queue.schedule(payload, at: due)
                plain.pending.append((due, payload))
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    now += Microseconds.random(in: 0...spread / 2, using: &generator)
                    while true {
                        let timer = queue.popDue(atOrBefore: now)
                        let expected = plain.popDue(atOrBefore: now)
                        #expect(timer?.payload == expected?.payload)
                        #expect(timer?.due == expected?.due)
                        if timer == nil || expected == nil { break }
                    }
                }
            }
            while let expected = plain.popDue(atOrBefore: .max) {
                let timer = queue.popNext()
                #expect(timer?.payload == expected.payload)
            }
            #expect(queue.isEmpty)
        }
    }
}

/// The timer queue saved for `--state` and made again fires the same timers in the same order.
@Suite struct TimerQueueStateTests {
    @Test func aRestoredQueueFiresInTheOrderTheSavedOneWould() throws {
        var queue = TimerQueue<Int>()
        for (payload, due) in [(1, 30), (2, 10), (3, 30), (4, 10), (5, 20), (6, 30)] { queue.schedule(payload, at: Microseconds(due)) }
        _ = queue.popNext()
        let saved = queue.savedState { .integer(Int64($0)) }
        var restored = try TimerQueue<Int>(savedState: saved, path: "timers") { value, path in
            guard case .integer(let payload) = value else { throw SavedStateError("\(path) is not an integer") }
            return Int(payload)
        }
        // Set after the restart: due with the others at 30, it fires after them.
        restored.schedule(7, at: 30)
        queue.schedule(7, at: 30)
        var fromSaved: [Int] = [], fromRestored: [Int] = []
        while let timer = queue.popNext() { fromSaved.append(timer.payload) }
        while let timer = restored.popNext() { fromRestored.append(timer.payload) }
        #expect(fromSaved == [4, 5, 1, 3, 6, 7])
        #expect(fromRestored == fromSaved)
    }

    @Test func aDamagedSavedQueueSaysWhere() {
        let decode: (JSONValue, String) throws -> Int = { _, _ in 0 }
        #expect(throws: SavedStateError("timers is not a list")) { try TimerQueue<Int>(savedState: .null, path: "timers", decode) }
        let outOfOrder = JSONValue.array([
            .object([JSONMember("due", .integer(5)), JSONMember("timer", .null)]),
            .object([JSONMember("due", .integer(4)), JSONMember("timer", .null)]),
        ])
        #expect(throws: SavedStateError("timers[1] is due before the timer above it")) {
            try TimerQueue<Int>(savedState: outOfOrder, path: "timers", decode)
        }
    }
}
