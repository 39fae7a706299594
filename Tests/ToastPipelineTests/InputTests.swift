import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// Decoding of JSON Lines and text input (docs/events.md, "Input" and "Bad lines").
@Suite struct EventDecoderTests {
    func decode(_ line: String, decoder: inout EventDecoder, number: Int = 1) -> Result<Event, InputRejection> {
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { decoder.decodeJSON(UnsafeBufferPointer($0), number: number) }
    }

    func show(_ line: String) throws -> Toast {
        var decoder = EventDecoder()
        let event = try decode(line, decoder: &decoder).get()
        guard case .show(let toast) = event.kind else {
            Issue.record("not a show")
            return Toast(id: "", message: "")
        }
        return toast
    }

    func rejection(_ line: String) -> String? {
        var decoder = EventDecoder()
        if case .failure(let rejection) = decode(line, decoder: &decoder) { return rejection.reason }
        return nil
    }

    @Test func aShowWithEveryField() throws {
        let toast = try show(#"""
            {"type":"show","at":1.5,"id":"x","message":"M","subtitle":"S","role":"warning","duration":4,"after":0.25,
             "placement":"bottom","policy":"stack","priority":2.0,"source":"net","key":"k","dismiss_on_tap":false,
             "dismiss_on_long_press":true,"swipe":false,"level":"debug","n":[1,{"a":null}]}
            """#.replacingOccurrences(of: "\n", with: ""))
        #expect(toast.id == "x")
        #expect(toast.message == "M")
        #expect(toast.subtitle == "S")
        #expect(toast.role == "warning")
        #expect(toast.durationMicros == 4_000_000)
        #expect(toast.afterMicros == 250_000)
        #expect(toast.placement == .bottom)
        #expect(toast.policy == .stack)
        #expect(toast.priority == 2)
        #expect(toast.source == "net")
        #expect(toast.key == "k")
        #expect(!toast.dismissOnTap)
        #expect(toast.dismissOnLongPress)
        #expect(!toast.swipe)
        #expect(toast.extra == [JSONMember("level", .string("debug")),
                                JSONMember("n", .array([.integer(1), .object([JSONMember("a", .null)])]))])
    }

    @Test func defaultsFollowTheQueueSettings() throws {
        var decoder = EventDecoder(defaultPolicy: .replace, defaultDuration: nil)
        let event = try decode(#"{"message":"M"}"#, decoder: &decoder).get()
        guard case .show(let toast) = event.kind else { Issue.record("not a show"); return }
        #expect(event.at == nil)
        #expect(toast.id == "t1")
        #expect(toast.role == "info")
        #expect(toast.policy == .replace)
        #expect(toast.durationMicros == nil)
        #expect(toast.priority == nil)
        #expect(toast.dismissOnTap && !toast.dismissOnLongPress && toast.swipe)
    }

    @Test func durationForms() throws {
        #expect(try show(#"{"message":"M","duration":"short"}"#).durationMicros == 2_000_000)
        #expect(try show(#"{"message":"M","duration":"long"}"#).durationMicros == 3_500_000)
        #expect(try show(#"{"message":"M","duration":null}"#).durationMicros == nil)
        #expect(try show(#"{"message":"M","duration":0}"#).durationMicros == nil)
        #expect(try show(#"{"message":"M","duration":0.0000015}"#).durationMicros == 2)
        #expect(try show(#"{"message":"M","duration":0.0000025}"#).durationMicros == 2)
        #expect(try show(#"{"message":"M","duration":1e-6}"#).durationMicros == 1)
    }

    @Test func nullMeansAbsent() throws {
        let toast = try show(#"{"message":"M","subtitle":null,"role":null,"priority":null,"swipe":null,"at":null,"id":null}"#)
        #expect(toast.subtitle == nil && toast.role == "info" && toast.priority == nil && toast.swipe && toast.id == "t1")
    }

    @Test func interactions() throws {
        var decoder = EventDecoder()
        func kind(_ line: String) throws -> Event.Kind { try decode(line, decoder: &decoder).get().kind }
        if case .dismiss(let target) = try kind(#"{"type":"dismiss","id":"a"}"#) { #expect(target == "a") } else { Issue.record("dismiss") }
        if case .tap(let target) = try kind(#"{"type":"tap"}"#) { #expect(target == nil) } else { Issue.record("tap") }
        if case .drag(nil, .end, let dy) = try kind(#"{"type":"drag","phase":"end"}"#) { #expect(dy == 0) } else { Issue.record("drag") }
        if case .drag(_, .begin, let dy) = try kind(#"{"type":"drag","phase":"begin","dy":-12.5,"message":5}"#) {
            #expect(dy == -12.5)
        } else { Issue.record("drag begin") }
        if case .dismissAll = try kind(#"{"type":"dismiss_all","role":17}"#) {} else { Issue.record("dismiss_all") }
        if case .tick = try kind(#"{"type":"tick","at":3}"#) {} else { Issue.record("tick") }
        if case .longPress = try kind(#"{"type":"long_press"}"#) {} else { Issue.record("long_press") }
        if case .swipe = try kind(#"{"type":"swipe"}"#) {} else { Issue.record("swipe") }
    }

    @Test func implicitIdsCountEveryShowObjectIncludingRejectedOnes() throws {
        var decoder = EventDecoder()
        _ = decode(#"{"message":"a"}"#, decoder: &decoder)
        _ = decode(#"{"type":"show"}"#, decoder: &decoder)       // rejected, counted
        _ = decode(#"{"type":"tap"}"#, decoder: &decoder)         // not a show
        _ = decode(#"[1]"#, decoder: &decoder)                    // not an object
        _ = decode(#"{"type":5,"message":"x"}"#, decoder: &decoder) // type of the wrong type: not a show
        _ = decode(#"{"message":"b","id":"own"}"#, decoder: &decoder)
        _ = decode(#"{"message":"c","at":1e400}"#, decoder: &decoder)  // out of range, counted
        _ = decode(#"{"type":"tap","dy":1e400}"#, decoder: &decoder)    // out of range, not a show
        _ = decode(#"{"message":"d","x":[1,"#, decoder: &decoder)       // not a whole object
        let event = try decode(#"{"message":"e"}"#, decoder: &decoder).get()
        guard case .show(let toast) = event.kind else { Issue.record("not a show"); return }
        #expect(toast.id == "t5")
    }

    @Test func implicitIdsAreTheCountInDecimal() {
        for count in [1, 9, 10, 99, 100, 12_345, 1_000_000, Int.max] {
            #expect(EventDecoder.implicitID(count) == "t\(count)")
        }
    }

    @Test(arguments: [
        ("not json", "invalid JSON at column 1: unexpected 'n', expected a value"),
        ("[1,2]", "not a JSON object"),
        ("\"text\"", "not a JSON object"),
        (#"{"message":"a"} x"#, "invalid JSON at column 17: unexpected 'x', expected the end of the line"),
        (#"{"message":"a",}"#, "invalid JSON at column 16: unexpected '}', expected a member name"),
        (#"{}"#, "missing message"),
        (#"{"message":null}"#, "missing message"),
        (#"{"message":""}"#, "field 'message' must not be empty"),
        (#"{"message":5}"#, "field 'message' must be a string"),
        (#"{"message":"a","role":"fatal"}"#, "unknown role \"fatal\" (known: error, info, success, warning)"),
        (#"{"message":"a","placement":"left"}"#, "unknown placement \"left\" (top, center, bottom)"),
        (#"{"message":"a","policy":"push"}"#, "unknown policy \"push\" (enqueue, replace, stack)"),
        (#"{"type":"explode"}"#, "unknown type \"explode\" (show, dismiss, dismiss_all, tap, long_press, swipe, drag, tick)"),
        (#"{"type":5}"#, "field 'type' must be a string"),
        (#"{"message":"a","duration":-1}"#, "field 'duration' must not be negative"),
        (#"{"message":"a","duration":"medium"}"#, "field 'duration' must be a number of seconds, \"short\" or \"long\""),
        (#"{"message":"a","after":-0.5}"#, "field 'after' must not be negative"),
        (#"{"message":"a","priority":1.5}"#, "field 'priority' must be an integer"),
        (#"{"message":"a","priority":"high"}"#, "field 'priority' must be an integer"),
        (#"{"message":"a","swipe":1}"#, "field 'swipe' must be true or false"),
        (#"{"message":"a","id":17}"#, "field 'id' must be a string"),
        (#"{"message":"a","at":"now"}"#, "field 'at' must be a number of seconds"),
        (#"{"type":"drag"}"#, "drag needs a 'phase' (begin or end)"),
        (#"{"type":"drag","phase":"middle"}"#, "unknown drag phase \"middle\" (begin or end)"),
        (#"{"type":"drag","phase":"end","dy":"far"}"#, "field 'dy' must be a number"),
        (#"{"message":"a","at":NaN}"#, "invalid JSON at column 21: unexpected 'N', expected a value"),
        (#"{"message":"a","at":Infinity}"#, "invalid JSON at column 21: unexpected 'I', expected a value"),
        (#"{"message":"a","at":0x10}"#, "invalid JSON at column 22: unexpected 'x', expected ',' or '}'"),
        (#"{"message":"a","at":+1}"#, "invalid JSON at column 21: unexpected '+', expected a value"),
        (#"{"message":"a","at":.5}"#, "invalid JSON at column 21: unexpected '.', expected a value"),
        (#"{"message":"a","at":01}"#, "invalid JSON at column 21: leading zero in a number"),
        (#"{"message":"a","at":1.}"#, "invalid JSON at column 23: unexpected '}', expected a digit after '.'"),
        (#"{"message":"a","at":1e400}"#, "number out of range at column 21"),
        (#"{"message":"a\x"}"#, "invalid JSON at column 14: unknown escape '\\x'"),
        (#"{"message":"\ud800"}"#, "invalid JSON at column 19: lone surrogate in \\u escape"),
        ("{\"message\":\"a\tb\"}", "invalid JSON at column 14: control character 0x9 in a string"),
        (#"{"message":"a""#, "invalid JSON: unexpected end of line, expected ',' or '}'"),
    ])
    func rejects(line: String, reason: String) {
        #expect(rejection(line) == reason)
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        var decoder = EventDecoder()
        var bytes: [UInt8] = Array(#"{"message":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let result = bytes.withUnsafeMutableBufferPointer { decoder.decodeJSON(UnsafeBufferPointer($0), number: 7) }
        guard case .failure(let invalid) = result else { Issue.record("line 7 was not rejected"); return }
        #expect(invalid == InputRejection(line: 7, reason: "not valid UTF-8"))
        let deep = #"{"message":"a","x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(rejection(deep) == "invalid JSON: nested deeper than 256 levels")
    }

    @Test func acceptsEscapesSurrogatePairsDuplicateKeysAndCRLF() throws {
        let toast = try show(#"{"message":"x","message":"a\"b\\c\/d\n\u00e9\ud83d\ude00","subtitle":"\u0000"}"# + "\r")
        #expect(toast.message == "a\"b\\c/d\né😀")
        #expect(toast.subtitle == "\u{0}")
    }

    @Test func blankLinesAreSpacesTabsAndCR() {
        for (text, blank) in [("", true), (" \t\r", true), (" x ", false)] {
            var bytes = Array(text.utf8)
            #expect(bytes.withUnsafeMutableBufferPointer { EventDecoder.isBlank(UnsafeBufferPointer($0)) } == blank)
        }
    }

    @Test func textLinesAreShowsWithoutTheirCR() throws {
        var decoder = EventDecoder()
        var bytes = Array("Build failed\r".utf8)
        let event = try bytes.withUnsafeMutableBufferPointer { decoder.decodeText(UnsafeBufferPointer($0), number: 3) }.get()
        guard case .show(let toast) = event.kind else { Issue.record("not a show"); return }
        #expect(toast.message == "Build failed")
        #expect(toast.id == "t1")
        #expect(toast.inputLine == 3)
    }
}

@Suite struct NumberTests {
    @Test(arguments: [
        ("0", Int64(0)), ("1", 1_000_000), ("1.5", 1_500_000), ("0.1", 100_000), ("-2.25", -2_250_000),
        ("0.0000005", 0), ("0.0000015", 2), ("0.0000025", 2), ("0.00000250001", 3), ("1e-6", 1),
        ("12345.6789015", 12_345_678_902), ("1E3", 1_000_000_000), ("3.4999999", 3_500_000),
        ("0.000000499999999999999999999", 0),
    ])
    func microsecondsRoundHalfToEvenFromTheDecimal(text: String, micros: Int64) throws {
        var bytes = Array(text.utf8)
        let number = try bytes.withUnsafeMutableBufferPointer { buffer in
            var scanner = JSONScanner(UnsafeBufferPointer(buffer))
            return try scanner.parseNumber()
        }
        #expect(number.microseconds == micros)
        #expect(number.double == Double(text))
    }

    /// The plain-time reader takes only what it reads exactly, and then reads what
    /// `parseNumber` reads, to the same byte; anything else it leaves where it was.
    @Test func plainTimesReadAsNumbersDo() {
        var generator = SystemRandomNumberGenerator()
        var texts = ["0", "-0", "0.5", "-0.5", "1", "10", "0.136", "12.345678", "12.3456789", "01", "-", "", ".5", "1.",
                     "1e3", "1.5E2", "0.0", "00.1", "999999999999.999999", "9999999999999", "1234567890123.5",
                     "1,", "2}", "3 ", "4.25,", "-7.000001]", "5x", "0.1234567", "-01", "1.2.3"]
        let digits = Array("0123456789")
        for _ in 0..<3_000 {
            var text = Bool.random(using: &generator) ? "-" : ""
            text += String((0..<Int.random(in: 0...14, using: &generator)).map { _ in digits.randomElement(using: &generator)! })
            if Bool.random(using: &generator) {
                text += "." + String((0..<Int.random(in: 0...8, using: &generator)).map { _ in digits.randomElement(using: &generator)! })
            }
            text += [",", "}", " ", "", "e2", "]"].randomElement(using: &generator)!
            texts.append(text)
        }
        for text in texts {
            var bytes = Array(text.utf8)
            bytes.withUnsafeMutableBufferPointer { buffer in
                var plain = JSONScanner(UnsafeBufferPointer(buffer))
                var general = JSONScanner(UnsafeBufferPointer(buffer))
                let number = try? general.parseNumber()
                if let micros = plain.parsePlainTime() {
                    #expect(micros == number?.microseconds, "\(text)")
                    #expect(plain.index == general.index, "\(text)")
                } else {
                    #expect(plain.index == 0, "\(text)")
                }
            }
        }
    }

    /// A value's integers are read by a short path (`scanSmallInteger`): a value reads as the
    /// number `parseNumber` makes of the same text, or is refused alike.
    @Test func valuesReadNumbersAsParseNumberDoes() {
        var generator = SystemRandomNumberGenerator()
        var texts = ["0", "-0", "1", "-1", "10", "01", "-01", "0.5", "1e3", "1E3", "123456789012345678", "999999999999999999",
                     "1234567890123456789", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-", "1.", "2x"]
        let digits = Array("0123456789")
        for _ in 0..<3_000 {
            var text = Bool.random(using: &generator) ? "-" : ""
            text += String((0..<Int.random(in: 0...21, using: &generator)).map { _ in digits.randomElement(using: &generator)! })
            text += ["", "", ".5", "e2"].randomElement(using: &generator)!
            texts.append(text)
        }
        for text in texts {
            let fromValue = try? JSONScanner.value(of: Array("{\"n\":\(text)}".utf8))
            var bytes = Array(text.utf8)
            let number = bytes.withUnsafeMutableBufferPointer { buffer -> JSONNumber? in
                var scanner = JSONScanner(UnsafeBufferPointer(buffer))
                guard let number = try? scanner.parseNumber(), scanner.isAtEnd else { return nil }
                return number
            }
            #expect(fromValue == number.map { .object([JSONMember("n", $0.jsonValue)]) }, "\(text)")
        }
    }

    /// A member named twice keeps its last value, in the first one's place, whatever names of
    /// the same length stand between.
    @Test func aMemberNamedTwiceKeepsItsLastValue() throws {
        let value = try JSONScanner.value(of: Array(#"{"ab":1,"cd":2,"abc":3,"ab":4,"cd":5}"#.utf8))
        #expect(value == .object([JSONMember("ab", .integer(4)), JSONMember("cd", .integer(5)), JSONMember("abc", .integer(3))]))
    }

    @Test func timesPrintAsTheShortestDecimal() {
        #expect(StreamTime.format(3_000_000) == "3")
        #expect(StreamTime.format(3_500_000) == "3.5")
        #expect(StreamTime.format(1) == "0.000001")
        #expect(StreamTime.format(0) == "0")
        #expect(StreamTime.format(-2_250_000) == "-2.25")
        #expect(StreamTime.format(100_000 + 200_000) == "0.3")
        #expect(StreamTime.format(12_345_678_902) == "12345.678902")
        #expect(StreamTime.format(.min) == "-9223372036854.775808")
        #expect(StreamTime.format(.max) == "9223372036854.775807")
        #expect(StreamTime.format(-500_000) == "-0.5")
        #expect(StreamTime.format(10_000_000) == "10")
    }

    /// The writer goes two digits at a time and cuts the fraction's zeros after writing all
    /// six; it must say what the plain digit-by-digit decimal says, at every digit boundary.
    @Test func timesPrintAsThePlainDecimalDoes() {
        func plain(_ time: Microseconds) -> String {
            let magnitude = time.magnitude
            var text = String(magnitude / 1_000_000)
            var fraction = String(magnitude % 1_000_000)
            if fraction != "0" {
                fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
                while fraction.hasSuffix("0") { fraction.removeLast() }
                text += "." + fraction
            }
            return time < 0 ? "-" + text : text
        }
        var generator = SystemRandomNumberGenerator()
        var times: [Microseconds] = [.min, .max, .max - 1, .min + 1]
        for power in 0...18 {
            let base = (0..<power).reduce(Int64(1)) { product, _ in product * 10 }
            times += [base, base - 1, base + 1, base * 9 / 10, -base, 1 - base]
        }
        for fraction in [1, 10, 100, 1_000, 10_000, 100_000, 101, 1_010, 10_100, 100_001, 999_999, 120_000, 120_300] {
            times += [Int64(fraction), 7_000_000 + Int64(fraction), -Int64(fraction)]
        }
        times += (0..<5_000).map { _ in Int64.random(in: -10_000_000_000...10_000_000_000, using: &generator) }
        times += (0..<1_000).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        for time in times {
            #expect(StreamTime.format(time) == plain(time), "time \(time)")
        }
    }
}

/// The decoder's kept `String`s of values that repeat: whatever the table holds, a value
/// comes back as exactly its own bytes.
@Suite struct StringInternerTests {
    @Test func everyValueComesBackAsItsOwnBytesAmongManyThatShareSlots() {
        var random = InvariantTests.SeededGenerator(state: 5)
        var interner = StringInterner()
        // Few letters and lengths: values of one length and ends meet all the time, around
        // each way a value is kept (under 8 bytes, 8 to 16, longer ones not kept); the
        // decomposed é is a different text from the composed one with the same look.
        let alphabet: [String] = ["a", "b", "\u{E9}", "e\u{301}", "\u{1F50B}", "\0"]
        for _ in 0..<40_000 {
            let length = Int.random(in: 0...12, using: &random)
            let text = (0..<length).map { _ in alphabet.randomElement(using: &random)! }.joined()
            let bytes = Array(text.utf8)
            let kept = bytes.withUnsafeBufferPointer { interner.string($0) }
            #expect(Array(kept.utf8) == bytes, "\(bytes)")
        }
    }
}

/// The word-at-a-time scan that finds where a JSON string's plain run ends (decoder) and what
/// needs escaping (encoders), held to a byte-by-byte model.
@Suite struct JSONStringScanTests {
    @Test func theScanFindsTheFirstQuoteBackslashOrControlByteLikeAPlainLoop() {
        var random = InvariantTests.SeededGenerator(state: 7)
        // Bytes next to the special ones in value, and UTF-8 beyond ASCII.
        let alphabet: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x41, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA0, 0xDC, 0xE3, 0xFF]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<40, using: &random)
            let plain = Int.random(in: 0..<4, using: &random) == 0
            let bytes = (0..<length).map { _ in
                plain ? UInt8.random(in: 0x23...0x5B, using: &random) : alphabet.randomElement(using: &random)!
            }
            let start = Int.random(in: 0...length, using: &random)
            let expected = bytes[start...].firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } ?? length
            let found = bytes.withUnsafeBytes { $0.firstJSONSpecialByte(from: start) }
            #expect(found == expected, "\(bytes) from \(start)")
        }
    }
}

/// The threads' batches: values come out in the order they went in, each once, and those never
/// taken are released with the batch (or when it is emptied for reuse).
@Suite struct HandOverBatchTests {
    private final class Tally { var alive = 0 }

    private final class Counted {
        let number: Int
        let tally: Tally
        init(_ number: Int, _ tally: Tally) {
            self.number = number
            self.tally = tally
            tally.alive += 1
        }
        deinit { tally.alive -= 1 }
    }

    @Test func valuesComeOutInOrderOnceAndTheRestGoWithTheBatch() {
        let tally = Tally()
        do {
            let batch = HandOverBatch<Counted>(capacity: 5)
            for number in 0..<5 { batch.append(Counted(number, tally)) }
            #expect(batch.room == 0)
            #expect(tally.alive == 5)
            #expect(batch.popFirst()?.number == 0)
            #expect(batch.popFirst()?.number == 1)
            #expect(tally.alive == 3)
            #expect(!batch.isEmpty)
        }
        #expect(tally.alive == 0)
        let empty = HandOverBatch<Counted>(capacity: 2)
        #expect(empty.isEmpty && empty.popFirst() == nil)
    }

    /// The writing thread reads a batch in place and hands it back to be emptied and filled again.
    @Test func readInPlaceThenEmptiedForReuse() {
        let tally = Tally()
        let batch = HandOverBatch<Counted>(capacity: 4)
        for number in 0..<4 { batch.append(Counted(number, tally)) }
        _ = batch.popFirst()
        var seen: [Int] = []
        batch.forEach(at: 1..<batch.appended) { seen.append($0.number) }
        #expect(seen == [1, 2, 3])
        #expect(tally.alive == 3)
        batch.removeAll()
        #expect(tally.alive == 0)
        #expect(batch.isEmpty && batch.room == 4)
        batch.append(Counted(9, tally))
        #expect(batch.popFirst()?.number == 9)
    }
}

/// Strings with escapes are decoded into a buffer as long as the rest of their line: every
/// text comes back byte for byte however it is escaped, a string that ends its line included,
/// and broken escapes are errors, never a crash.
@Suite struct JSONEscapedStringTests {
    /// `text` as JSON, each scalar written plainly or escaped (short forms, `\uXXXX`, a
    /// surrogate pair beyond the BMP) as `random` picks.
    private static func escaped(_ text: String, using random: inout InvariantTests.SeededGenerator) -> String {
        var json = "\""
        for scalar in text.unicodeScalars {
            let short: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r",
                                                   "\u{08}": "\\b", "\u{0C}": "\\f", "/": "\\/"]
            let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
            if !mustEscape && Bool.random(using: &random) {
                json.unicodeScalars.append(scalar)
            } else if let form = short[scalar], Bool.random(using: &random) {
                json += form
            } else if scalar.value > 0xFFFF {
                let value = scalar.value - 0x10000
                json += String(format: "\\u%04x\\u%04X", 0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF))
            } else {
                json += String(format: "\\u%04x", scalar.value)
            }
        }
        return json + "\""
    }

    private static func parse(_ json: String) throws -> JSONValue {
        try Array(json.utf8).withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            return try scanner.parseValue(depth: 0)
        }
    }

    @Test func everyTextComesBackWhereverItEndsAndHoweverItIsEscaped() throws {
        var random = InvariantTests.SeededGenerator(state: 19)
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{E9}", "\u{301}",
                                      "\u{4FDD}", "\u{FFFF}", "\u{1F50B}", "\u{10FFFF}"]
        for round in 0..<3_000 {
            let length = round % 100 == 0 ? Int.random(in: 500...3_000, using: &random) : Int.random(in: 0...12, using: &random)
            var text = ""
            for _ in 0..<length { text.unicodeScalars.append(pool[Int.random(in: 0..<pool.count, using: &random)]) }
            let json = Self.escaped(text, using: &random)
            // Alone on its line (the buffer is then exactly as long as the string's rest), and
            // as a member with more after it.
            for line in [json, "{\"m\":" + json + ",\"n\":1}"] {
                let value = try Self.parse(line)
                let decoded: String?
                switch value {
                case .string(let string): decoded = string
                case .object(let members): if case .string(let string)? = members.first?.value { decoded = string } else { decoded = nil }
                default: decoded = nil
                }
                #expect(decoded.map { Array($0.utf8) } == Array(text.utf8), "\(line)")
            }
        }
    }

    @Test func brokenEscapesAreErrors() {
        for json in [#""abc\"#, #""\"#, #""\u12"#, #""\u12g4""#, #""\ud800""#, #""\ud800\u0041""#, #""\udc00""#,
                     #""\x""#, #""a\n"#, "\"a\\n\u{01}\""] {
            #expect(throws: JSONSyntaxError.self, "\(json)") { try Self.parse(json) }
        }
    }
}
