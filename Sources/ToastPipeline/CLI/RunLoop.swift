#if canImport(Glibc)
import Glibc
#endif

/// Streams the input through the pipeline: reads lines, rejects bad ones with a message
/// (and to the dead-letter file), hands events to the pipeline on the chosen clock, and
/// ends the run with the right records and exit status.
struct RunLoop {
    let setup: RunSetup
    private var decoder: EventDecoder
    private let reader: LineReader
    private var linesRead = 0
    private var blankLines = 0
    private var rejectedLines = 0
    private var startedAt: Microseconds = 0
    private var stopReason: StopReason?

    enum StopReason: Equatable {
        case signal(Int32)
        case strict
        case outputClosed
        case outputFailed(String)
        case inputFailed(String)
    }

    init(setup: RunSetup) {
        self.setup = setup
        decoder = setup.decoder
        reader = LineReader(source: setup.input, maxLineBytes: setup.options.maxLineBytes,
                            skippedBytes: setup.deadLetter.map { deadLetter in { deadLetter.write($0) } })
    }

    private var pipeline: Pipeline { setup.pipeline }
    private var isWallClock: Bool { setup.options.clock == .wall }

    /// Microseconds since the run started, on the wall clock.
    private var wallNow: Microseconds { setup.environment.wallClock() - startedAt }

    mutating func run() -> Int32 {
        startedAt = setup.environment.wallClock()
        readInput()
        finish()
        return exitStatus()
    }

    // MARK: Reading

    private mutating func readInput() {
        while stopReason == nil {
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            let item = reader.next(waitLimit: waitLimit()) { setup.writer.flush() }
            switch item {
            case .line(let bytes, let number):
                linesRead += 1
                handleLine(bytes, number: number)
            case .tooLong(let number, let length):
                linesRead += 1
                // Its bytes already went to the dead-letter file as the reader skipped them.
                reject(InputRejection(line: number, reason: "line of \(length) bytes is longer than --max-line-bytes (\(reader.maxLineBytes))"),
                       bytes: nil)
            case .timedOut:
                pipeline.advance(to: wallNow)
            case .interrupted:
                continue
            case .failed(let reason):
                stopReason = .inputFailed(reason)
            case .end:
                return
            }
            checkOutput()
        }
    }

    /// In wall-clock mode, how long a read may wait before the next timer is due.
    private func waitLimit() -> Int32? {
        guard isWallClock else { return nil }
        guard let due = pipeline.nextTimerDue else { return -1 }
        let milliseconds = (due - wallNow + 999) / 1_000
        return Int32(clamping: max(0, milliseconds))
    }

    private mutating func handleLine(_ line: UnsafeBufferPointer<UInt8>, number: Int) {
        // A UTF-8 byte order mark opening the input is not part of the first line (RFC 8259 §8.1).
        let bytes = number == 1 ? EventDecoder.droppingByteOrderMark(line) : line
        if EventDecoder.isBlank(bytes) {
            blankLines += 1
            return
        }
        let result = setup.options.input == .text
            ? decoder.decodeText(bytes, number: number)
            : decoder.decodeJSON(bytes, number: number)
        switch result {
        case .success(var event):
            if isWallClock { event.at = wallNow }
            let errorsBefore = setup.runtime.errorCount
            pipeline.handle(event)
            if setup.options.strict && setup.runtime.errorCount > errorsBefore { stopReason = .strict }
        case .failure(let rejection):
            reject(rejection, bytes: line)
        }
    }

    private mutating func reject(_ rejection: InputRejection, bytes: UnsafeBufferPointer<UInt8>?) {
        rejectedLines += 1
        setup.environment.writeError("toastscript: \(rejection.message)")
        if let deadLetter = setup.deadLetter {
            if let bytes { deadLetter.write(UnsafeRawBufferPointer(bytes)) }
            var newline: UInt8 = 0x0A
            withUnsafeBytes(of: &newline) { deadLetter.write($0) }
        }
        if setup.options.strict { stopReason = .strict }
    }

    private mutating func checkOutput() {
        switch setup.writer.sink.failure {
        case nil: break
        case .closedPipe?: stopReason = .outputClosed
        case .writeFailed(let reason)?: stopReason = .outputFailed(reason)
        }
    }

    // MARK: The end

    private mutating func finish() {
        let drain = setup.options.drain && stopReason == nil
        if drain && isWallClock {
            // Timers fire in real time, so a live run shows its last toasts for their duration.
            while let due = pipeline.nextTimerDue, Signals.received == 0 {
                let wait = due - wallNow
                if wait > 0 { sleep(microseconds: wait) }
                pipeline.advance(to: max(due, wallNow))
                setup.writer.flush()
            }
            if Signals.received != 0 && stopReason == nil { stopReason = .signal(Signals.received) }
        }
        pipeline.finish(drain: drain && stopReason == nil)
        setup.writer.flush()
        setup.deadLetter?.flush()
        checkOutput()
        if setup.options.stats {
            let report = StatisticsReport(statistics: pipeline.statistics, linesRead: linesRead,
                                          blankLines: blankLines, rejectedLines: rejectedLines,
                                          scriptErrors: setup.runtime.errorCount,
                                          linesWritten: setup.writer.linesWritten,
                                          elapsed: wallNow)
            for line in report.lines { setup.environment.writeError(line) }
        }
    }

    /// Sleeps, waking early on a signal.
    private func sleep(microseconds: Microseconds) {
        var request = timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1_000)
        _ = nanosleep(&request, nil)
    }

    private func exitStatus() -> Int32 {
        switch stopReason {
        case .signal(let number)?:
            return 128 + number
        case .outputFailed(let reason)?:
            setup.environment.writeError("toastscript: cannot write \(reason)")
            return ExitStatus.failure
        case .inputFailed(let reason)?:
            setup.environment.writeError("toastscript: cannot read input: \(reason)")
            return ExitStatus.failure
        case .strict?, .outputClosed?, nil:
            return rejectedLines > 0 || setup.runtime.errorCount > 0 ? ExitStatus.dataError : ExitStatus.success
        }
    }
}
