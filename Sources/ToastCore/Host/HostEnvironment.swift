/// What the host needs from the pipeline around it: the clock, its timers, and where its
/// records go. The pipeline provides it; a test can provide its own.
package protocol HostEnvironment: CalledUnretainedEnvironment {
    var now: Microseconds { get }
    /// Calls `Host.timerFired(_:)` with `timer` at `time`.
    func schedule(_ timer: HostTimer, at time: Microseconds)
    func write(_ record: consuming Record)
    /// How the host's explanations show a time (`--trace`, `--explain`).
    var timeDisplay: TimeDisplay { get }
}

extension HostEnvironment {
    package var timeDisplay: TimeDisplay { TimeDisplay() }
}

/// A timer the host sets for itself.
package enum HostTimer: Equatable, Sendable {
    /// A delayed toast (`after`) reaches the host.
    case arrival(serial: Int)
    /// A visible toast's duration runs out; stale when `generation` is no longer the toast's.
    case timeout(serial: Int, generation: Int)
}
