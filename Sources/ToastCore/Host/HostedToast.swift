/// The host's bookkeeping for one toast it holds. Only integers, so that moving it, or the
/// slot number that stands for it in a line, copies bytes and counts no references.
struct HostedToast {
    /// Unique within the host: what timers find it by (a slot is reused, a serial is not).
    let serial: Int
    /// The priority it waits with.
    let priority: Int
    /// When it reached the host (after its delay), and in which order.
    var arrivalTime: Microseconds = 0
    var arrivalOrder = 0
    /// When it was presented.
    var presentedAt: Microseconds = 0
    /// Bumped whenever its timeout is cancelled or restarted, so older timers go stale.
    var timeoutGeneration = 0
    /// Held by a drag: no timeout runs.
    var isPaused = false
}
