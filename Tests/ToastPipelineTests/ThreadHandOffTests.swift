import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// The lock, condition and thread the reading thread is built on: what one thread hands over
/// arrives whole and in order, a waiting thread wakes, and `join` waits for the thread's end.
@Suite struct ThreadHandOffTests {
    /// A line of at most four numbers between two threads, as `ReadAhead` hands its batches.
    final class BoundedLine: @unchecked Sendable {
        let handOff = ThreadHandOff()
        var numbers: [Int] = []
        var done = false

        func put(_ number: Int) {
            handOff.withLock {
                handOff.wait(while: { numbers.count >= 4 })
                numbers.append(number)
                handOff.wakeAll()
            }
        }

        func finish() {
            handOff.withLock { done = true; handOff.wakeAll() }
        }

        func take() -> Int? {
            handOff.withLock {
                handOff.wait(while: { numbers.isEmpty && !done })
                guard !numbers.isEmpty else { return nil }
                handOff.wakeAll()
                return numbers.removeFirst()
            }
        }
    }

    @Test func everythingHandedOverArrivesInOrder() throws {
        let line = BoundedLine()
        let producer = try #require(SystemThread.start {
            for number in 0..<20_000 { line.put(number) }
            line.finish()
        })
        var received: [Int] = []
        while let number = line.take() { received.append(number) }
        producer.join()
        #expect(received == Array(0..<20_000))
    }

    @Test func joinWaitsForTheThreadsEnd() throws {
        final class Box: @unchecked Sendable { var value = 0 }
        let box = Box()
        let thread = try #require(SystemThread.start {
            for _ in 0..<1_000_000 { box.value &+= 1 }
        })
        thread.join()
        #expect(box.value == 1_000_000)
    }
}
