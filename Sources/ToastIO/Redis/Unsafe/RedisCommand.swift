import CHiredis

/// One Redis command as its arguments' bytes, laid end to end in one buffer: a record's bytes
/// go in as they are, without a `String` of their own.
///
/// Safe to use: `append(to:)` lends the buffer to hiredis only for the call that formats the
/// command into the context's own output buffer.
package struct RedisCommand {
    private var bytes: [UInt8] = []
    private var lengths: [Int] = []

    package init(_ arguments: [String]) {
        for argument in arguments { append(argument) }
    }

    package mutating func append(_ argument: String) {
        bytes.append(contentsOf: argument.utf8)
        lengths.append(argument.utf8.count)
    }

    package mutating func append(_ argument: some Collection<UInt8>) {
        bytes.append(contentsOf: argument)
        lengths.append(argument.count)
    }

    /// The command's name, for messages (`XADD`).
    package var name: String {
        String(decoding: bytes.prefix(lengths.first ?? 0), as: UTF8.self)
    }

    /// Formats the command into the context's output buffer (sent by the next read of a
    /// reply); false when hiredis could not (out of memory).
    func append(to context: UnsafeMutablePointer<redisContext>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            // A command has a name, so the buffer is never empty.
            guard let base = buffer.baseAddress else { return false }
            var pointers: [UnsafePointer<CChar>?] = []
            pointers.reserveCapacity(lengths.count)
            var offset = 0
            for length in lengths {
                pointers.append(UnsafeRawPointer(base + offset).assumingMemoryBound(to: CChar.self))
                offset += length
            }
            return redisAppendCommandArgv(context, Int32(lengths.count), &pointers, lengths) == REDIS_OK
        }
    }
}
