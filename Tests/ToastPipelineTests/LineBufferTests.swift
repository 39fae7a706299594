import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// The input buffer under `LineReader`: lines come out whole whatever the reads' sizes, a
/// partial line survives compaction, and no byte is handed out twice or lost.
@Suite struct LineBufferTests {
    /// Writes `text` into the buffer's free space, as a read would.
    private func read(_ text: String, into buffer: LineBuffer) {
        let bytes = Array(text.utf8)
        let space = buffer.freeSpace
        bytes.withUnsafeBytes { space.copyMemory(from: $0) }
        buffer.didRead(bytes.count)
    }

    private func takeLines(from buffer: LineBuffer) -> [String] {
        var lines: [String] = []
        while let length = buffer.distanceToNewline() {
            lines.append(String(decoding: buffer.takeLine(length: length), as: UTF8.self))
        }
        return lines
    }

    @Test func linesSplitAcrossReadsComeOutWhole() {
        let buffer = LineBuffer(capacity: 16)
        read("ab\ncd", into: buffer)
        #expect(takeLines(from: buffer) == ["ab"])
        #expect(buffer.count == 2)
        buffer.compact()
        read("e\n\nfg\n", into: buffer)
        #expect(takeLines(from: buffer) == ["cde", "", "fg"])
        #expect(buffer.count == 0)
        read("tail", into: buffer)
        #expect(String(decoding: buffer.takeAll(), as: UTF8.self) == "tail")
        #expect(buffer.count == 0 && buffer.distanceToNewline() == nil)
    }

    @Test func everyByteComesOutOnceWhateverTheReadSizes() {
        let text = (0..<500).map { "line \($0) 行 \(String(repeating: "x", count: $0 % 37))\n" }.joined()
        let bytes = Array(text.utf8)
        for readSize in [1, 7, 64, 300] {
            let buffer = LineBuffer(capacity: 512)
            var lines: [String] = []
            var offset = 0
            while offset < bytes.count {
                buffer.compact()
                let count = min(readSize, bytes.count - offset, buffer.freeSpace.count)
                bytes[offset..<(offset + count)].withUnsafeBytes { buffer.freeSpace.copyMemory(from: $0) }
                buffer.didRead(count)
                offset += count
                lines += takeLines(from: buffer)
            }
            #expect(lines.map { $0 + "\n" }.joined() == text, "reads of \(readSize) bytes")
        }
    }

    @Test func theOpeningIsTheFrontOfWhatIsUnread() {
        let buffer = LineBuffer(capacity: 32)
        read("one\ntwo three", into: buffer)
        _ = buffer.takeLine(length: 3)
        #expect(String(decoding: buffer.opening(3), as: UTF8.self) == "two")
        #expect(String(decoding: buffer.opening(100), as: UTF8.self) == "two three")
    }
}
