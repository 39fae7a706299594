#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The input's bytes between reading them and handing them out as lines (`LineReader`): one
/// fixed allocation, filled at the back, taken from the front, and the unread rest moved to the
/// front when there is no room left. Lines are found with `memchr` and handed out as views
/// into the buffer, so a line is never copied.
///
/// Safe to use: `start` and `end` always satisfy `0 <= start <= end <= capacity`, every view
/// handed out lies within `start..<end` of the allocation, and the allocation is freed only in
/// `deinit`. A view is valid until the buffer is next filled or compacted (the reader hands a
/// line on before it reads again).
final class LineBuffer {
    private let memory: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    /// Bytes taken since the buffer was made: where the input stands, counted from where
    /// reading began.
    private(set) var taken: Int64 = 0

    init(capacity: Int) {
        memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
    }

    deinit {
        memory.deallocate()
    }

    /// Bytes read but not yet taken.
    var count: Int { end - start }

    /// The first `limit` bytes not yet taken (fewer when fewer are here).
    func opening(_ limit: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: memory[start..<(start + min(count, limit))])
    }

    /// Every byte not yet taken.
    var unread: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: memory[start..<end])
    }

    /// How far the next newline is from the front (nil: none here yet).
    func distanceToNewline() -> Int? {
        guard count > 0, let base = memory.baseAddress,
              let newline = memchr(base + start, 0x0A, count) else { return nil }
        return (base + start).distance(to: newline)
    }

    /// Takes the first `length` bytes and the byte after them (the newline), returning the
    /// `length` bytes; they stay valid until the buffer is next filled or compacted.
    func takeLine(length: Int) -> UnsafeBufferPointer<UInt8> {
        precondition(length >= 0 && length < count, "a line ends inside the buffer")
        let line = UnsafeRawBufferPointer(rebasing: memory[start..<(start + length)])
        start += length + 1
        taken += Int64(length + 1)
        return line.bindMemory(to: UInt8.self)
    }

    /// Takes every byte not yet taken, returning them.
    func takeAll() -> UnsafeBufferPointer<UInt8> {
        let rest = unread
        taken += Int64(count)
        start = end
        return rest.bindMemory(to: UInt8.self)
    }

    /// Moves the bytes not yet taken to the front, making room at the back.
    func compact() {
        guard start > 0 else { return }
        if let base = memory.baseAddress, end > start {
            memmove(base, base + start, end - start)
        }
        end -= start
        start = 0
    }

    /// Where the next bytes read go: the free space at the back.
    var freeSpace: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: memory[end..<memory.count])
    }

    /// Counts `byteCount` bytes written into `freeSpace` as read.
    func didRead(_ byteCount: Int) {
        precondition(byteCount >= 0 && end + byteCount <= memory.count, "bytes read fit the free space")
        end += byteCount
    }
}
