import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// Property tests of the byte-level reader and writer (issue 5): random toasts, with every
/// kind of text JSON can carry, written as show events and read back are themselves; written
/// as `present` records they read back field for field.
@Suite struct RoundTripTests {
    typealias Generator = InvariantTests.SeededGenerator

    /// Text with what escaping must get right: quotes, backslashes, control characters,
    /// `/`, non-ASCII, astral-plane emoji and U+2028.
    static func randomText(_ random: inout Generator, nonEmpty: Bool = false) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1f}", "\u{7f}", "é", "日本",
                      "😀", "\u{2028}", "e\u{301}", "{", "}", ":", ",", "0", "-"]
        let count = Int.random(in: (nonEmpty ? 1 : 0)...12, using: &random)
        return (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func randomValue(_ random: inout Generator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth < 3 ? 8 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 3:
            // Finite and not integral (integral doubles print as integers).
            var number: Double
            repeat { number = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random)) }
            while !number.isFinite || number.rounded() == number
            return .number(number)
        case 4, 5: return .string(randomText(&random))
        case 6:
            return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var members: [JSONMember] = []
            for index in 0..<Int.random(in: 0...3, using: &random) {
                members.append(JSONMember(randomText(&random) + "#\(index)", randomValue(&random, depth: depth + 1)))
            }
            return .object(members)
        }
    }

    static func randomToast(_ random: inout Generator, index: Int) -> Toast {
        func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &random) ? make() : nil }
        var toast = Toast(id: randomText(&random, nonEmpty: true), message: randomText(&random, nonEmpty: true))
        toast.subtitle = maybe { randomText(&random) }
        toast.role = ["info", "success", "warning", "error"].randomElement(using: &random)!
        toast.durationMicros = maybe { Microseconds.random(in: 1...1_000_000_000_000, using: &random) }
        toast.afterMicros = Microseconds.random(in: 0...1_000_000_000, using: &random)
        toast.placement = Placement.allCases.randomElement(using: &random)!
        toast.policy = Policy.allCases.randomElement(using: &random)!
        toast.priority = maybe { Int.random(in: -1_000_000...1_000_000, using: &random) }
        toast.source = maybe { randomText(&random) }
        toast.key = maybe { randomText(&random) }
        toast.dismissOnTap = Bool.random(using: &random)
        toast.dismissOnLongPress = Bool.random(using: &random)
        toast.swipe = Bool.random(using: &random)
        toast.extra = (0..<Int.random(in: 0...3, using: &random)).map { position in
            JSONMember("x" + randomText(&random) + "\(position)", randomValue(&random))
        }
        toast.inputLine = index
        return toast
    }

    /// A toast as the show event that brings it in, written with the library's JSON writer.
    static func showLine(_ toast: Toast) -> [UInt8] {
        var out: [UInt8] = []
        out.appendLiteral(#"{"type":"show","id":"#)
        JSONText.appendString(toast.id, to: &out)
        func field(_ name: StaticString, _ value: JSONValue) {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(name.description, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendValue(value, to: &out)
        }
        func time(_ name: StaticString, _ micros: Microseconds?) {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(name.description, to: &out)
            out.append(UInt8(ascii: ":"))
            if let micros { StreamTime.append(micros, to: &out) } else { out.appendLiteral("null") }
        }
        field("message", .string(toast.message))
        if let subtitle = toast.subtitle { field("subtitle", .string(subtitle)) }
        field("role", .string(toast.role))
        time("duration", toast.durationMicros)
        time("after", toast.afterMicros)
        field("placement", .string(toast.placement.rawValue))
        field("policy", .string(toast.policy.rawValue))
        if let priority = toast.priority { field("priority", .integer(Int64(priority))) }
        if let source = toast.source { field("source", .string(source)) }
        if let key = toast.key { field("key", .string(key)) }
        field("dismiss_on_tap", .bool(toast.dismissOnTap))
        field("dismiss_on_long_press", .bool(toast.dismissOnLongPress))
        field("swipe", .bool(toast.swipe))
        for member in toast.extra {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(member.name, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendValue(member.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Every field, for comparing toasts with a readable difference.
    static func fields(_ toast: Toast) -> [String] {
        ["id \(toast.id.debugDescription)", "message \(toast.message.debugDescription)",
         "subtitle \(String(describing: toast.subtitle?.debugDescription))", "role \(toast.role)",
         "duration \(String(describing: toast.durationMicros))", "after \(toast.afterMicros)", "placement \(toast.placement)",
         "policy \(toast.policy)", "priority \(String(describing: toast.priority))",
         "source \(String(describing: toast.source?.debugDescription))", "key \(String(describing: toast.key?.debugDescription))",
         "tap \(toast.dismissOnTap)", "long \(toast.dismissOnLongPress)", "swipe \(toast.swipe)",
         "extra \(toast.extra)", "line \(toast.inputLine)"]
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func toastsWrittenAsShowEventsReadBackAsThemselves(seed: UInt64) {
        var random = Generator(state: seed)
        var decoder = EventDecoder()
        for index in 1...2_000 {
            let toast = Self.randomToast(&random, index: index)
            let line = Self.showLine(toast)
            let result = line.withUnsafeBufferPointer { decoder.decodeJSON($0, number: index) }
            guard case .success(let event) = result, case .show(let decoded) = event.kind else {
                Issue.record("\(String(decoding: line, as: UTF8.self)) was not read back: \(result)")
                return
            }
            // Byte for byte: `String ==` would let canonically equivalent text pass.
            #expect(Self.fields(decoded).map { Array($0.utf8) } == Self.fields(toast).map { Array($0.utf8) },
                    "\(String(decoding: line, as: UTF8.self))")
        }
    }

    @Test(arguments: [21, 22] as [UInt64])
    func presentRecordsReadBackFieldForField(seed: UInt64) throws {
        var random = Generator(state: seed)
        let encoder = JSONRecordEncoder()
        for index in 1...2_000 {
            var toast = Self.randomToast(&random, index: index)
            toast.style = AppliedStyle(symbol: Self.randomText(&random), glyph: Self.randomText(&random), color: Self.randomText(&random))
            // A text, or the standard one the JSON writer makes from the message and subtitle
            // it wrote (with a label, perhaps an empty one).
            if Bool.random(using: &random) {
                toast.announcement = Self.randomText(&random)
            } else {
                toast.announce(label: Self.randomText(&random))
            }
            let at = Microseconds.random(in: 0...1_000_000_000_000, using: &random)
            let waited = Microseconds.random(in: 0...1_000_000_000, using: &random)
            var buffer = ByteBuffer()
            _ = encoder.encode(.present(toast, at: at, waited: waited), into: &buffer)
            let line = buffer.bytes
            #expect(line.last == 0x0A)
            let parsed = line.dropLast().withUnsafeBufferPointer { bytes -> JSONValue? in
                var scanner = JSONScanner(bytes)
                guard isValidUTF8(bytes), let value = try? scanner.parseValue(), scanner.isAtEnd else { return nil }
                return value
            }
            guard case .object(let members)? = parsed else {
                Issue.record("not one strict JSON object: \(String(decoding: line, as: UTF8.self))")
                return
            }
            func value(_ name: String) -> JSONValue? { members.first { $0.name == name }?.value }
            /// Byte for byte: `JSONValue ==` compares strings by canonical equivalence.
            func same(_ read: JSONValue?, _ written: JSONValue?) -> Bool {
                read.map { Array(JSONText.encode($0).utf8) } == written.map { Array(JSONText.encode($0).utf8) }
            }
            func micros(_ name: String) -> Microseconds? {
                switch value(name) {
                case .integer(let number)?: return number * StreamTime.perSecond
                case .number(let number)?: return StreamTime.microseconds(fromSeconds: number)
                default: return nil
                }
            }
            #expect(members.map(\.name) == ["event", "t", "id", "message"] + (toast.subtitle == nil ? [] : ["subtitle"])
                    + ["role", "placement", "policy", "priority", "duration", "symbol", "glyph", "color", "announcement", "waited"]
                    + (toast.source == nil ? [] : ["source"]) + (toast.extra.isEmpty ? [] : ["extra"]))
            #expect(same(value("event"), .string("present")))
            #expect(micros("t") == at)
            #expect(micros("waited") == waited)
            #expect(same(value("id"), .string(toast.id)))
            #expect(same(value("message"), .string(toast.message)))
            #expect(same(value("subtitle"), toast.subtitle.map(JSONValue.string)))
            #expect(same(value("role"), .string(toast.role)))
            #expect(same(value("placement"), .string(toast.placement.rawValue)))
            #expect(same(value("policy"), .string(toast.policy.rawValue)))
            #expect(same(value("priority"), .integer(Int64(toast.priority ?? 0))))
            #expect(toast.durationMicros == nil ? value("duration") == .null : micros("duration") == toast.durationMicros)
            #expect(same(value("symbol"), .string(toast.style?.symbol ?? "")))
            #expect(same(value("announcement"), .string(toast.announcement ?? "")))
            #expect(same(value("source"), toast.source.map(JSONValue.string)))
            if !toast.extra.isEmpty { #expect(same(value("extra"), .object(toast.extra))) }
        }
    }
}

/// A toast's extra fields go into a `present` record as the bytes they came in with only when
/// those bytes are exactly what writing the members again would give.
@Suite struct CanonicalObjectTextTests {
    private func isCanonical(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes(JSONText.isCanonicalObject)
    }

    private func rewritten(_ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            var out: [UInt8] = []
            JSONText.appendObject((try? scanner.parseObject(depth: 0)) ?? [], to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    @Test func theFormsOfOrdinaryLinesAreCopiedAndTheOthersWrittenAgain() {
        for text in [#"{"level":"debug"}"#, #"{"n":3,"ok":true,"gone":null,"no":false}"#, #"{"neg":-12,"zero":0}"#,
                     #"{"日本":"é 😀 /"}"#, #"{"n":123456789012345678}"#, #"{"a":[1]}"#, #"{"a":{"b":1}}"#,
                     #"{"build":{"number":4652,"ok":false},"tags":["x",[],{}]}"#, #"{"a":{"b":{"c":{"d":1}}}}"#] {
            #expect(isCanonical(text), "\(text)")
            #expect(rewritten(text) == text)
        }
        for text in [#"{"level": "debug"}"#, #"{ "a":1}"#, #"{"a":1 }"#, #"{"a":"\u00e9"}"#, #"{"a\"b":1}"#,
                     #"{"a":1.5}"#, #"{"a":1e3}"#, #"{"a":-0}"#, #"{"a":1234567890123456789}"#, #"{"a":[1, 2]}"#,
                     #"{"a":{"b":1,"b":2}}"#, #"{"a":[{"x":1.5}]}"#, #"{"a":{"b":{"c":{"d":{}}}}}"#,
                     #"{"a":1,"a":2}"#, #"{"b":1,"a":2,"b":3}"#, "{}", #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#] {
            #expect(!isCanonical(text), "\(text)")
        }
    }

    /// Random objects in every form: whenever the check says the text is written as it is,
    /// writing its members again gives the same bytes.
    @Test func aCopiedTextIsAlwaysWhatWritingItAgainGives() {
        var random = InvariantTests.SeededGenerator(state: 23)
        let names = ["a", "b", "level", "é", "a\\\"b", "\\u0061"]
        let values = ["1", "-1", "0", "-0", "1.0", "2.5", "1e2", "12345678901234567890", "true", "false", "null",
                      "\"x\"", "\"\\n\"", "\"\\u00e9\"", "\"日本\"", "[]", "[1,2]", "{}", "{\"x\":1}", "{\"x\":1,\"x\":2}",
                      "[1, 2]", "{\"x\": 1}", "[{\"x\":1,\"x\":2}]", "[[],[{}]]", "{\"x\":[1.5]}", "{\"x\":{\"y\":[true,null]}}",
                      "[[[[1]]]]", "[[[[]]]]"]
        let spaces = ["", "", "", " "]
        var copied = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...4, using: &random)
            let members = (0..<count).map { _ in
                "\"" + names.randomElement(using: &random)! + "\"" + spaces.randomElement(using: &random)! + ":"
                    + spaces.randomElement(using: &random)! + values.randomElement(using: &random)!
            }
            let text = "{" + members.joined(separator: ",") + "}"
            if isCanonical(text) {
                copied += 1
                #expect(rewritten(text) == text, "\(text)")
            }
        }
        #expect(copied > 500)
    }
}
