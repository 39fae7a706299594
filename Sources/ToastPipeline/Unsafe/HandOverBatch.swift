/// A batch of values that one thread fills and another takes out in order, each value moved in
/// once and moved out once. The reading thread hands decoded lines to the pipeline this way; an
/// `Array` would have to be reversed first (to be emptied from its end without shifting), and
/// reversing a thousand large values cost the reading thread about a tenth of its work.
///
/// Safe to use: one thread at a time owns the batch (the reading thread fills it, then hands it
/// over under the batch queue's lock, after which only the pipeline's thread takes from it);
/// `append` checks there is room, every slot in `taken..<count` is initialized and every other
/// slot is not, and what was never taken is released in `deinit`.
final class HandOverBatch<Element>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element>
    let capacity: Int
    /// Slots filled, and slots taken out (the first `taken` of them).
    private var count = 0
    private var taken = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        (base + taken).deinitialize(count: count - taken)
        base.deallocate()
    }

    /// How many more elements fit.
    var room: Int { capacity - count }
    var isEmpty: Bool { count == taken }

    /// Adds `element` after the others; the batch must not be full.
    func append(_ element: consuming Element) {
        precondition(count < capacity, "a full batch")
        (base + count).initialize(to: element)
        count += 1
    }

    /// The first element not taken yet, moved out of the batch; nil when all are taken.
    func popFirst() -> Element? {
        guard taken < count else { return nil }
        taken += 1
        return (base + taken - 1).move()
    }
}
