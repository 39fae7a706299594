#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import ToastCore
import ToastIO

/// Saves checkpoints on a thread of its own, so that neither the pipeline nor the thread that
/// writes records waits for the disk: a checkpoint's records are written first (the writer
/// hands it over once they are, with the output's length then), and here the output is synced
/// and the checkpoint's rows committed to the state, in the order the checkpoints were taken. A state file never
/// counts records that are not on disk; it may lag the run by the checkpoints still queued.
///
/// A checkpoint of many screens hands their rows over a few thousand at a time while it makes
/// the rest (`handAhead`): they are written here, into the checkpoint's open transaction, while
/// the pipeline makes the next, and committed with the checkpoint. Only once every checkpoint
/// taken before is queued, so that rows never go into an earlier checkpoint's transaction.
///
/// Shared by the threads (`@unchecked Sendable`): what they touch is the queue, the thread, the
/// count of queued checkpoints and the failure; the state file and the output's descriptor are
/// this thread's alone once it has started (and the caller's again after `finish()`).
final class CheckpointThread: @unchecked Sendable {
    /// A checkpoint whose records are written: the run (its pipeline aside), the pipeline's
    /// rows that changed (nil: none yet, a run not begun), the output's length after them, and
    /// whether it is the run's last.
    struct Job: Sendable {
        var state: SavedRun
        var rows: SavedRowChanges?
        var outputLength: Int64?
        var isLast = false
    }

    /// What the thread is given, in order.
    private enum Work: Sendable {
        /// Rows of the checkpoint being taken, ahead of it.
        case rowsAhead(SavedRowChanges)
        case checkpoint(Job)
    }

    /// Whether the thread runs.
    private enum ThreadState {
        case notStarted
        case running(SystemThread)
        /// The system would not give one: checkpoints are saved by the thread that hands them over.
        case unavailable
    }

    private let file: StateDatabase
    /// The output, opened again for syncing and its length (fstat and fsync on a descriptor of
    /// its own, apart from the writer's).
    private let output: OutputFile?
    private let queue = HandOverQueue<Work>()
    private let failureReason = Mutex<String?>(nil)
    private let thread = Mutex<ThreadState>(.notStarted)
    /// The checkpoints handed over so far (`submit`).
    private let queuedCheckpoints = Atomic<Int>(0)
    /// When the checkpoint being saved began: its first rows written ahead, or its own start.
    private var savingSince: ContinuousClock.Instant?

    /// How long each checkpoint took to save (`--metrics`), when asked.
    let durations: DurationHistogram?
    /// The state's rows and bytes after the last checkpoint (`--metrics`, when asked).
    private let lastSize = Mutex<(rows: Int, bytes: Int64)?>(nil)
    var size: (rows: Int, bytes: Int64)? { lastSize.withLock { $0 } }

    init(file: StateDatabase, outputPath: String?, durations: DurationHistogram? = nil) throws(StateRefusal) {
        self.file = file
        self.durations = durations
        output = try outputPath.map { path throws(StateRefusal) in try OutputFile(path: path) }
    }

    /// The state file's path, for messages.
    var path: String { file.path }

    /// The output's length now: called by the thread that writes records, once a checkpoint's
    /// records are written.
    var outputLength: Int64? { output?.length }

    /// Queues a checkpoint (starting the thread the first time; without one, it is saved here).
    func submit(_ job: Job) {
        queuedCheckpoints.add(1, ordering: .releasing)
        guard hasThread() else { return save(job) }
        queue.put(.checkpoint(job))
    }

    /// Queues rows of the checkpoint the pipeline's thread is taking, before its records are
    /// written, when every checkpoint it took before (`checkpointsTakenBefore`) is queued;
    /// false when one is not yet (or there is no thread): the rows then go with the checkpoint.
    func handAhead(_ rows: SavedRowChanges, checkpointsTakenBefore taken: Int) -> Bool {
        guard queuedCheckpoints.load(ordering: .acquiring) == taken, hasThread() else { return false }
        queue.put(.rowsAhead(rows))
        return true
    }

    /// Whether the thread runs, starting it the first time.
    private func hasThread() -> Bool {
        thread.withLock { state in
            if case .notStarted = state {
                state = SystemThread.start { [self] in run() }.map(ThreadState.running) ?? .unavailable
            }
            if case .running = state { return true }
            return false
        }
    }

    /// Saves what is queued and stops the thread.
    func finish() {
        let running = thread.withLock { state -> SystemThread? in
            guard case .running(let thread) = state else { return nil }
            state = .notStarted
            return thread
        }
        guard let running else { return }
        queue.close()
        running.join()
    }

    /// Why a checkpoint could not be saved (the first reason); the run stops on it.
    var failure: String? { failureReason.withLock { $0 } }

    private func run() {
        while let work = queue.take() {
            switch work {
            case .rowsAhead(let rows): writeAhead(rows)
            case .checkpoint(let job): save(job)
            }
        }
        // Rows of a checkpoint the run stopped taking are not saved.
        file.abandon()
    }

    private func writeAhead(_ rows: SavedRowChanges) {
        guard failure == nil else { return }
        if savingSince == nil { savingSince = ContinuousClock.now }
        if let reason = file.writeAhead(rows) { fail(reason) }
    }

    /// The output synced up to the job's length, then the state's transaction committed. The
    /// output's writeback starts first and its sync ends just before the commit, so the disk
    /// writes the records while the rows are written. Nothing more is saved after a failure:
    /// the last state saved stays the one the run goes on from.
    private func save(_ job: Job) {
        guard failure == nil else { return }
        let started = savingSince ?? ContinuousClock.now
        savingSince = nil
        defer {
            let took = ContinuousClock.now - started
            durations?.record(seconds: Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
        }
        output?.startWriteback()
        var state = job.state
        state.outputLength = job.outputLength
        checkMovesForward(state)
        file.killIfAsked(at: "after-records", checkpoint: file.checkpoints + 1)
        let reason = file.write(state, rows: job.rows, last: job.isLast) { [output] in
            guard let output, let reason = output.sync() else { return nil }
            return "cannot sync \(output.path): \(reason)"
        }
        if let reason { return fail(reason) }
        if durations != nil {
            let size = file.size()
            lastSize.withLock { $0 = size }
        }
    }

    /// The last state saved, for `checkMovesForward` (debug builds only).
    private var lastSaved: SavedRun?

    /// What the order of checkpoints promises, checked in debug builds (the test suite runs
    /// them): a state saved after another never stands earlier in the input or the output, and
    /// counts no fewer shows, so a restart never reads a line twice nor cuts a record it kept.
    private func checkMovesForward(_ state: SavedRun) {
        #if DEBUG
        if let last = lastSaved {
            assert(state.input.line >= last.input.line && state.input.offset >= last.input.offset
                   && state.input.shows >= last.input.shows, "a checkpoint stands earlier in the input than the one before")
            assert((state.outputLength ?? 0) >= (last.outputLength ?? 0), "a checkpoint counts less output than the one before")
        }
        lastSaved = state
        #endif
    }

    private func fail(_ reason: String) {
        failureReason.withLock { $0 = $0 ?? reason }
    }
}

/// The output file as a checkpoint sees it: its length, and a sync to disk.
private final class OutputFile: Sendable {
    let path: String
    private let fd: Int32

    init(path: String) throws(StateRefusal) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StateRefusal(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    var length: Int64? { regularFileLength(fd) }

    /// Starts writing the file's dirty pages to the disk without waiting for them (`sync`
    /// waits): Linux starts the writeback of a range it is told will not be needed (the run
    /// never reads its output back); a file system that does not is left to `sync`.
    func startWriteback() {
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    }

    /// Syncs the file's data (and the size that reaches it); the system's reason when it cannot.
    func sync() -> String? {
        guard length != nil, fdatasync(fd) != 0, errno != EINVAL else { return nil }
        return String(cString: strerror(errno))
    }
}
