import ToastCore

/// The parts of one log line that a native format (syslog, logfmt) read, before the decoder
/// makes them a show: places in the line's bytes, or in `scratch` for text whose escapes were
/// undone. One is reused from line to line (`reset`), so reading a line allocates nothing.
package final class LogLine {
    /// Where a part's bytes are.
    enum Place {
        case line(Range<Int>)
        case scratch(Range<Int>)
        case word(StaticString)
    }

    /// An extra field's value: text, or `true` (a logfmt key without a value).
    enum Value {
        case text(Place)
        case flag(Bool)
    }

    var message: Place?
    /// The level the line names, which gives the toast its role.
    var level: LogLevel?
    /// The field `level` as written, when it names no level the tool knows (logfmt's
    /// `level=audit`): kept, and the role stays `info`.
    var levelWord: Place?
    var at: Microseconds?
    var source: Place?
    var subtitle: Place?
    /// The other fields, in the order they came, each name once (a name given again replaces
    /// the value: the last wins).
    private(set) var fields: [(name: Place, value: Value)] = []
    private(set) var scratch = ByteBuffer(capacity: 256)

    package init() {}

    func reset() {
        message = nil
        level = nil
        levelWord = nil
        at = nil
        source = nil
        subtitle = nil
        fields.removeAll(keepingCapacity: true)
        scratch.removeAll()
    }

    /// Adds a field; `line` is the line the places point into (to compare names).
    func add(_ name: Place, _ value: Value, line: UnsafeBufferPointer<UInt8>) {
        withBytes(of: name, in: line) { newName in
            for index in fields.indices where withBytes(of: fields[index].name, in: line, { $0.hasSameBytes(as: newName) }) {
                fields.remove(at: index)
                break
            }
        }
        fields.append((name, value))
    }

    /// Copies `bytes` into the scratch text.
    func keep(_ bytes: UnsafeRawBufferPointer) -> Place {
        let start = scratch.count
        scratch.append(bytes)
        return .scratch(start..<scratch.count)
    }

    /// Appends one byte to the scratch text (a part being unescaped); `scratchCount` marks
    /// where the part began.
    func appendToScratch(_ byte: UInt8) {
        scratch.append(byte)
    }

    var scratchCount: Int { scratch.count }

    /// Calls `body` with the bytes at `place`, lent for the call.
    func withBytes<Result>(of place: Place, in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch place {
        case .line(let range): return body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[range]))
        case .scratch(let range): return scratch.withBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        case .word(let word): return body(UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
        }
    }
}
