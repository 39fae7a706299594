/// Timers on the stream clock: a binary heap ordered by due time, then by the order they
/// were set (docs/events.md, "The clock": timers due at the same time fire in the order they were set).
package struct TimerQueue<Payload> {
    package struct Timer {
        package init(due: Microseconds, sequence: UInt64, payload: Payload) {
            self.due = due
            self.sequence = sequence
            self.payload = payload
        }

        package var due: Microseconds
        /// Position in the order of setting, for ties.
        package var sequence: UInt64
        package var payload: Payload

        func firesBefore(_ other: Timer) -> Bool {
            due != other.due ? due < other.due : sequence < other.sequence
        }
    }

    private var heap: [Timer] = []
    private var nextSequence: UInt64 = 0

    package init() {}

    package var isEmpty: Bool { heap.isEmpty }
    package var count: Int { heap.count }

    /// Every timer's payload, in no particular order.
    package func forEach(_ body: (Payload) -> Void) {
        for timer in heap { body(timer.payload) }
    }

    /// The timer that fires next, if any.
    package var next: Timer? { heap.first }

    package mutating func schedule(_ payload: Payload, at due: Microseconds) {
        heap.append(Timer(due: due, sequence: nextSequence, payload: payload))
        nextSequence += 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the next timer if it is due at or before `time`.
    package mutating func popDue(atOrBefore time: Microseconds) -> Timer? {
        guard let first = heap.first, first.due <= time else { return nil }
        return popNext()
    }

    /// Removes and returns the next timer.
    package mutating func popNext() -> Timer? {
        guard !heap.isEmpty else { return nil }
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        // The heap hands timers out in order: none left fires before the one taken.
        assert(heap.first.map { !$0.firesBefore(first) } ?? true, "a timer left fires before the one taken")
        return first
    }

    package mutating func removeAll() {
        heap.removeAll(keepingCapacity: true)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let timer = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard timer.firesBefore(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = timer
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let timer = heap[parent]
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count && heap[child + 1].firesBefore(heap[child]) { child += 1 }
            guard heap[child].firesBefore(timer) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = timer
    }
}

// MARK: Saved state (--state)

extension TimerQueue {
    /// The timers in the order they fire, each `{"due": µs, "timer": PAYLOAD}` with its payload
    /// as `save` writes it (nil: the timer is left out), for `--state` (SPEC 11.4).
    package func savedState(_ save: (Payload) throws -> JSONValue?) rethrows -> JSONValue {
        .array(try heap.sorted { $0.firesBefore($1) }.compactMap { timer in
            try save(timer.payload).map { .object([JSONMember("due", .integer(timer.due)), JSONMember("timer", $0)]) }
        })
    }

    /// Every timer's sequence, due time and payload, in no particular order: a checkpoint
    /// saves each timer as a row of its own, by its sequence (`Pipeline.savedRows`).
    package func forEachTimer(_ body: (Timer) throws -> Void) rethrows {
        for timer in heap { try body(timer) }
    }

    /// Timers restored from rows, each with the sequence it was saved with, so that ties fire
    /// in the order they were set and a row keeps its number across a restart.
    package init(restoring timers: [Timer]) {
        self.init()
        for timer in timers.sorted(by: { $0.firesBefore($1) }) {
            heap.append(timer)
            siftUp(heap.count - 1)
        }
        nextSequence = (timers.map(\.sequence).max() ?? 0) &+ (timers.isEmpty ? 0 : 1)
    }

    /// The timers `savedState` gave, set again in the order they fire, so that timers due at
    /// the same time keep their order (and come before any set after). Throws
    /// `SavedStateError` naming the part that is wrong (`path`, or what `restore` throws).
    package init(savedState: JSONValue, path: String, _ restore: (JSONValue, String) throws -> Payload) throws {
        self.init()
        guard case .array(let items) = savedState else { throw SavedStateError("\(path) is not a list") }
        var last: Microseconds = .min
        var withSequences: [Timer] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            let saved = try SavedObject(item, path: itemPath)
            let due = try saved.integer("due")
            guard due >= last else { throw SavedStateError("\(itemPath) is due before the timer above it") }
            last = due
            let payload = try restore(try saved.required("timer"), "\(itemPath).timer")
            // Rows keep each timer's sequence (a state of rows); a list in order needs none.
            if saved.optional("sequence") != nil {
                let sequence = try saved.integer("sequence")
                guard sequence >= 0 else { throw SavedStateError("\(itemPath).sequence is negative") }
                withSequences.append(Timer(due: due, sequence: UInt64(sequence), payload: payload))
            } else {
                schedule(payload, at: due)
            }
        }
        if !withSequences.isEmpty {
            guard heap.isEmpty, Set(withSequences.map(\.sequence)).count == withSequences.count else {
                throw SavedStateError("\(path): timers with and without sequences, or two with one sequence")
            }
            self = TimerQueue(restoring: withSequences)
        }
    }
}
