/// The toasts in the host, each in a numbered slot that is reused once it is free. The host's
/// three lines hold slot numbers: placing a toast in the waiting line, promoting it or evicting
/// it moves an integer, not a toast.
///
/// Slot 0 is kept here, the others in arrays: a screen's host holds one toast most of the time,
/// and with a million screens held two arrays for it were a good part of what each one cost.
struct HostSlots {
    /// Slot 0's toast (`vacant` when free) and bookkeeping (serial -1 when free).
    private var firstToast = Self.vacant
    private var firstEntry = Self.free
    /// Slots 1 and up, at their number less one; a free slot holds `vacant`, so that it keeps
    /// no toast alive.
    private var toasts: [Toast] = []
    private var entries: [HostedToast] = []
    private var freeSlots: [Int] = []
    /// One for every host (each host's own was a toast's storage more for every screen).
    /// Shared by threads only as a value that is never changed (a change would copy it first),
    /// whose reference count is atomic.
    nonisolated(unsafe) private static let vacant = Toast(id: "", message: " ")
    /// Slot 0's bookkeeping while it is free (a host's serials count from 0).
    private static let free = HostedToast(serial: -1, priority: 0)

    /// Puts `toast` in a free slot and returns the slot's number.
    mutating func add(_ toast: Toast, _ entry: HostedToast) -> Int {
        if firstEntry.serial < 0 {
            firstToast = toast
            firstEntry = entry
            return 0
        }
        if let slot = freeSlots.popLast() {
            toasts[slot - 1] = toast
            entries[slot - 1] = entry
            return slot
        }
        toasts.append(toast)
        entries.append(entry)
        return toasts.count
    }

    /// How many slots hold a toast.
    var occupied: Int { (firstEntry.serial >= 0 ? 1 : 0) + toasts.count - freeSlots.count }

    /// Takes the toast out of `slot`, which becomes free.
    mutating func remove(_ slot: Int) -> Toast {
        // A slot is emptied once: a toast leaves the host once.
        assert(slot == 0 ? firstEntry.serial >= 0 : slot <= toasts.count && !freeSlots.contains(slot), "slot \(slot) is free already")
        if slot == 0 {
            let toast = firstToast
            firstToast = Self.vacant
            firstEntry = Self.free
            return toast
        }
        let toast = toasts[slot - 1]
        toasts[slot - 1] = Self.vacant
        freeSlots.append(slot)
        return toast
    }

    /// The toast in `slot`.
    func toast(_ slot: Int) -> Toast { slot == 0 ? firstToast : toasts[slot - 1] }

    /// The bookkeeping of the toast in `slot`. (A `set`, not a `_modify`: a coroutine that
    /// yields one of two places had its frame allocated on the heap, for every change.)
    subscript(slot: Int) -> HostedToast {
        get { slot == 0 ? firstEntry : entries[slot - 1] }
        set {
            if slot == 0 { firstEntry = newValue } else { entries[slot - 1] = newValue }
        }
    }
}
