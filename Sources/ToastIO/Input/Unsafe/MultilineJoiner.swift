#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore

/// Holds the event being read with `--multiline` (`MultilineRules` says which lines continue
/// it): its first line, then `\n` and each continuation, in a buffer of its own, until a line
/// that starts a new event, the end of input, or `quietMicroseconds` without a line while live.
/// `LineReader` hands the joined event out as one line numbered as its first.
///
/// Safe to use: the held text is a copy. Two buffers take turns: the one released is handed out
/// as a view and left alone while the other holds the next event, until the next release (the
/// reader's contract: a line is valid until the next `next()`).
final class MultilineJoiner {
    var rules: MultilineRules
    private var first = ByteBuffer(capacity: 4096)
    private var second = ByteBuffer(capacity: 4096)
    /// Which of the two holds the event being joined.
    private var holdsInFirst = true
    /// The held event's first line: its number and where it starts in the input.
    private(set) var heldNumber = 0
    private(set) var heldOffset: Int64 = 0
    private(set) var hasHeld = false
    /// When the held event last grew (monotonic microseconds).
    private var lastArrival: Int64 = 0
    /// What the reader met after the held event, handed out after it.
    var pending: LineReader.Item?
    static let quietMicroseconds: Int64 = 500_000

    init(rules: MultilineRules) {
        self.rules = rules
    }

    /// Calls `body` with the buffer that holds the event being joined.
    private func withHeld<Result>(_ body: (inout ByteBuffer) -> Result) -> Result {
        holdsInFirst ? body(&first) : body(&second)
    }

    /// Starts holding a new event with its first line.
    func hold(_ line: UnsafeBufferPointer<UInt8>, number: Int, offset: Int64) {
        withHeld { held in
            held.removeAll()
            held.append(UnsafeRawBufferPointer(Self.droppingCarriageReturn(line)))
        }
        heldNumber = number
        heldOffset = offset
        hasHeld = true
        rules.eventStarts()
        lastArrival = Self.now()
    }

    /// Whether `count` more bytes (and a `\n`) keep the held event within `limit`.
    func fits(_ count: Int, limit: Int) -> Bool {
        withHeld { $0.count } + 1 + count <= limit
    }

    /// Adds a continuation to the held event.
    func append(_ piece: UnsafeBufferPointer<UInt8>) {
        withHeld { held in
            held.append(UInt8(ascii: "\n"))
            held.append(UnsafeRawBufferPointer(Self.droppingCarriageReturn(piece)))
        }
        lastArrival = Self.now()
    }

    /// The held event, handed out (without the blank lines that ended it); nothing is held
    /// after it.
    func release() -> LineReader.Item {
        let bytes = withHeld { held in
            while held.count > 0, held.withBytes({ $0.last }) == 0x0A { held.count -= 1 }
            return held.withBytes { UnsafeBufferPointer(start: $0.baseAddress?.assumingMemoryBound(to: UInt8.self), count: $0.count) }
        }
        holdsInFirst.toggle()
        hasHeld = false
        return .line(bytes, number: heldNumber)
    }

    /// Milliseconds left of the quiet that ends the held event (at least 1).
    var quietLeft: Int32 {
        Int32(clamping: max(1, (Self.quietMicroseconds - (Self.now() - lastArrival) + 999) / 1000))
    }

    var quietIsOver: Bool { Self.now() - lastArrival >= Self.quietMicroseconds }

    /// A line of a CRLF file without its `\r`, which would otherwise stay inside the event.
    private static func droppingCarriageReturn(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        line.last == 0x0D ? UnsafeBufferPointer(rebasing: line.dropLast()) : line
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}
