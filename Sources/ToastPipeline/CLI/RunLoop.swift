#if canImport(Glibc)
import Glibc
#endif

/// Streams the input through the pipeline: reads lines, rejects bad ones with a message
/// (and to the dead-letter file), hands events to the pipeline on the chosen clock, and
/// ends the run with the right records and exit status.
struct RunLoop {
    let setup: RunSetup
    private var decoding: LineDecoding
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
        decoding = LineDecoding(decoder: setup.decoder, input: setup.options.input, deadLetter: setup.deadLetter)
        reader = LineReader(source: setup.input, maxLineBytes: setup.options.maxLineBytes,
                            skippedBytes: decoding.skippedBytes)
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
        if setup.input.isRegularFile && !isWallClock && !setup.options.strict {
            let readAhead = ReadAhead(reader: reader, decoding: decoding)
            if readAhead.start() {
                defer { readAhead.stop() }
                return read(from: readAhead)
            }
        }
        while stopReason == nil {
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            let item = reader.next(waitLimit: waitLimit()) { setup.writer.flush() }
            switch item {
            case .line(let bytes, let number):
                handle(decoding.decode(bytes, number: number))
            case .tooLong(let number, let length):
                handle(decoding.tooLong(number: number, length: length, limit: reader.maxLineBytes))
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

    /// Takes lines from a `ReadAhead` until the input ends or the run must stop.
    private mutating func read(from readAhead: ReadAhead) {
        while stopReason == nil, let batch = readAhead.next() {
            for item in batch {
                if Signals.received != 0 {
                    stopReason = .signal(Signals.received)
                    return
                }
                switch item {
                case .line(let line, _): handle(line)
                case .failed(let reason): stopReason = .inputFailed(reason)
                }
                checkOutput()
                if stopReason != nil { return }
            }
        }
    }

    private mutating func handle(_ line: DecodedLine) {
        linesRead += 1
        switch line {
        case .blank:
            blankLines += 1
        case .event(var event):
            if isWallClock { event.at = wallNow }
            let errorsBefore = setup.runtime.errorCount
            pipeline.handle(event)
            if setup.options.strict && setup.runtime.errorCount > errorsBefore { stopReason = .strict }
        case .rejected(let rejection):
            rejectedLines += 1
            setup.environment.writeError("toastscript: \(rejection.message)")
            if setup.options.strict { stopReason = .strict }
        }
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
