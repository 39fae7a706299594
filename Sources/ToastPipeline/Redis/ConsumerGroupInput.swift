import ToastCore
import ToastIO

/// A run's input from a Redis stream through a consumer group (`--from`, docs/scale.md), and
/// the commits that make it exactly once: the entries handled since the last commit are
/// acknowledged in the transaction that appends their records (`--to`) and sets the run's
/// state at `toastscript:state:GROUP:NAME`. A consumer killed at any moment and started again
/// takes up its pending entries first, from the state of the last commit.
final class ConsumerGroupInput {
    let options: RedisOptions
    let client: RedisClient
    private var consumer: RedisStreamConsumer
    /// `--to`: the records waiting for the next commit (nil: they go to the usual output).
    let records: RedisRecordSink?
    /// `--once`: the stream's last entry when the run began; nothing after it is read.
    private let lastEntry: RedisEntryID?
    /// `--once`: whether an entry after `lastEntry` (or none) came: the input is at its end.
    private(set) var atEnd = false
    /// The entries handled since the last commit.
    private(set) var handled: [String] = []
    /// Entries read so far, for the numbers decoding gives them.
    private(set) var entriesRead = 0

    /// Entries read at a time.
    static let readCount = 1024

    /// Joins the group (made when missing) and notes where `--once` ends. Throws when Redis is
    /// not there or answers with an error: the run does not start.
    init(options: RedisOptions, client: RedisClient, records: RedisRecordSink?) throws(RedisError) {
        self.options = options
        self.client = client
        self.records = records
        consumer = RedisStreamConsumer(client: client, stream: options.from ?? "", group: options.group ?? "",
                                       name: options.consumer ?? "")
        try consumer.joinGroup()
        lastEntry = options.once ? try consumer.lastEntryID() : nil
        atEnd = options.once && lastEntry == nil
    }

    /// The state the last commit set (nil: none yet).
    func savedState() throws(RedisError) -> [UInt8]? {
        let key = options.stateKey
        let reply = try client.perform { connection, _ throws(RedisError) in try connection.command(["GET", key]) }
        switch reply {
        case .nil: return nil
        case .string(let text): return Array(text.utf8)
        default: throw RedisError(server: client.address.description, problem: "GET \(key): \(reply)")
        }
    }

    /// Where messages say the state is kept.
    var stateDescription: String { "redis \(client.address) key \(options.stateKey)" }

    /// The next entries to handle, waiting up to `wait` for new ones (nil: not at all); empty
    /// when none came. With `--once`, none after the stream's last entry at the start.
    func next(wait: Duration?) throws(RedisError) -> ArraySlice<RedisStreamEntry> {
        guard !atEnd else { return [] }
        let entries = try consumer.next(count: Self.readCount, wait: options.once ? nil : wait)
        var taken = entries[...]
        if let lastEntry {
            if let beyond = entries.firstIndex(where: { RedisEntryID($0.id).map { $0 > lastEntry } ?? false }) {
                // Left pending: this consumer takes them up first when it runs again.
                taken = entries[..<beyond]
                atEnd = true
            } else if entries.isEmpty {
                atEnd = true
            }
        }
        entriesRead += taken.count
        return taken
    }

    /// Counts an entry as handled: the next commit acknowledges it.
    func handled(_ entry: RedisStreamEntry) {
        handled.append(entry.id)
    }

    /// Whether anything waits for a commit: records, or entries to acknowledge.
    var hasUncommitted: Bool { !handled.isEmpty || (records?.pendingBytes ?? 0) > 0 }

    /// Whether the batch in hand has grown enough to commit now, whatever the time.
    var batchIsFull: Bool { handled.count >= 65_536 || (records?.pendingBytes ?? 0) >= 16 << 20 }

    /// Commits the batch: its records, the state, and the acknowledgement of its entries, in
    /// one transaction.
    func commit(state: [UInt8]) throws(RedisError) {
        try consumer.commit(records: records?.takeLines(), stateKey: options.stateKey, state: state, acknowledging: handled)
        handled.removeAll(keepingCapacity: true)
    }
}
