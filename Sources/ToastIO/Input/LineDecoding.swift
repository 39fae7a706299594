import ToastCore

/// One input line as the run loop sees it: blank, an event, or a rejection (docs/events.md);
/// with a `parse` function also skipped, or several events (some perhaps rejected).
///
/// (The decoding below reads a line only during the call it is lent to, as `EventDecoder`
/// does; a repaired line is a copy the call owns.)
package enum DecodedLine {
    case blank
    case event(Event)
    /// A show from a JSON line, its toast still to be made (on the thread that handles it).
    case show(DecodedShow)
    case rejected(InputRejection)
    case skipped
    case several([DecodedLine])
}

/// The step from a line's bytes to a `DecodedLine`, and the dead-letter file that keeps the
/// rejected ones, in input order. The run loop does it inline, or `ReadAhead` on its thread.
/// (It lives with the run loop: it joins the input format of the command line, the decoder and
/// the dead-letter file, so that Input does not depend on the command line.)
package struct LineDecoding {
    package var decoder: EventDecoder
    package let input: InputFormat
    package let deadLetter: FileDescriptorSink?
    /// A script's `parse` function, which reads every non-blank line first.
    package var parser: (any LineParser)?
    /// Whether the first non-blank line was seen (only it is looked at for plain text).
    private var sawFirstLine = false
    /// Where the shows decoded since the last `startNewBatch()` go (their text and fields).
    private var batch = ShowBatch(rows: batchShowLimit)
    /// A batch whose text is this long, or that holds this many shows, is left to the shows made
    /// from it, and a new one started (decoding inline, the run loop makes each toast at once,
    /// so nothing else ends a batch).
    private static let batchTextLimit = 1 << 20
    private static let batchShowLimit = ReadAhead.batchCapacity
    private static let batchTextStartLimit = 1 << 18
    /// Text lines that were not valid UTF-8 and were kept with U+FFFD in place of their bad
    /// bytes: a count the run reports once, at its end. Shared with the copy a reading thread
    /// decodes with (read only after that thread has ended).
    package let repairedLines = LineCount()
    /// Lines of `--input syslog` that were not syslog and were read as text: counted the same way.
    package let notSyslogLines = LineCount()
    /// Reads the times of syslog and logfmt lines (`--tz`, and the wall clock for dates
    /// without a year).
    package var logClock = LogClock(zone: .local)
    private let syslog = SyslogFormat()
    private let logfmt = LogfmtFormat()
    /// Whether a line may hold several, joined by `\n` (`--multiline`): the first is read by
    /// the format, the rest continue its message.
    package var joinsLines = false
    /// Where the line being read keeps its parts (reused line after line).
    private let logLine = LogLine()
    /// Whether a logfmt time that could not be read was warned about (once a run).
    private var warnedOfUnreadTime = false

    /// A count of lines the run reports at its end.
    package final class LineCount: @unchecked Sendable {
        package var count = 0
    }

    /// Where the input stands once `reader` handed out the lines decoded so far.
    package func position(after reader: LineReader) -> InputPosition {
        InputPosition(offset: reader.offset, line: reader.lineNumber, shows: decoder.showCount, sawFirstLine: sawFirstLine)
    }

    /// Goes on from a saved position (a restart): the `t<N>` count and the first-line check
    /// as they were.
    package mutating func resume(from position: InputPosition) {
        decoder.showCount = position.shows
        sawFirstLine = position.sawFirstLine
    }

    package init(decoder: EventDecoder, input: InputFormat, deadLetter: FileDescriptorSink?,
         parser: (any LineParser)? = nil) {
        self.decoder = decoder
        self.input = input
        self.deadLetter = deadLetter
        self.parser = parser
    }

    /// Leaves the current show batch to the shows already decoded into it: `ReadAhead` calls
    /// this whenever it hands its lines on, since the other thread reads that batch from then on.
    /// The new batch's text starts as large as the last one's grew, up to 256 KB: grown while
    /// filled, it would copy its text at each doubling.
    package mutating func startNewBatch() {
        let capacity = min(max(ShowBatch.textCapacity, batch.text.count), Self.batchTextStartLimit)
        batch = ShowBatch(capacity: capacity, rows: Self.batchShowLimit)
    }

    /// Decodes a line of the input (`asEvent`: a JSON event whatever the input's format,
    /// never through `parse`: a Redis entry's field `event`).
    package mutating func decode(_ line: UnsafeBufferPointer<UInt8>, number: Int, asEvent: Bool = false) -> DecodedLine {
        // A UTF-8 byte order mark opening the input is not part of the first line (RFC 8259 §8.1).
        let bytes = number == 1 ? EventDecoder.droppingByteOrderMark(line) : line
        if EventDecoder.isBlank(bytes) { return .blank }
        if asEvent { return decodeEvent(bytes, number: number) }
        let isFirstLine = !sawFirstLine
        sawFirstLine = true
        // Text that is not UTF-8 (a Latin-1 log, a stray byte) is kept, each bad sequence
        // shown as U+FFFD; JSON input is rejected for it, as JSON must be UTF-8.
        if input.isText && !isValidUTF8(bytes) {
            repairedLines.count += 1
            let repaired = Array(String(decoding: bytes, as: UTF8.self).utf8)
            return repaired.withUnsafeBufferPointer { decodeValid($0, original: line, number: number, isFirstLine: isFirstLine) }
        }
        return decodeValid(bytes, original: line, number: number, isFirstLine: isFirstLine)
    }

    /// A non-blank line, valid UTF-8 when it is text; `original` is what the dead-letter file gets.
    @inline(__always)
    private mutating func decodeValid(_ bytes: UnsafeBufferPointer<UInt8>, original line: UnsafeBufferPointer<UInt8>,
                                      number: Int, isFirstLine: Bool) -> DecodedLine {
        if let parser { return decode(bytes, through: parser, original: line, number: number, isFirstLine: isFirstLine) }
        if batch.text.count > Self.batchTextLimit || batch.count >= Self.batchShowLimit { startNewBatch() }
        let result: Result<DecodedEvent, InputRejection>
        if joinsLines, let newline = bytes.firstIndex(of: 0x0A) {
            result = decodeJoined(bytes, at: newline, number: number)
        } else {
            switch input {
            case .json: result = decoder.decodeJSON(bytes, number: number, batch: batch)
            case .text: result = decoder.decodeText(bytes, number: number, batch: batch)
            case .syslog, .logfmt: result = decodeLog(Self.droppingCarriageReturn(bytes), number: number)
            }
        }
        switch result {
        case .success(.event(let event)):
            return .event(event)
        case .success(.show(let show)):
            return .show(show)
        case .failure(let rejection):
            keep(UnsafeRawBufferPointer(line))
            return .rejected(withTextHint(rejection, bytes, isFirstLine: isFirstLine))
        }
    }

    /// An event of several lines (`--multiline`), `newline` ending its first: the first is read
    /// by the format, the rest continue its message.
    @inline(never)
    private mutating func decodeJoined(_ bytes: UnsafeBufferPointer<UInt8>, at newline: Int, number: Int)
        -> Result<DecodedEvent, InputRejection> {
        let head = UnsafeBufferPointer(rebasing: bytes[..<newline])
        let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[newline...])
        return input == .text ? decoder.decodeText(head, number: number, batch: batch, continuation: rest)
            : decodeLog(Self.droppingCarriageReturn(head), number: number, continuation: rest)
    }

    /// A line of a native log format; a line that is not syslog is read as text, and counted.
    @inline(never)
    private mutating func decodeLog(_ line: UnsafeBufferPointer<UInt8>, number: Int,
                                    continuation: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0))
        -> Result<DecodedEvent, InputRejection> {
        if input == .syslog {
            guard syslog.read(line, into: logLine, clock: &logClock) else {
                notSyslogLines.count += 1
                return decoder.decodeText(line, number: number, batch: batch, continuation: continuation)
            }
            return .success(decoder.decodeLog(line, parts: logLine, number: number, batch: batch, continuation: continuation))
        }
        switch logfmt.read(line, into: logLine, clock: &logClock) {
        case .failure(let failure):
            decoder.showCount += 1
            return .failure(InputRejection(line: number, reason: failure.reason))
        case .success(let findings):
            if let unread = findings.unreadTime, !warnedOfUnreadTime {
                warnedOfUnreadTime = true
                decoder.note("input line \(number): logfmt time \(quoted(unread)) is neither RFC 3339 nor epoch seconds; "
                             + "lines with such a time have no \"at\" (said once)")
            }
            return .success(decoder.decodeLog(line, parts: logLine, number: number, batch: batch, continuation: continuation))
        }
    }

    /// The line without a `\r` that ends it.
    private static func droppingCarriageReturn(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard line.last == 0x0D else { return line }
        return UnsafeBufferPointer(rebasing: line[0..<(line.count - 1)])
    }

    /// A JSON event on its own (no header check, no hint about text).
    private mutating func decodeEvent(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> DecodedLine {
        if batch.text.count > Self.batchTextLimit || batch.count >= Self.batchShowLimit { startNewBatch() }
        switch decoder.decodeJSON(bytes, number: number, batch: batch) {
        case .success(.event(let event)): return .event(event)
        case .success(.show(let show)): return .show(show)
        case .failure(let rejection):
            keep(UnsafeRawBufferPointer(bytes))
            return .rejected(rejection)
        }
    }

    /// A line through the `parse` function, then each event it made through the decoder. The
    /// dead-letter file gets the line once, however many of its events were rejected.
    private mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, through parser: any LineParser,
                                 original line: UnsafeBufferPointer<UInt8>, number: Int, isFirstLine: Bool) -> DecodedLine {
        let objects: [EventFields]
        switch parser.parse(bytes, isText: input.isText, number: number) {
        case .skip:
            return .skipped
        case .rejected(let reason):
            keep(UnsafeRawBufferPointer(line))
            return .rejected(withTextHint(InputRejection(line: number, reason: reason), bytes, isFirstLine: isFirstLine))
        case .failed(let reason):
            keep(UnsafeRawBufferPointer(line))
            var rejection = InputRejection(line: number, reason: reason)
            rejection.byFailedParse = true
            return .rejected(withTextHint(rejection, bytes, isFirstLine: isFirstLine))
        case .events(let events):
            objects = events
        }
        guard !objects.isEmpty else { return .skipped }
        var lines: [DecodedLine] = []
        var kept = false
        for (position, object) in objects.enumerated() {
            switch decoder.decode(object, number: number) {
            case .success(let event):
                lines.append(.event(event))
            case .failure(var rejection):
                if !kept { keep(UnsafeRawBufferPointer(line)) }
                kept = true
                let which = objects.count == 1 ? "the event" : "event \(position + 1) of \(objects.count)"
                rejection.reason = "\(which) from parse: \(rejection.reason)"
                lines.append(.rejected(rejection))
            }
        }
        return lines.count == 1 ? lines[0] : .several(lines)
    }

    /// Warnings about the lines decoded since the last call (see `EventDecoder.takeNotes`).
    package mutating func takeNotes() -> [String] {
        decoder.takeNotes()
    }

    /// The rejection, with a hint to use `--input text` when it is JSON input's first line and
    /// that line does not open a JSON object (a log line may start with a digit, a date, a word).
    private func withTextHint(_ rejection: InputRejection, _ bytes: UnsafeBufferPointer<UInt8>,
                              isFirstLine: Bool) -> InputRejection {
        guard input == .json && isFirstLine && !Self.opensAnObject(bytes) else { return rejection }
        var hinted = rejection
        hinted.hint = "hint: the input does not look like JSON Lines (its first line is not a JSON object); --input text shows each line as a message"
        return hinted
    }

    /// Whether the line's first character other than a space or tab is `{`.
    private static func opensAnObject(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.first(where: { $0 != 0x20 && $0 != 0x09 }) == UInt8(ascii: "{")
    }

    /// Where the reader hands the bytes of an over-long line as it skips them: the dead-letter
    /// file, so it gets the whole line without it ever being held.
    package var skippedBytes: ((UnsafeRawBufferPointer) -> Void)? {
        deadLetter.map { deadLetter in { deadLetter.write($0) } }
    }

    /// A line over the limit: its bytes already went to the dead-letter file as the reader
    /// skipped them; this ends it.
    package func tooLong(number: Int, length: Int, limit: Int) -> DecodedLine {
        keep(UnsafeRawBufferPointer(start: nil, count: 0))
        return .rejected(InputRejection(line: number, reason: "line of \(length) bytes is longer than --max-line-bytes (\(limit))"))
    }

    /// Keeps a rejected piece of input that is no line of its own (a Redis entry without an
    /// event) in the dead-letter file, as one line.
    package func keepRejected(_ text: String) {
        var text = text
        text.withUTF8 { keep(UnsafeRawBufferPointer($0)) }
    }

    private func keep(_ bytes: UnsafeRawBufferPointer) {
        guard let deadLetter else { return }
        if bytes.count > 0 { deadLetter.write(bytes) }
        var newline: UInt8 = 0x0A
        withUnsafeBytes(of: &newline) { deadLetter.write($0) }
    }
}
