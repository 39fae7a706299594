/// A batch of values that one thread fills and another takes out in order, each value moved in
/// once and moved out once (or read in place, and the batch handed back to be emptied). The
/// reading thread hands decoded lines to the pipeline this way, and the pipeline its records to
/// the writing thread (`WriteBehind`); an
/// `Array` would have to be reversed first (to be emptied from its end without shifting), a
/// pass over every large value that this moves in and out once instead.
///
/// Inlinable, because the modules that fill and empty it are not the one that declares it: a
/// call into the unspecialized generic class would copy each value through its type's value
/// witnesses. Its two counts live behind a pointer, which inlined code reaches directly.
///
/// Safe to use: one thread at a time owns the batch (one thread fills it, then hands it over
/// under the batch queue's lock, after which only the other thread reads or takes from it, until
/// it hands the batch back the same way);
/// `append` checks there is room, every slot in `taken..<count` is initialized and every other
/// slot is not, and what was never taken is released in `deinit`.
@usableFromInline package final class HandOverBatch<Element>: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<Element>
    @usableFromInline let capacity: Int
    /// Slots filled, and slots taken out (the first `taken` of them).
    @usableFromInline let counts: UnsafeMutablePointer<(filled: Int, taken: Int)>

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
        counts = .allocate(capacity: 1)
        counts.initialize(to: (0, 0))
    }

    deinit {
        let (filled, taken) = counts.pointee
        (base + taken).deinitialize(count: filled - taken)
        base.deallocate()
        counts.deallocate()
    }

    /// How many more elements fit.
    @inlinable package var room: Int { capacity - counts.pointee.filled }
    @inlinable package var isEmpty: Bool { counts.pointee.filled == counts.pointee.taken }

    /// Adds `element` after the others; the batch must not be full.
    @inlinable package func append(_ element: consuming Element) {
        let filled = counts.pointee.filled
        precondition(filled < capacity, "a full batch")
        (base + filled).initialize(to: element)
        counts.pointee.filled = filled + 1
    }

    /// The first element not taken yet, moved out of the batch; nil when all are taken.
    @inlinable package func popFirst() -> Element? {
        let taken = counts.pointee.taken
        guard taken < counts.pointee.filled else { return nil }
        counts.pointee.taken = taken + 1
        return (base + taken).move()
    }

    /// How many elements were appended (taken ones included): positions run from 0 to this.
    @inlinable package var appended: Int { counts.pointee.filled }

    /// Calls `body` with the elements at `positions`, in order, leaving them in the batch; none
    /// of them may have been taken. Each is moved out for the call and back after it: a value
    /// read in place and passed on was copied first (its references retained and released),
    /// since the call might have changed the memory it was read from.
    @inlinable package func forEach(at positions: Range<Int>, _ body: (borrowing Element) -> Void) {
        let (filled, taken) = counts.pointee
        precondition(positions.lowerBound >= taken && positions.upperBound <= filled, "positions outside the batch")
        for index in positions {
            let element = (base + index).move()
            body(element)
            (base + index).initialize(to: element)
        }
    }

    /// Releases the elements not taken yet and makes the whole capacity free again, so a batch
    /// can be filled anew instead of allocated (on the thread that should free what it held).
    @inlinable package func removeAll() {
        let (filled, taken) = counts.pointee
        (base + taken).deinitialize(count: filled - taken)
        counts.pointee = (0, 0)
    }
}
