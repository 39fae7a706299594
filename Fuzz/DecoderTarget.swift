// libFuzzer target: the input reader and the event decoder on arbitrary bytes.
// Built by Scripts/fuzz together with the library sources into one module.

/// What must hold for any bytes: every line is either an event or a rejection with its
/// own line number, and the decoded shows encode to valid JSON records.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = BinaryInputCheck.looksBinary(UnsafeRawBufferPointer(start: data, count: size))
    let reader = LineReader(source: MemorySource(bytes), maxLineBytes: 4096)
    var decoder = EventDecoder()
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
            switch decoder.decodeJSON(line, number: number) {
            case .success(let event):
                if case .show(let toast) = event.kind {
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
    return 0
}
