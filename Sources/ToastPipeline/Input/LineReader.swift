#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits input into lines without copying them: reads large blocks, finds newlines with
/// `memchr`, and hands out each line as a view into its buffer.
///
/// Line numbers count physical lines from 1. A line longer than `maxLineBytes` is skipped
/// to its end and reported once, so one huge line cannot take all memory; its bytes go to
/// `skippedBytes` as they pass (a dead-letter file keeps them without holding them).
public final class LineReader {
    public enum Item {
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
    public let maxLineBytes: Int
    private let skippedBytes: ((UnsafeRawBufferPointer) -> Void)?
    /// Polled beside the input whenever a read would wait: readable means stop waiting.
    private let wakeDescriptors: [Int32]
    /// Whether the opening bytes were looked at (or need not be).
    private var openingChecked: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// Bytes of an over-long line skipped so far; nil when not skipping.
    private var skipping: Int?
    public private(set) var lineNumber = 0
    static let blockSize = 1 << 18

    public init(source: any ByteSource, maxLineBytes: Int = 1 << 20,
                skippedBytes: ((UnsafeRawBufferPointer) -> Void)? = nil, wakeDescriptors: [Int32] = [],
                rejectsBinary: Bool = false) {
        self.source = source
        self.wakeDescriptors = wakeDescriptors.filter { $0 >= 0 }
        openingChecked = !rejectsBinary
        self.maxLineBytes = maxLineBytes
        self.skippedBytes = skippedBytes
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(maxLineBytes, 1) + LineReader.blockSize,
                                                        alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// The next line or what stopped it. `beforeBlocking` runs when a read would have to wait
    /// (flush output there); `waitLimit` bounds that wait in milliseconds (nil: none).
    public func next(waitLimit: Int32? = nil, beforeBlocking: () -> Void = {}) -> Item {
        while true {
            if !openingChecked, let verdict = checkOpening() { return verdict }
            if openingChecked, let item = bufferedItem() { return item }
            if atEnd { return finalItem() }
            // Make room: move the partial line to the front.
            if start > 0 {
                if end > start {
                    memmove(buffer.baseAddress!, buffer.baseAddress! + start, end - start)
                }
                end -= start
                start = 0
            }
            if source.wouldBlock {
                beforeBlocking()
                switch source.waitUntilReadable(milliseconds: waitLimit ?? -1, wakeDescriptors: wakeDescriptors) {
                case .readable: break
                case .timedOut: return .timedOut
                case .woken: return .interrupted
                }
            }
            let space = UnsafeMutableRawBufferPointer(rebasing: buffer[end..<buffer.count])
            switch source.read(into: space) {
            case .bytes(let count): end += count
            case .end: atEnd = true
            case .interrupted: return .interrupted
            case .failed(let reason): return .failed(reason)
            }
        }
    }

    /// Looks at the opening bytes once enough are here: the first 64 KiB, all of a shorter
    /// input, or what a live source has sent before it would make us wait.
    private func checkOpening() -> Item? {
        let buffered = end - start
        guard buffered >= BinaryInputCheck.openingBytes || atEnd || (buffered > 0 && source.wouldBlock) else { return nil }
        openingChecked = true
        let opening = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + min(buffered, BinaryInputCheck.openingBytes))])
        guard BinaryInputCheck.looksBinary(opening) else { return nil }
        start = end
        atEnd = true
        return .looksBinary
    }

    /// A complete line already in the buffer, or the end of an over-long one.
    private func bufferedItem() -> Item? {
        let base = buffer.baseAddress!
        guard end > start else { return nil }
        if let newline = memchr(base + start, 0x0A, end - start) {
            let lineEnd = base.distance(to: newline)
            lineNumber += 1
            defer { start = lineEnd + 1 }
            if skipping != nil || lineEnd - start > maxLineBytes {
                return skip(upTo: lineEnd)
            }
            let bytes = UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: UInt8.self), count: lineEnd - start)
            return .line(bytes, number: lineNumber)
        }
        // No newline: past the limit, drop what is buffered and keep skipping.
        if end - start > maxLineBytes {
            skippedBytes?(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            skipping = (skipping ?? 0) + (end - start)
            start = 0
            end = 0
        }
        return nil
    }

    /// Ends an over-long line at `lineEnd`: hands its last bytes on and reports it.
    private func skip(upTo lineEnd: Int) -> Item {
        skippedBytes?(UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]))
        let length = (skipping ?? 0) + lineEnd - start
        skipping = nil
        return .tooLong(number: lineNumber, length: length)
    }

    /// What remains at the end of input: a last line without a newline, or nothing.
    private func finalItem() -> Item {
        guard end > start || skipping != nil else { return .end }
        lineNumber += 1
        if skipping != nil || end - start > maxLineBytes {
            defer { start = end }
            return skip(upTo: end)
        }
        let bytes = UnsafeBufferPointer(start: (buffer.baseAddress! + start).assumingMemoryBound(to: UInt8.self),
                                        count: end - start)
        start = end
        return .line(bytes, number: lineNumber)
    }
}
