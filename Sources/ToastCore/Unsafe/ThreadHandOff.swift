#if canImport(Glibc)
import Glibc
#endif

/// A lock with one condition to wait on (a POSIX mutex and condition variable): how the
/// reading thread and the pipeline's hand batches to each other. The C types must not move
/// once made, so they live in memory of their own, made and freed with the lock.
///
/// Safe to use: the memory is allocated and initialized before any use and destroyed only in
/// `deinit`, when no thread can hold the lock any more (each thread holds a reference to it).
package final class ThreadHandOff: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock; inside it, `wait(while:)` and `wakeAll()` may be called.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits while `condition` holds, letting go of the lock meanwhile; call it holding the
    /// lock (inside `withLock`). Woken by `wakeAll()` on another thread.
    package func wait(while condition: () -> Bool) {
        while condition() { pthread_cond_wait(self.condition, mutex) }
    }

    /// Waits while `condition` holds, for at most `microseconds`; false when the time ran out
    /// with the condition still holding. Call it holding the lock.
    package func wait(while condition: () -> Bool, atMost microseconds: Int64) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int64(now.tv_nsec) + max(0, microseconds) % 1_000_000 * 1_000
        var deadline = timespec(tv_sec: now.tv_sec + Int(max(0, microseconds) / 1_000_000 + nanoseconds / 1_000_000_000),
                                tv_nsec: Int(nanoseconds % 1_000_000_000))
        while condition() {
            if pthread_cond_timedwait(self.condition, mutex, &deadline) == ETIMEDOUT { return !condition() }
        }
        return true
    }

    /// Wakes every thread waiting in `wait(while:)`, to look again.
    package func wakeAll() {
        pthread_cond_broadcast(condition)
    }
}
