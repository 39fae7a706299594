#if canImport(Glibc)
import Glibc
#endif

/// A thread of the system's own, running one closure until it returns (the reading thread).
///
/// Safe to use: the closure crosses C's `void *` retained once, and is released exactly once,
/// by the new thread when it has run, or here when no thread was made.
package struct SystemThread {
    private let thread: pthread_t

    /// Starts `body` on a new thread; nil when the system would not give one.
    package static func start(_ body: @escaping @Sendable () -> Void) -> SystemThread? {
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            return nil
        }
        return SystemThread(thread: thread)
    }

    /// Waits until the thread's closure has returned.
    package func join() {
        pthread_join(thread, nil)
    }

    /// The closure, carried to the new thread through C's `void *` (retained until it runs).
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
