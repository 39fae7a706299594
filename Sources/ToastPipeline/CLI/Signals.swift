#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// SIGINT and SIGTERM end the run after the current event, with every record written
/// (SPEC §8 "Signals"); a closed output pipe is noticed as a failed write, not a signal.
enum Signals {
    /// The signal that asked the run to stop, or 0. Atomic: the handler may run on any
    /// thread (the input can be read on a second one), and a lock-free store is safe in it.
    private static let stopSignal = Atomic<Int32>(0)

    static var received: Int32 { stopSignal.load(ordering: .relaxed) }

    /// Installs the handlers, without `SA_RESTART`, so a blocked read returns at once, and
    /// unblocks the two signals, which a parent process may have left blocked.
    static func install() {
        signal(SIGPIPE, SIG_IGN)
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGINT)
        sigaddset(&handled, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in Signals.stopSignal.store(number, ordering: .relaxed) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }
}
