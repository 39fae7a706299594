/// The host's visible toasts as slot numbers, in the order presented, the first kept in the
/// line itself: a screen's host shows one toast most of the time, and an array for it was a
/// good part of what each of a million screens held at once cost.
struct SlotLine: RandomAccessCollection {
    /// The first slot (-1: the line is empty, and so is `rest`), then the others.
    private var first = -1
    private var rest: [Int] = []

    init() {}

    init(_ slots: [Int]) {
        for slot in slots { append(slot) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { first < 0 ? 0 : rest.count + 1 }
    var isEmpty: Bool { first < 0 }

    subscript(position: Int) -> Int { position == 0 ? first : rest[position - 1] }

    mutating func append(_ slot: Int) {
        if first < 0 { first = slot } else { rest.append(slot) }
    }

    /// Takes out the slot at `position`; the ones after it move up.
    mutating func remove(at position: Int) -> Int {
        guard position == 0 else { return rest.remove(at: position - 1) }
        let slot = first
        first = rest.isEmpty ? -1 : rest.removeFirst()
        return slot
    }
}
