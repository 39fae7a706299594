/// The toasts in the host, each in a numbered slot that is reused once it is free. The host's
/// three lines hold slot numbers: placing a toast in the waiting line, promoting it or evicting
/// it moves an integer, not a toast.
struct HostSlots {
    /// The toasts by slot; a free slot holds `vacant`, so that it keeps no toast alive.
    private var toasts: [Toast] = []
    private var entries: [HostedToast] = []
    private var freeSlots: [Int] = []
    /// One for every host (each host's own was a toast's storage more for every screen).
    /// Shared by threads only as a value that is never changed (a change would copy it first),
    /// whose reference count is atomic.
    nonisolated(unsafe) private static let vacant = Toast(id: "", message: " ")

    /// Puts `toast` in a free slot and returns the slot's number.
    mutating func add(_ toast: Toast, _ entry: HostedToast) -> Int {
        if let slot = freeSlots.popLast() {
            toasts[slot] = toast
            entries[slot] = entry
            return slot
        }
        toasts.append(toast)
        entries.append(entry)
        return toasts.count - 1
    }

    /// Takes the toast out of `slot`, which becomes free.
    mutating func remove(_ slot: Int) -> Toast {
        let toast = toasts[slot]
        toasts[slot] = Self.vacant
        freeSlots.append(slot)
        return toast
    }

    /// The toast in `slot`.
    func toast(_ slot: Int) -> Toast { toasts[slot] }

    /// The bookkeeping of the toast in `slot`.
    subscript(slot: Int) -> HostedToast {
        get { entries[slot] }
        _modify { yield &entries[slot] }
    }
}
