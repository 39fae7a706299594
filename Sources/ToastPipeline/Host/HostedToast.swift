/// A toast inside the host, with the bookkeeping the host needs for it.
struct HostedToast {
    var toast: Toast
    /// Unique within the host: what timers and interactions find it by.
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
