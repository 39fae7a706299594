import ToastCore

/// The command line's Redis options (docs/scale.md).
package struct RedisOptions: Equatable, Sendable {
    /// `--redis URL|SOCKET`, as given.
    package var server: String?
    /// `--from STREAM --group GROUP --consumer NAME`: the consumer group to read entries through.
    package var from: String?
    package var group: String?
    package var consumer: String?
    /// `--to STREAM`: the stream that gets each record as an entry.
    package var to: String?
    /// `--to-maxlen N`: the `--to` stream is capped near N entries (`XADD MAXLEN ~ N`).
    package var toMaxLength: Int?
    /// `--trim`: the `--from` stream loses the entries every group has acknowledged.
    package var trim = false
    /// `--once`: read what the stream holds at the start, then end.
    package var once = false
    /// `--redis-timeout SECONDS`: how long a run tries again after its connection failed.
    package var timeout: Microseconds = 30 * StreamTime.perSecond
    package var timeoutGiven = false

    /// The key that keeps a consumer's state: `toastscript:state:GROUP:NAME`.
    package var stateKey: String { "toastscript:state:\(group ?? ""):\(consumer ?? "")" }
    /// The key that counts a consumer's starts: `toastscript:epoch:GROUP:NAME`. Each start
    /// takes the next number, and a commit is made only while the number is still its own.
    package var epochKey: String { "toastscript:epoch:\(group ?? ""):\(consumer ?? "")" }
}
