#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// SIGINT and SIGTERM end the run after the current event, with every record written
/// (SPEC §8 "Signals"); a closed output pipe is noticed as a failed write, not a signal.
///
/// A run waiting for input must notice a signal at once, whatever it waits on. A flag alone
/// races with the wait (the signal can land just before `poll` starts), so the handler also
/// writes a byte to a pipe that every wait polls beside the input: the wait ends either way.
enum Signals {
    /// The signal that asked the run to stop, or 0. Atomic: the handler may run on any
    /// thread (the input can be read on a second one), and a lock-free store is safe in it.
    private static let stopSignal = Atomic<Int32>(0)
    /// The pipe's read end, polled by waits; the write end, written by the handler. -1 until
    /// `install()`.
    private static let wakeRead = Atomic<Int32>(-1)
    private static let wakeWrite = Atomic<Int32>(-1)

    static var received: Int32 { stopSignal.load(ordering: .relaxed) }

    /// The descriptor that becomes readable when a stop signal arrives (-1: none installed).
    static var wakeDescriptor: Int32 { wakeRead.load(ordering: .relaxed) }

    /// Installs the handlers, without `SA_RESTART`, so a blocked read returns at once, and
    /// unblocks the two signals, which a parent process may have left blocked.
    static func install() {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
            wakeRead.store(ends[0], ordering: .relaxed)
            wakeWrite.store(ends[1], ordering: .relaxed)
        }
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGINT)
        sigaddset(&handled, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Only async-signal-safe steps: an atomic store and a write(2).
                Signals.stopSignal.store(number, ordering: .relaxed)
                let descriptor = Signals.wakeWrite.load(ordering: .relaxed)
                if descriptor >= 0 {
                    var byte: UInt8 = 1
                    _ = write(descriptor, &byte, 1)
                }
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }
}
