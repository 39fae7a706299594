// libFuzzer target: the input reader and the event decoder on arbitrary bytes.
// Built by Scripts/fuzz together with the library sources into one module.

/// What must hold for any bytes: every line is either an event or a rejection with its
/// own line number, the decoded shows encode to valid JSON records, and the decoder's one-pass
/// path for common show lines gives what its general path gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = BinaryInputCheck.looksBinary(UnsafeRawBufferPointer(start: data, count: size))
    let reader = LineReader(source: MemorySource(bytes), maxLineBytes: 4096)
    var decoder = EventDecoder()
    var generalDecoder = EventDecoder()
    generalDecoder.takesCommonShows = false
    var textDecoder = EventDecoder()
    let encoder = JSONRecordEncoder()
    var expectedLine = 0
    loop: while true {
        switch reader.next() {
        case .line(let line, let number):
            expectedLine += 1
            precondition(number == expectedLine, "line numbers must count every line")
            _ = textDecoder.decodeText(line, number: number)
            if EventDecoder.isBlank(line) { continue }
            let decoded = decoder.decodeJSON(line, number: number)
            precondition(outcome(decoded) == outcome(generalDecoder.decodeJSON(line, number: number)),
                         "the one-pass path and the general path decode a line alike")
            precondition(decoder.takeNotes() == generalDecoder.takeNotes(), "both paths warn of the same typos")
            switch decoded {
            case .success(let event):
                if case .show(let toast) = event.kind {
                    precondition(!toast.extraTextIsKnownCanonical || toast.withExtraText(JSONText.isCanonicalObject) == true,
                                 "extra text marked canonical is canonical")
                    var output = ByteBuffer()
                    _ = encoder.encode(.present(toast, at: 0, waited: 0), into: &output)
                    checkJSONLine(output.bytes)
                    // What a person sees of it holds no character that acts on a terminal.
                    var text = ByteBuffer()
                    _ = TextRecordEncoder(useColor: false, verbose: true).encode(.present(toast, at: 0, waited: 0), into: &text)
                    precondition(!String(decoding: text.bytes.dropLast(), as: UTF8.self).unicodeScalars.contains(where: TerminalText.isUnsafe),
                                 "text records escape control and bidi characters")
                    // The toast keeps its extra fields as text: looking one up by name finds
                    // what reading them all gives (the last of duplicates).
                    for member in toast.extra {
                        precondition(toast.extraValue(member.name).map(JSONText.encode) == JSONText.encode(member.value),
                                     "an extra field looked up by name is the one read with the others")
                    }
                }
            case .failure(let rejection):
                precondition(rejection.line == number, "a rejection names its own line")
            }
        case .tooLong(let number, _):
            expectedLine += 1
            precondition(number == expectedLine, "line numbers must count every line")
        case .end:
            break loop
        case .timedOut, .interrupted, .failed, .looksBinary:
            preconditionFailure("memory input cannot wait or fail, and this reader does not look for binary input")
        }
    }
    fuzzLogFormats(bytes)
    return 0
}

/// The native log formats on the same bytes, line by line and joined by `--multiline`: every
/// line is a show or a rejection of its own line, every show has a message and encodes to a
/// valid JSON record, and extra text marked canonical is canonical.
private func fuzzLogFormats(_ bytes: [UInt8]) {
    let clock = LogClock(zone: .utc, wallNow: { 1_796_558_400 })
    for format in [InputFormat.syslog, .logfmt] {
        for joins in [false, true] {
            let reader = LineReader(source: MemorySource(bytes), maxLineBytes: 4096)
            if joins { reader.joinContinuations(of: format, clock: clock) }
            var decoding = LineDecoding(decoder: EventDecoder(), input: format, deadLetter: nil)
            decoding.logClock = clock
            decoding.joinsLines = joins
            var lastNumber = 0
            loop: while true {
                switch reader.next() {
                case .line(let line, let number):
                    precondition(number > lastNumber, "events come in the order of their first lines")
                    lastNumber = number
                    checkLogLine(decoding.decode(line, number: number), number: number)
                case .tooLong(let number, _):
                    precondition(number > lastNumber, "events come in the order of their first lines")
                    lastNumber = number
                case .end:
                    break loop
                case .timedOut, .interrupted, .failed, .looksBinary:
                    preconditionFailure("memory input cannot wait or fail, and this reader does not look for binary input")
                }
            }
        }
    }
}

private func checkLogLine(_ line: DecodedLine, number: Int) {
    switch line {
    case .show(let show):
        let toast = show.makeToast()
        precondition(!toast.message.isEmpty, "a log line's show has a message")
        precondition(!toast.extraTextIsKnownCanonical || toast.withExtraText(JSONText.isCanonicalObject) == true,
                     "extra text marked canonical is canonical")
        var output = ByteBuffer()
        _ = JSONRecordEncoder().encode(.present(toast, at: 0, waited: 0), into: &output)
        checkJSONLine(output.bytes)
    case .rejected(let rejection):
        precondition(rejection.line == number, "a rejection names its own line")
    case .blank, .event, .skipped, .several:
        break
    }
}

/// A decoded line as bytes to compare: the event with every field of its toast, or the rejection.
private func outcome(_ result: Result<Event, InputRejection>) -> [UInt8] {
    switch result {
    case .success(let event):
        var out = ByteBuffer()
        out.appendUTF8("\(String(describing: event.at)) \(event.line) \(String(describing: event.screen)) ")
        if case .show(let toast) = event.kind {
            _ = JSONRecordEncoder().encode(.present(toast, at: 0, waited: 0), into: &out)
            out.appendUTF8("\(String(describing: toast.key)) \(toast.afterMicros) \(toast.dismissOnTap) \(toast.dismissOnLongPress) ")
            out.appendUTF8("\(toast.swipe) \(toast.inputLine) \(String(describing: toast.screenKey))")
        } else {
            out.appendUTF8("\(event.kind)")
        }
        return out.bytes
    case .failure(let rejection):
        return Array("\(rejection.line) \(rejection.reason)".utf8)
    }
}
