import CHiredis

/// Redis commands to send together, their arguments' bytes laid end to end in one buffer: a
/// batch of a hundred thousand `XADD`s is three growing arrays, not an array for each record.
///
/// Safe to use: `send(to:)` lends the buffer to hiredis only for the calls that format each
/// command into the context's own output buffer.
package struct RedisCommands {
    private var bytes: [UInt8] = []
    /// Each argument's length, in order.
    private var lengths: [Int] = []
    /// How many arguments each command has.
    private var arities: [Int] = []

    package init() {}

    /// One command of these arguments.
    package init(_ arguments: [String]) {
        append(arguments)
    }

    package var count: Int { arities.count }

    /// Adds a command of these arguments.
    package mutating func append(_ arguments: [String]) {
        start()
        for argument in arguments { add(argument) }
    }

    /// Starts a command; `add` gives its arguments, the name first.
    package mutating func start() {
        arities.append(0)
    }

    package mutating func add(_ argument: String) {
        var argument = argument
        argument.withUTF8 { add($0) }
    }

    package mutating func add(_ argument: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: argument)
        lengths.append(argument.count)
        arities[arities.count - 1] += 1
    }

    /// The name of the command at `index`, for messages (`XADD`).
    package func name(of index: Int) -> String {
        var argument = 0
        var offset = 0
        for command in 0..<index {
            for _ in 0..<arities[command] {
                offset += lengths[argument]
                argument += 1
            }
        }
        guard arities[index] > 0 else { return "" }
        return String(decoding: bytes[offset..<offset + lengths[argument]], as: UTF8.self)
    }

    /// Formats every command into the context's output buffer (sent by the next read of a
    /// reply); the index of the first one hiredis could not take (out of memory), or nil.
    func send(to context: UnsafeMutablePointer<redisContext>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            lengths.withUnsafeBufferPointer { lengths -> Int? in
                var pointers: [UnsafePointer<CChar>?] = []
                var argument = 0
                var offset = 0
                for (index, arity) in arities.enumerated() {
                    pointers.removeAll(keepingCapacity: true)
                    for length in lengths[argument..<argument + arity] {
                        pointers.append(buffer.baseAddress.map { UnsafeRawPointer($0 + offset).assumingMemoryBound(to: CChar.self) })
                        offset += length
                    }
                    guard let first = lengths.baseAddress.map({ $0 + argument }),
                          redisAppendCommandArgv(context, Int32(arity), &pointers, first) == REDIS_OK else { return index }
                    argument += arity
                }
                return nil
            }
        }
    }
}
