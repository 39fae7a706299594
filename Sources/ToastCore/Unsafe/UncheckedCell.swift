/// A value kept for a class outside the class's own storage, read and changed without Swift's
/// run-time exclusivity check.
///
/// Swift checks at run time that no two accesses to a class's stored `var` overlap; on the hot
/// path that check costs more than the work it guards (docs/performance.md, "Exclusivity
/// checks"). A class stores a cell as a `let` (which needs no check) and reaches the value
/// through the cell's pointer (which gets none). This is the one place that gives the check up:
/// every property held in a cell says, where it is declared, why no two accesses to it can
/// overlap — each access is one step that calls out to nothing that could reach the same value
/// again.
///
/// Safe to use as long as that holds: the cell owns its value (allocated with it, freed when the
/// cell ends, and a cell cannot be copied), so the pointer is valid for as long as the cell is.
///
/// Inlinable across modules (docs/performance.md, "Across modules"): the other modules keep their
/// hot state in cells too.
@usableFromInline package struct UncheckedCell<Value: ~Copyable>: ~Copyable {
    @usableFromInline let pointer: UnsafeMutablePointer<Value>

    package init(_ value: consuming Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// The value; changed in place (`cell.value.append(x)` does not copy it).
    @inlinable package var value: Value {
        unsafeAddress { UnsafePointer(pointer) }
        nonmutating unsafeMutableAddress { pointer }
    }
}
