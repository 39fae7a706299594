import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// The decoder's one-pass path for show lines of the common shape gives, line for line, what
/// the general path gives: the same events, toasts, numbering, rejections and typo warnings.
@Suite struct CommonShowPathTests {
    typealias Generator = InvariantTests.SeededGenerator

    /// What decoding `lines` in order gives, each line's outcome as bytes (byte for byte:
    /// `String ==` would let canonically equivalent text pass), then the warnings and the
    /// number of shows.
    static func outcomes(of lines: [[UInt8]], takingCommonShows: Bool, screenField: String?) -> [[UInt8]] {
        var decoder = EventDecoder()
        decoder.takesCommonShows = takingCommonShows
        decoder.screenField = screenField
        var outcomes: [[UInt8]] = []
        for (index, line) in lines.enumerated() {
            let result = line.withUnsafeBufferPointer { decoder.decodeJSON($0, number: index + 1) }
            let outcome: String
            switch result {
            case .success(let event):
                let kind: String
                if case .show(let toast) = event.kind {
                    // With the present record: the one-pass path marks extra text it found
                    // canonical, which the record then copies without looking.
                    var record = ByteBuffer()
                    _ = JSONRecordEncoder().encode(.present(toast, at: 0, waited: 0), into: &record)
                    kind = RoundTripTests.fields(toast).joined(separator: " | ")
                        + " | screen \(String(describing: toast.screenKey)) | " + String(decoding: record.bytes, as: UTF8.self)
                } else {
                    kind = "\(event.kind)"
                }
                outcome = "at \(String(describing: event.at)) line \(event.line) screen \(String(describing: event.screen)): \(kind)"
            case .failure(let rejection):
                outcome = "rejected line \(rejection.line): \(rejection.reason)"
            }
            outcomes.append(Array(outcome.utf8))
        }
        outcomes.append(Array("notes \(decoder.takeNotes())".utf8))
        outcomes.append(Array("shows \(decoder.showCount)".utf8))
        return outcomes
    }

    static func expectSameOutcomes(_ lines: [[UInt8]], screenField: String? = nil) {
        let onePass = outcomes(of: lines, takingCommonShows: true, screenField: screenField)
        let general = outcomes(of: lines, takingCommonShows: false, screenField: screenField)
        #expect(onePass.count == general.count)
        for (index, (fast, slow)) in zip(onePass, general).enumerated() where fast != slow {
            let line = index < lines.count ? String(decoding: lines[index], as: UTF8.self) : "(after the lines)"
            Issue.record("\(line)\n one pass: \(String(decoding: fast, as: UTF8.self))\n general:  \(String(decoding: slow, as: UTF8.self))")
        }
    }

    /// Lines at the edge of the common shape, each on one side of it or the other.
    static let edgeLines = [
        #"{"message":"a"}"#, #"  { "message" : "a" , "role" : "error" }  "#, "{\"message\":\"a\"}\r",
        #"{"type":"show","at":1.5,"id":"x","message":"M","subtitle":"S","role":"warning","source":"net","level":"debug"}"#,
        #"{"message":"a","level":"debug"}"#, #"{"message":"b","level":"info","n":[1,{"a":null}]}"#,
        // Duplicates, escapes and nulls.
        #"{"message":"a","message":"b"}"#, #"{"role":"info","role":"bogus","message":"x"}"#,
        #"{"message":"a","level":1,"level":2}"#, #"{"message":"a\"b"}"#, #"{"mess\u0061ge":"a"}"#,
        #"{"message":"a","subtitle":"\n"}"#, #"{"message":"a","source":"\u00e9"}"#, #"{"message":"a","id":"\\"}"#,
        #"{"message":"a","subtitle":null,"source":null,"role":null,"id":null,"at":null,"type":null}"#,
        // Wrong types and values.
        #"{"message":1}"#, #"{"message":""}"#, #"{"message":"a","role":"nope"}"#, #"{"message":"a","id":5}"#,
        #"{"message":"a","at":"1"}"#, #"{"message":"a","source":true}"#, #"{"message":"a","subtitle":[]}"#,
        #"{"message":"a","role":"Info"}"#,
        // Types.
        #"{"type":"show","message":"a"}"#, #"{"type":"Show","message":"a"}"#, #"{"type":"tap"}"#,
        #"{"type":"sho","message":"a"}"#, #"{"type":"shows","message":"a"}"#, #"{"type":"dismiss","id":"t1"}"#,
        // Times.
        #"{"message":"a","at":1e400}"#, #"{"message":"a","at":-1.5}"#, #"{"message":"a","at":1.0000005}"#,
        #"{"message":"a","at":99999999999999999999}"#, #"{"message":"a","at":12345678901234.5}"#,
        #"{"message":"a","at":2.5e3}"#, #"{"message":"a","at":-0}"#, #"{"message":"a","at":01}"#, #"{"message":"a","at":1.}"#,
        #"{"message":"a","at": 7}"#, #"{"message":"a","at":true}"#,
        // Extra members: typos, nesting, numbers out of range, bad literals.
        #"{"message":"a","levle":"x"}"#, #"{"message":"a","rol":"x"}"#, #"{"message":"a","rol":"y"}"#,
        #"{"message":"a","messages":"x"}"#, #"{"":"x","message":"a"}"#, #"{"message":"a","big":1e999}"#,
        #"{"message":"a","big":123456789012345678901234567890}"#, #"{"message":"a","x":tru}"#,
        #"{"message":"a","deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        // Other show fields, right and wrong; drag fields on a show; screens' field without screens.
        #"{"message":"a","duration":2}"#, #"{"message":"a","placement":"bottom"}"#, #"{"message":"a","duration":null}"#,
        #"{"message":"a","duration":"short"}"#, #"{"message":"a","duration":"brief"}"#, #"{"message":"a","duration":-1}"#,
        #"{"message":"a","duration":0}"#, #"{"message":"a","duration":1e400}"#, #"{"message":"a","priority":2.5}"#,
        #"{"message":"a","priority":2.0}"#, #"{"message":"a","priority":null}"#, #"{"message":"a","placement":"left"}"#,
        #"{"message":"a","policy":"stack"}"#, #"{"message":"a","dismiss_on_tap":1}"#, #"{"message":"a","swipe":null}"#,
        #"{"message":"a","after":-1}"#, #"{"message":"a","after":0.000001}"#, #"{"message":"a","key":null}"#,
        #"{"message":"a","key":"k","key":"k"}"#, #"{"message":"a","dismiss_on_long_press":true,"priority":-3}"#,
        #"{"message":"a","phase":"begin","dy":3}"#, #"{"message":"a","user":"u1"}"#,
        // Not an object, or not one whole object.
        #"{"message":"a"} x"#, #"{"message":"a",}"#, #"{"message":"a""#, #"{}"#, #"[]"#, #""x""#, #"{"message" "a"}"#,
        #"{"subtitle":"a"}"#, #"{"message":"a" "role":"info"}"#,
    ]

    /// The one-pass path marks the extra text of a common line canonical only when it is, so
    /// that its present record may copy it without looking; most lines' are.
    @Test func extraTextIsMarkedCanonicalOnlyWhenItIs() {
        func marked(_ line: String) -> Bool? {
            // The second time: a line takes the one-pass path once its extra names were
            // looked at for typos.
            var decoder = EventDecoder()
            _ = Array(line.utf8).withUnsafeBufferPointer { decoder.decodeJSON($0, number: 1) }
            let result = Array(line.utf8).withUnsafeBufferPointer { decoder.decodeJSON($0, number: 2) }
            guard case .success(let event) = result, case .show(let toast) = event.kind else { return nil }
            let canonical = toast.withExtraText(JSONText.isCanonicalObject) ?? false
            #expect(!toast.extraTextIsKnownCanonical || canonical, "\(line)")
            return toast.extraTextIsKnownCanonical
        }
        for line in [#"{"message":"a","level":"debug"}"#, #"{"message":"a","level":"debug","user":"u1","n":3,"ok":true}"#,
                     #"{"message":"a","build":{"number":4652,"ok":false},"tags":["x",[]]}"#] {
            #expect(marked(line) == true, "\(line)")
        }
        for line in [#"{"message":"a","level": "debug"}"#, #"{"message":"a","level" :"debug"}"#, #"{"message":"a","n":1.5}"#,
                     #"{"message":"a","level":"de\u0062ug"}"#, #"{"message":"a","level":"x","level":"y"}"#,
                     #"{"message":"a","b":{"x":1,"x":2}}"#, #"{"message":"a","b":[1, 2]}"#,
                     #"{"message":"a","a1":1,"a2":2,"a3":3,"a4":4,"a5":5,"a6":6,"a7":7,"a8":8,"a9":9}"#] {
            #expect(marked(line) == false, "\(line)")
        }
    }

    @Test func linesAtTheEdgeOfTheCommonShape() {
        // Twice over: the second time every extra name has been looked at for typos.
        Self.expectSameOutcomes((Self.edgeLines + Self.edgeLines).map { Array($0.utf8) })
    }

    /// With screens on, named by an extra field or by a show field.
    @Test(arguments: ["user", "source"])
    func linesWithScreens(field: String) {
        let screens = [
            #"{"message":"a","user":"u1"}"#, #"{"message":"a","user":7}"#, #"{"message":"a","user":7.0}"#,
            #"{"message":"a","user":7.5}"#, #"{"message":"a","user":null}"#, #"{"message":"a","user":true}"#,
            #"{"message":"a","user":[1]}"#, #"{"message":"a","user":{"id":1}}"#, #"{"message":"a","user":"u1","user":"u2"}"#,
            #"{"message":"a","user":"u"}"#, #"{"message":"a","user":1e400}"#, #"{"message":"a","user":""}"#,
            #"{"message":"a","source":"s","user":"u3","level":"x"}"#, #"{"type":"tap","user":"u1"}"#, #"{"type":"tick"}"#,
        ]
        Self.expectSameOutcomes((screens + Self.edgeLines + screens).map { Array($0.utf8) }, screenField: field)
    }

    @Test func theExamplesStreams() throws {
        let examples = packageRoot.appendingPathComponent("examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".jsonl") }.sorted()
        #expect(names.count >= 5)
        for name in names {
            let text = try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
            Self.expectSameOutcomes(text.split(separator: "\n").map { Array($0.utf8) })
        }
    }

    /// Random lines of the common shape, many of them just off it: text with escapes, a
    /// member twice, a role no one defined, more than 32 extra names.
    @Test(arguments: [31, 32] as [UInt64])
    func randomCommonLines(seed: UInt64) {
        var random = Generator(state: seed)
        var lines: [[UInt8]] = []
        for index in 1...3_000 {
            var members: [(String, JSONValue)] = []
            func text() -> JSONValue {
                Int.random(in: 0..<8, using: &random) == 0 ? .string(RoundTripTests.randomText(&random))
                    : .string(["disk full", "Copied", "Новое", "😀 done", ""].randomElement(using: &random)!)
            }
            if Bool.random(using: &random) { members.append(("type", .string("show"))) }
            if Bool.random(using: &random) { members.append(("at", .number(Double(index) / 8))) }
            if Int.random(in: 0..<4, using: &random) == 0 { members.append(("id", text())) }
            members.append(("message", text()))
            if Bool.random(using: &random) { members.append(("subtitle", text())) }
            if Bool.random(using: &random) {
                members.append(("role", .string(["info", "success", "warning", "error", "fatal"].randomElement(using: &random)!)))
            }
            if Bool.random(using: &random) { members.append(("source", text())) }
            if Int.random(in: 0..<4, using: &random) == 0 {
                let others: [(String, JSONValue)] = [
                    ("duration", .number(2.5)), ("duration", .string("long")), ("duration", .null), ("duration", .integer(-2)),
                    ("after", .number(0.25)), ("placement", .string("center")), ("placement", .string("side")),
                    ("policy", .string("replace")), ("priority", .integer(3)), ("priority", .number(1.5)),
                    ("key", text()), ("dismiss_on_tap", .bool(false)), ("swipe", .string("no")),
                ]
                members.append(others.randomElement(using: &random)!)
            }
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                members.append(("x\(Int.random(in: 0..<40, using: &random))", RoundTripTests.randomValue(&random)))
            }
            if Int.random(in: 0..<20, using: &random) == 0, let repeated = members.randomElement(using: &random) {
                members.append(repeated)
            }
            members.shuffle(using: &random)
            var line: [UInt8] = []
            JSONText.appendObject(members.map { JSONMember($0.0, $0.1) }, to: &line)
            lines.append(line)
        }
        Self.expectSameOutcomes(lines)
    }
}
