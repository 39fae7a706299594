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
