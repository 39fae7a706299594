import ToastCore

/// Where records go with `--to STREAM`: each line of the output an entry of the stream with
/// field `record`. Reading through a consumer group, the lines wait here for the batch's
/// commit (`takeLines`), which appends them in the transaction that acknowledges their
/// entries; from any other input they are appended whenever the output is flushed, and a
/// failure is the output's (`failure`), as a full disk is a file's.
package final class RedisRecordSink: ByteSink {
    package let stream: String
    /// `--to-maxlen`: the stream is capped near this many entries.
    package let maxLength: Int?
    /// Nil while a consumer group's commits take the lines.
    private let client: RedisClient?
    private var pending: [UInt8] = []
    package private(set) var failure: SinkFailure?

    package init(stream: String, maxLength: Int? = nil, appendingThrough client: RedisClient?) {
        self.stream = stream
        self.maxLength = maxLength
        self.client = client
    }

    package func write(_ bytes: UnsafeRawBufferPointer) {
        pending.append(contentsOf: bytes)
    }

    /// Bytes written and not yet taken: a batch that grows large is committed early.
    package var pendingBytes: Int { pending.count }

    /// The whole lines written since the last call (a line still being written stays).
    package func takeLines() -> RecordLines {
        guard let end = pending.lastIndex(of: 0x0A) else { return RecordLines(stream: stream, bytes: [], maxLength: maxLength) }
        var taken: [UInt8] = []
        if end == pending.count - 1 {
            swap(&taken, &pending)
        } else {
            taken = Array(pending[...end])
            pending.removeSubrange(...end)
        }
        return RecordLines(stream: stream, bytes: taken, maxLength: maxLength)
    }

    package func flush() {
        guard let client, failure == nil else { return }
        let records = takeLines()
        guard !records.bytes.isEmpty else { return }
        var commands = RedisCommands()
        records.appendAdds(to: &commands)
        do {
            let replies = try client.perform { connection, _ throws(RedisError) in try connection.commands(commands) }
            if let problem = replies.lazy.compactMap({ if case .error(let message) = $0 { message } else { nil } }).first {
                failure = .writeFailed("redis \(client.address): XADD \(stream): \(problem)")
            }
        } catch {
            failure = .writeFailed("\(error)")
        }
    }
}
