import ToastCore
import ToastIO

/// A run's input from a Redis stream through a consumer group (`--from`, docs/scale.md), and
/// the commits that make it exactly once: the entries handled since the last commit are
/// acknowledged in the transaction that appends their records (`--to`) and sets the rows of the
/// run's state that changed in the hash `toastscript:state:GROUP:NAME` (`RedisStateHash`). A consumer killed at any moment and started again
/// takes up its pending entries first, from the state of the last commit. Each start takes
/// the next epoch (`toastscript:epoch:GROUP:NAME`), and a commit is made only while it is still
/// the start's own: a consumer a later start took over stops, its batch not committed.
///
/// Entries are read on one thread (`RedisReadAhead`) and batches committed on another
/// (`RedisCommitThread`), each on a connection of its own, while the pipeline runs on the
/// caller's.
final class ConsumerGroupInput {
    let options: RedisOptions
    /// The run's first connection: the group joined, the state read (before the threads start).
    let client: RedisClient
    /// `--to`: the records waiting for the next commit (nil: they go to the usual output).
    let records: RedisRecordSink?
    private let reader: RedisReadAhead
    private let committer: RedisCommitThread
    private var readerStarted = false
    /// Warnings for the start: other consumers of the group, idle longer than
    /// `--redis-timeout`, with entries pending (docs/scale.md).
    let leftovers: [String]
    /// The entries handled since the last commit.
    private var handled: [String] = []
    /// The state's rows as last committed, and the number of the last commit.
    private var hash = RedisStateHash(fresh: true)
    private var commits: Int64 = 0

    /// Entries read at a time.
    static let readCount = 1024

    /// Joins the group (made when missing), notes where `--once` ends, and connects the
    /// threads. Throws when Redis is not there or answers with an error: the run does not start.
    /// `commitDurations`: told how long each commit took (`--metrics`).
    init(options: RedisOptions, client: RedisClient, records: RedisRecordSink?, commitDurations: DurationHistogram? = nil,
         connect: () throws(RedisError) -> RedisClient) throws(RedisError) {
        self.options = options
        self.client = client
        self.records = records
        let stream = options.from ?? ""
        let group = options.group ?? ""
        let name = options.consumer ?? ""
        let joining = RedisStreamConsumer(client: client, stream: stream, group: group, name: name)
        try joining.joinGroup()
        leftovers = try joining.idleConsumersWithPending(idleLongerThan: options.timeout).map { other in
            "warning: \(other.pending) \(other.pending == 1 ? "entry" : "entries") of \(TerminalText.escaped(stream)) "
                + "\(other.pending == 1 ? "is" : "are") pending in group \(TerminalText.escaped(group)) under consumer "
                + "\(TerminalText.escaped(other.name)), idle for \(StreamTime.format(other.idle)) s: nobody handles "
                + "\(other.pending == 1 ? "it" : "them") until a consumer of that name starts"
        }
        let lastEntry = options.once ? try joining.lastEntryID() : nil
        reader = RedisReadAhead(consumer: RedisStreamConsumer(client: try connect(), stream: stream, group: group, name: name),
                                once: options.once, lastEntry: lastEntry, count: Self.readCount)
        var committing = RedisStreamConsumer(client: try connect(), stream: stream, group: group, name: name)
        committing.epoch = try joining.takeEpoch(key: options.epochKey)
        committer = RedisCommitThread(consumer: committing, trims: options.trim)
        if let commitDurations { committer.timed = { commitDurations.record(seconds: $0) } }
    }

    deinit {
        reader.stop()
        committer.finish()
    }

    /// The state the last commit set (nil: none yet, or `reset`: the next commit replaces it).
    func savedState(reset: Bool) throws -> SavedRun? {
        let key = options.stateKey
        let server = client.address.description
        guard !reset else { return nil }
        let type = try client.perform { connection, _ throws(RedisError) in try connection.command(["TYPE", key]) }
        switch type {
        case .status("none"):
            return nil
        case .status("hash"):
            break
        case .status("string"):
            // The whole state as one value: an earlier toastscript's format.
            let reply = try client.perform { connection, _ throws(RedisError) in try connection.command(["GET", key]) }
            guard case .string(let text) = reply else { throw RedisError(server: server, problem: "GET \(key): \(reply)") }
            throw SavedRun.earlier(firstLine: Array(text.utf8.prefix { $0 != 0x0A }))
        default:
            throw SavedRun.ReadError.damaged("it is a Redis \(type) and not a hash")
        }
        let reply = try client.perform { connection, _ throws(RedisError) in try connection.command(["HGETALL", key]) }
        guard case .array(let items) = reply else { throw RedisError(server: server, problem: "HGETALL \(key): \(reply)") }
        var fields: [(name: String, value: String)] = []
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            if case .string(let name) = items[index], case .string(let value) = items[index + 1] { fields.append((name, value)) }
        }
        guard let (run, commit) = try RedisStateHash.savedRun(fields: fields) else { return nil }
        hash = RedisStateHash(fresh: false)
        hash.restored(fields: fields)
        commits = commit
        return run
    }

    /// Where messages say the state is kept.
    var stateDescription: String { "redis \(client.address) key \(options.stateKey)" }

    /// The next entries, or word that none are ready or the input ended, waiting at most
    /// `microseconds` (nil: none came in that time). Reading starts at the first call.
    func next(waitingAtMost microseconds: Int64) -> RedisReadAhead.Item? {
        if !readerStarted {
            readerStarted = true
            guard reader.start() else {
                return .failed(RedisError(server: client.address.description, problem: "cannot start a thread to read the stream"))
            }
        }
        return reader.next(waitingAtMost: microseconds)
    }

    /// Counts an entry as handled: the next commit acknowledges it.
    func handled(_ entry: RedisStreamEntry) {
        handled.append(entry.id)
    }

    /// Whether anything waits for a commit: records, or entries to acknowledge.
    var hasUncommitted: Bool { !handled.isEmpty || (records?.pendingBytes ?? 0) > 0 }

    /// Whether the batch in hand has grown enough to commit now, whatever the time. Each commit
    /// carries the run's whole state, so a batch of a few thousand entries spreads its cost;
    /// a larger one holds more memory in the commits queued (and in Redis's reply buffers)
    /// without going faster.
    var batchIsFull: Bool { handled.count >= 4_096 || (records?.pendingBytes ?? 0) >= 1 << 20 }

    /// Queues the batch's commit: its records, the state's changed rows, and the
    /// acknowledgement of its entries, in one transaction.
    func commit(run: SavedRun, rows: SavedRowChanges) {
        commits += 1
        let state = hash.changes(run: run, rows: rows, key: options.stateKey, commit: commits)
        committer.submit(.init(records: records?.takeLines(), state: state, entries: handled))
        handled.removeAll(keepingCapacity: true)
    }

    /// The first commit that failed for good, if any.
    var commitFailure: RedisError? { committer.failure }

    /// Stops reading and waits until every commit is made.
    func finish() {
        reader.stop()
        committer.finish()
    }
}
