import ToastCore

/// Splits input into lines without copying them: reads large blocks, finds newlines with
/// `memchr`, and hands out each line as a view into its buffer.
///
/// Line numbers count physical lines from 1. A line longer than `maxLineBytes` is skipped
/// to its end and reported once, so one huge line cannot take all memory; its bytes go to
/// `skippedBytes` as they pass (a dead-letter file keeps them without holding them).
///
/// Safe to use as long as a line is not kept past the next call to `next()`, which may refill
/// the buffer the line points into (every caller decodes a line before it asks for the next).
package final class LineReader {
    package enum Item {
        /// A line without its `\n`; the bytes are valid until the next call.
        case line(UnsafeBufferPointer<UInt8>, number: Int)
        /// A line over the limit; its bytes (without the `\n`) went to `skippedBytes`.
        case tooLong(number: Int, length: Int)
        /// Nothing arrived within the wait limit.
        case timedOut
        /// A signal arrived while waiting (or a wake descriptor became readable).
        case interrupted
        /// The input's opening bytes are not text (`BinaryInputCheck`); nothing more is read.
        case looksBinary
        case failed(String)
        case end
    }

    private let source: any ByteSource
    package let maxLineBytes: Int
    private let skippedBytes: ((UnsafeRawBufferPointer) -> Void)?
    /// Polled beside the input whenever a read would wait: readable means stop waiting.
    private let wakeDescriptors: [Int32]
    /// Whether the opening bytes were looked at (or need not be).
    private var openingChecked: Bool
    private let buffer: LineBuffer
    private var atEnd = false
    /// Bytes of an over-long line skipped so far; nil when not skipping.
    private var skipping: Int?
    /// The number of the last physical line read.
    private var physicalLineNumber = 0
    /// Where the last physical line read starts in the input.
    private var lastLineStart: Int64 = 0
    /// The byte offset in the input where reading began (a restart reads on from a saved one).
    private let startOffset: Int64
    /// With `--multiline`: the event being joined, held until a line starts the next.
    private var joiner: MultilineJoiner?
    static let blockSize = 1 << 18

    package init(source: any ByteSource, maxLineBytes: Int = 1 << 20,
                skippedBytes: ((UnsafeRawBufferPointer) -> Void)? = nil, wakeDescriptors: [Int32] = [],
                rejectsBinary: Bool = false, startingAt start: (offset: Int64, line: Int) = (0, 0)) {
        self.source = source
        startOffset = start.offset
        physicalLineNumber = start.line
        self.wakeDescriptors = wakeDescriptors.filter { $0 >= 0 }
        openingChecked = !rejectsBinary
        self.maxLineBytes = maxLineBytes
        self.skippedBytes = skippedBytes
        buffer = LineBuffer(capacity: max(maxLineBytes, 1) + LineReader.blockSize)
    }

    /// The byte offset of the next line not yet handed out: what a restart reads on from (a
    /// held multi-line event's first line).
    package var offset: Int64 {
        if let joiner, joiner.hasHeld { return joiner.heldOffset }
        return startOffset + buffer.taken
    }

    /// The number of the last line handed out (before a held multi-line event's first).
    package var lineNumber: Int {
        if let joiner, joiner.hasHeld { return joiner.heldNumber - 1 }
        return physicalLineNumber
    }

    /// Hands out each event of several lines as one line (`--multiline`): its lines joined by
    /// `\n`, numbered as its first (`MultilineRules` says which lines continue an event).
    package func joinContinuations(of format: InputFormat, clock: LogClock) {
        joiner = MultilineJoiner(rules: MultilineRules(format: format, clock: clock))
    }

    /// The next line (with `--multiline`, the next event) or what stopped it. `beforeBlocking`
    /// runs when a read would have to wait (flush output there); `waitLimit` bounds that wait in
    /// milliseconds (nil: none).
    package func next(waitLimit: Int32? = nil, beforeBlocking: () -> Void = {}) -> Item {
        // (Compared with nil, not bound: reading line by line takes no reference.)
        guard joiner != nil else { return nextLine(waitLimit: waitLimit, beforeBlocking: beforeBlocking) }
        return nextEvent(waitLimit: waitLimit, beforeBlocking: beforeBlocking)
    }

    /// The next event of `--multiline`: lines joined by `joiner`. (Apart from `next`, so that
    /// reading line by line stays as short as it was.)
    @inline(never)
    private func nextEvent(waitLimit: Int32?, beforeBlocking: () -> Void) -> Item {
        guard let joiner else { return nextLine(waitLimit: waitLimit, beforeBlocking: beforeBlocking) }
        if let pending = joiner.pending {
            joiner.pending = nil
            return pending
        }
        while true {
            // While an event is held, a live input's quiet ends it.
            let quiet = joiner.hasHeld ? joiner.quietLeft : nil
            let limit = quiet.map { min($0, waitLimit ?? .max) } ?? waitLimit
            let item = nextLine(waitLimit: limit, beforeBlocking: beforeBlocking)
            switch item {
            case .line(let bytes, let number):
                guard joiner.hasHeld else {
                    if !bytes.isEmpty { joiner.hold(bytes, number: number, offset: lastLineStart) }
                    continue
                }
                if let piece = joiner.rules.continuation(bytes), joiner.fits(piece.count, limit: maxLineBytes) {
                    joiner.append(UnsafeBufferPointer(rebasing: bytes[piece]))
                    continue
                }
                if bytes.isEmpty { continue }
                let event = joiner.release()
                joiner.hold(bytes, number: number, offset: lastLineStart)
                return event
            case .timedOut:
                if joiner.hasHeld && joiner.quietIsOver { return joiner.release() }
                if waitLimit == nil || (quiet ?? .max) < (waitLimit ?? .max) { continue }
                return item
            case .interrupted:
                return item
            case .tooLong, .looksBinary, .failed, .end:
                guard joiner.hasHeld else { return item }
                joiner.pending = item
                return joiner.release()
            }
        }
    }

    /// The next physical line or what stopped it.
    @inline(__always)
    private func nextLine(waitLimit: Int32?, beforeBlocking: () -> Void) -> Item {
        while true {
            if !openingChecked, let verdict = checkOpening() { return verdict }
            if openingChecked, let item = bufferedItem() { return item }
            if atEnd { return finalItem() }
            buffer.compact()   // the partial line to the front, room at the back
            if source.wouldBlock {
                beforeBlocking()
                switch source.waitUntilReadable(milliseconds: waitLimit ?? -1, wakeDescriptors: wakeDescriptors) {
                case .readable: break
                case .timedOut: return .timedOut
                case .woken: return .interrupted
                }
            }
            switch source.read(into: buffer.freeSpace) {
            case .bytes(let count): buffer.didRead(count)
            case .end: atEnd = true
            case .interrupted: return .interrupted
            case .failed(let reason): return .failed(reason)
            }
        }
    }

    /// Looks at the opening bytes once enough are here: the first 64 KiB, all of a shorter
    /// input, or what a live source has sent before it would make us wait.
    private func checkOpening() -> Item? {
        let buffered = buffer.count
        guard buffered >= BinaryInputCheck.openingBytes || atEnd || (buffered > 0 && source.wouldBlock) else { return nil }
        openingChecked = true
        guard BinaryInputCheck.looksBinary(buffer.opening(BinaryInputCheck.openingBytes)) else { return nil }
        _ = buffer.takeAll()
        atEnd = true
        return .looksBinary
    }

    /// A complete line already in the buffer, or the end of an over-long one.
    @inline(__always)
    private func bufferedItem() -> Item? {
        if let length = buffer.distanceToNewline() {
            physicalLineNumber += 1
            lastLineStart = startOffset + buffer.taken
            let bytes = buffer.takeLine(length: length)
            if skipping != nil || length > maxLineBytes { return skip(bytes) }
            return .line(bytes, number: physicalLineNumber)
        }
        // No newline: past the limit, drop what is buffered and keep skipping.
        if buffer.count > maxLineBytes {
            let bytes = buffer.takeAll()
            skippedBytes?(UnsafeRawBufferPointer(bytes))
            skipping = (skipping ?? 0) + bytes.count
        }
        return nil
    }

    /// Ends an over-long line with its last `bytes`: hands them on and reports the line.
    private func skip(_ bytes: UnsafeBufferPointer<UInt8>) -> Item {
        skippedBytes?(UnsafeRawBufferPointer(bytes))
        let length = (skipping ?? 0) + bytes.count
        skipping = nil
        return .tooLong(number: physicalLineNumber, length: length)
    }

    /// What remains at the end of input: a last line without a newline, or nothing.
    private func finalItem() -> Item {
        guard buffer.count > 0 || skipping != nil else { return .end }
        physicalLineNumber += 1
        lastLineStart = startOffset + buffer.taken
        let bytes = buffer.takeAll()
        if skipping != nil || bytes.count > maxLineBytes { return skip(bytes) }
        return .line(bytes, number: physicalLineNumber)
    }
}
