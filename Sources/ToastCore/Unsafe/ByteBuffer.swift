/// A growable byte buffer appended to through a raw pointer: where encoders write records and
/// where dedup builds its keys.
///
/// Why not `[UInt8]`: every `append` to an array checks uniqueness and capacity through a
/// generic path, which costs more than the copy for a short run of bytes, and a record is a dozen short
/// runs. Here an append is a capacity check and a copy.
///
/// Safe to use: the buffer is noncopyable, so exactly one owner can write to or free its memory;
/// every write first makes room (`reserve`), and the memory is freed once, in `deinit`. Bytes
/// are only read through `withBytes`, whose pointer is valid for the closure's duration.
///
/// Inlinable across modules (docs/performance.md, "Across modules"): the encoders in ToastIO append
/// to it many times a record.
@usableFromInline package struct ByteBuffer: ~Copyable, ByteOutput {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes written and not yet taken out.
    @usableFromInline package var count = 0

    package init(capacity: Int = 4096) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// Makes room for `more` bytes after what is written.
    @inline(__always)
    @inlinable mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(to: count + more) }
    }

    @usableFromInline mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always) package mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inlinable @inline(__always) package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends a screen's serial, the eight bytes that start a key of a stage that keeps its
    /// state for every screen in one table (`ScreenKeyedStage`).
    @inlinable mutating func appendSerial(_ serial: Int) {
        withUnsafeBytes(of: serial) { append($0) }
    }

    /// Appends one part of a key (`Toast.appendKey`): `tag`, the length of `bytes` in four
    /// bytes, most significant first, then the bytes; one check for room instead of one for
    /// each piece (dedup builds a key of three parts for every toast).
    @inlinable mutating func appendKeyPart(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
        let header = 1 + MemoryLayout<UInt32>.size
        reserve(header + bytes.count)
        let start = UnsafeMutableRawPointer(base + count)
        start.storeBytes(of: tag, as: UInt8.self)
        start.storeBytes(of: UInt32(truncatingIfNeeded: bytes.count).bigEndian, toByteOffset: 1, as: UInt32.self)
        if let source = bytes.baseAddress, bytes.count > 0 {
            (start + header).copyMemory(from: source, byteCount: bytes.count)
        }
        count += header + bytes.count
    }

    /// The same for a string's UTF-8 bytes (read where they are: `withUTF8Bytes`).
    @inlinable mutating func appendKeyPart(_ tag: UInt8, _ text: String) {
        text.withUTF8Bytes { appendKeyPart(tag, $0) }
    }

    /// Appends a copy of the bytes written at `range` (a record that repeats a text it wrote
    /// copies it instead of escaping it again).
    @inlinable package mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a range of the bytes written")
        reserve(range.count)
        // After `reserve` (which may move the bytes); the copy lands after them, never on them.
        UnsafeMutableRawPointer(base + count).copyMemory(from: base + range.lowerBound, byteCount: range.count)
        count += range.count
    }

    /// Forgets what was written after the first `count` bytes, keeping the memory.
    mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count, "a length of the bytes written")
        self.count = count
    }

    /// Forgets what is written, keeping the memory.
    @inlinable package mutating func removeAll() {
        count = 0
    }

    /// The bytes written, for the duration of `body`.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes written, as an array.
    @usableFromInline package var bytes: [UInt8] { withBytes { Array($0) } }
}
