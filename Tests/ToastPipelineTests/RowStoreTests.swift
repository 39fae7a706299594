import Testing
@testable import ToastCore

/// A batch's rows are moved out in place: each is taken once, a second take finds nothing,
/// growing keeps the rows still there, and the rows never taken are let go with the store.
@Suite struct RowStoreTests {
    /// Counts the instances alive, to see that rows are neither leaked nor released twice.
    private final class Tracked {
        nonisolated(unsafe) static var alive = 0
        let value: Int
        init(_ value: Int) { self.value = value; Tracked.alive += 1 }
        deinit { Tracked.alive -= 1 }
    }

    @Test func eachRowIsTakenOnceAndTheRestEndWithTheStore() {
        Tracked.alive = 0
        do {
            var store = RowStore<(Tracked, String)>(capacity: 2)
            for value in 0..<10 { #expect(store.append((Tracked(value), "row \(value)")) == value) }
            #expect(store.count == 10)
            #expect(Tracked.alive == 10)
            // Taken before the store grows past its first capacity, and after.
            for row in [1, 7, 3] {
                let taken = store.take(row) { $0.move() }
                #expect(taken?.0.value == row)
                #expect(taken?.1 == "row \(row)")
            }
            #expect(Tracked.alive == 7)
            #expect(store.take(7) { $0.move() } == nil)
            for value in 10..<40 { _ = store.append((Tracked(value), "row \(value)")) }
            #expect(store.take(0) { $0.move().0.value } == 0)
            #expect(store.take(39) { $0.move().1 } == "row 39")
            #expect(Tracked.alive == 35)
        }
        #expect(Tracked.alive == 0)
    }
}
