import ToastCore
import ToastIO

/// systemd's notify protocol (`NOTIFY_SOCKET`, docs/service.md "Talking to systemd"): what the
/// run loop tells the service manager, and when. All of it on the pipeline's thread, so the
/// watchdog is fed only while the pipeline goes on.
extension RunLoop {
    /// How often `STATUS=` is sent.
    static let statusInterval: Microseconds = 5_000_000

    /// When the next notice is due (nil: no service manager to tell).
    var noticeDue: Microseconds? {
        guard let notifier = setup.notifier else { return nil }
        return notifier.watchdogInterval == nil ? statusDue : min(statusDue, watchdogDue)
    }

    /// `READY=1` and a first status; the watchdog's and the status's clocks start.
    mutating func tellReady() {
        guard let notifier = setup.notifier else { return }
        let now = setup.environment.wallClock()
        notifier.send("READY=1\nSTATUS=reading input")
        statusDue = now + Self.statusInterval
        eventsAtStatus = pipeline.statistics.events
        if let interval = notifier.watchdogInterval {
            notifier.send("WATCHDOG=1")
            watchdogDue = now + interval
        }
    }

    /// `WATCHDOG=1` and `STATUS=` when due: called by the pipeline's thread as it takes input
    /// or wakes from a wait, so the watchdog is fed only while the run goes on.
    mutating func noticeIfDue() {
        guard let notifier = setup.notifier, let due = noticeDue else { return }
        let now = setup.environment.wallClock()
        guard now >= due else { return }
        if let interval = notifier.watchdogInterval, now >= watchdogDue {
            notifier.send("WATCHDOG=1")
            watchdogDue = now + interval
        }
        if now >= statusDue {
            let events = pipeline.statistics.events
            let rate = Double(events - eventsAtStatus) * 1_000_000 / Double(max(1, now - statusDue + Self.statusInterval))
            var status = "STATUS=\(Int(rate.rounded())) events/s, \(linesRead) lines read"
            if isFollowing, let origin = followOrigin {
                status += ", lag " + StreamTime.format(max(0, followedNow - origin.stream)) + " s"
            }
            notifier.send(status)
            eventsAtStatus = events
            statusDue = now + Self.statusInterval
        }
    }
}
