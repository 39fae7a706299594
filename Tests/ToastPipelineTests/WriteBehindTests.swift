import Testing
@testable import ToastCore
@testable import ToastIO

/// Records written on a thread of their own: the same bytes, in the same order, as written on
/// the pipeline's thread; a failed write reported; every toast released on the thread that
/// handed it over.
@Suite struct WriteBehindTests {
    /// Records and trace records for `count` toasts, over several batches, with flushes between.
    private func feed(_ writer: some RecordOutput, count: Int) {
        for number in 0..<count {
            let toast = Toast(id: "t\(number)", message: "Saved \(number) \u{1F4BE}", role: number % 3 == 0 ? "error" : "info")
            let at = Microseconds(number) * 250_000
            if number % 4 == 0 {
                writer.write(.drop(toast, at: at, Drop(stage: "dedup", reason: .duplicate, of: "t\(number - 1)")))
                continue
            }
            writer.write(TraceRecord(time: at, toast: toast, stage: "host", verdict: .pass))
            writer.write(.present(toast, at: at, waited: 0))
            writer.write(.dismiss(toast, at: at + 3_000_000, reason: .timeout, shown: 3_000_000))
            if number % 997 == 0 { writer.flush() }
        }
        writer.finish()
    }

    @Test(arguments: [OutputFormat.json, .text])
    func writesTheSameBytesAsThePipelinesThread(format: OutputFormat) {
        func encoder() -> any RecordEncoder {
            format == .json ? JSONRecordEncoder() : TextRecordEncoder(useColor: false, verbose: true, time: TimeDisplay(zone: .utc))
        }
        let direct = MemorySink()
        let directWriter = SinkRecordWriter(encoder: encoder(), sink: direct)
        feed(directWriter, count: 5_000)
        let behind = MemorySink()
        let behindWriter = WriteBehind(SinkRecordWriter(encoder: encoder(), sink: behind, blockSize: 4_096))
        feed(behindWriter, count: 5_000)
        #expect(behind.bytes.count > 100 * WriteBehind.batchCapacity)
        #expect(behind.text == direct.text)
        #expect(behindWriter.linesWritten == directWriter.linesWritten)
        #expect(behindWriter.failure == nil)
    }

    @Test func aFailedWriteIsSeenByTheEnd() throws {
        let sink = try FileDescriptorSink.appending(to: "/dev/full", fsync: false)
        let writer = WriteBehind(SinkRecordWriter(encoder: JSONRecordEncoder(), sink: sink, blockSize: 1_024))
        feed(writer, count: 2_000)
        #expect(writer.failure == .writeFailed("/dev/full: No space left on device"))
    }

    @Test func theToastsRecordsHeldAreReleasedWhenTheRunEnds() {
        let writer = WriteBehind(SinkRecordWriter(encoder: JSONRecordEncoder(), sink: MemorySink()))
        var toast = Toast(id: "t1", message: "Saved")
        for _ in 0..<(3 * WriteBehind.batchCapacity + 5) {
            writer.write(.present(toast, at: 0, waited: 0))
        }
        #expect(!isKnownUniquelyReferenced(&toast.storage))
        writer.finish()
        #expect(isKnownUniquelyReferenced(&toast.storage))
        #expect(writer.linesWritten == 3 * WriteBehind.batchCapacity + 5)
    }
}
