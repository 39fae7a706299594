#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import ToastCore
import ToastIO

/// SIGINT and SIGTERM end the run after the current event, with every record written; a
/// closed output pipe is noticed as a failed write, not a signal. SIGHUP asks for the scripts
/// to be loaded again while the run goes on, SIGUSR1 for the stats so far (as `dd` prints its
/// progress).
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
    /// The requests' pipe (SIGHUP, SIGUSR1), apart from the stop signals' so that taking the
    /// requests can empty it without losing a stop.
    private static let reloadRead = Atomic<Int32>(-1)
    private static let reloadWrite = Atomic<Int32>(-1)
    /// Whether a request came and was not taken yet: the run loop reads it once a line, lock-free.
    private static let requestPending = Atomic<Bool>(false)
    private static let reloadPending = Atomic<Bool>(false)
    private static let statsPending = Atomic<Bool>(false)
    private static let metricsPending = Atomic<Bool>(false)

    static var received: Int32 { stopSignal.load(ordering: .relaxed) }

    /// The descriptor that becomes readable when a stop signal arrives (-1: none installed).
    static var wakeDescriptor: Int32 { wakeRead.load(ordering: .relaxed) }

    /// The descriptor that becomes readable when SIGHUP or SIGUSR1 asks for something (-1:
    /// none installed).
    static var reloadDescriptor: Int32 { reloadRead.load(ordering: .relaxed) }

    /// What SIGHUP and SIGUSR1 asked for since the last time.
    struct Requests {
        var reload: Bool
        var stats: Bool
        /// A scrape of `--metrics` waits for the pipeline's counts.
        var metrics: Bool
    }

    /// Asks the pipeline's thread for the metrics (`--metrics`' thread, not a signal): taken
    /// with the signals' requests, so a run waiting for input wakes for it.
    static func askForMetrics() {
        metricsPending.store(true, ordering: .sequentiallyConsistent)
        requestPending.store(true, ordering: .sequentiallyConsistent)
        wake(reloadWrite.load(ordering: .relaxed))
    }

    /// What was asked since the last call, nil for nothing (a line with nothing asked reads one
    /// flag, lock-free). The flag that says "something" is cleared before the ones that say
    /// what, so a signal landing in between is taken at the next call.
    @inline(__always)
    static func takeRequests() -> Requests? {
        guard requestPending.load(ordering: .relaxed) else { return nil }
        requestPending.store(false, ordering: .sequentiallyConsistent)
        let requests = Requests(reload: reloadPending.exchange(false, ordering: .sequentiallyConsistent),
                                stats: statsPending.exchange(false, ordering: .sequentiallyConsistent),
                                metrics: metricsPending.exchange(false, ordering: .sequentiallyConsistent))
        // Empty the pipe, so that a wait no longer wakes for it.
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(reloadRead.load(ordering: .relaxed), &bytes, bytes.count) > 0 {}
        return requests
    }

    private static func nonBlockingPipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }

    /// Installs the handlers, without `SA_RESTART`, so a blocked read returns at once, and
    /// unblocks the two signals, which a parent process may have left blocked.
    static func install() {
        signal(SIGPIPE, SIG_IGN)
        if let ends = nonBlockingPipe() {
            wakeRead.store(ends.read, ordering: .relaxed)
            wakeWrite.store(ends.write, ordering: .relaxed)
        }
        if let ends = nonBlockingPipe() {
            reloadRead.store(ends.read, ordering: .relaxed)
            reloadWrite.store(ends.write, ordering: .relaxed)
        }
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGINT)
        sigaddset(&handled, SIGTERM)
        sigaddset(&handled, SIGHUP)
        sigaddset(&handled, SIGUSR1)
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        // Only async-signal-safe steps in the handlers: atomic stores and a write(2).
        handle([SIGHUP]) { _ in
            Signals.reloadPending.store(true, ordering: .sequentiallyConsistent)
            Signals.requestPending.store(true, ordering: .sequentiallyConsistent)
            Signals.wake(Signals.reloadWrite.load(ordering: .relaxed))
        }
        handle([SIGUSR1]) { _ in
            Signals.statsPending.store(true, ordering: .sequentiallyConsistent)
            Signals.requestPending.store(true, ordering: .sequentiallyConsistent)
            Signals.wake(Signals.reloadWrite.load(ordering: .relaxed))
        }
        handle([SIGINT, SIGTERM]) { number in
            Signals.stopSignal.store(number, ordering: .relaxed)
            Signals.wake(Signals.wakeWrite.load(ordering: .relaxed))
        }
    }

    /// Installs `handler` for `numbers`, without `SA_RESTART`.
    private static func handle(_ numbers: [Int32], _ handler: @convention(c) (Int32) -> Void) {
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
        }
    }

    /// Writes one byte to a wake pipe's write end (-1: none), so a wait polling it ends.
    private static func wake(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }
}
