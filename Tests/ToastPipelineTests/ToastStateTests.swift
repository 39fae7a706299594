import Testing
@testable import ToastCore
@testable import ToastIO

/// A toast saved for `--state` and made again from what was saved is the same toast: the same
/// saved form, and the same bytes in every record it can be in.
@Suite struct ToastStateTests {
    /// The records a toast can be in, as JSON Lines bytes.
    private func recordBytes(_ toast: Toast) -> [UInt8] {
        var bytes = ByteBuffer()
        let encoder = JSONRecordEncoder()
        _ = encoder.encode(.present(toast, at: 5_000_000, waited: 1_500_000), into: &bytes)
        _ = encoder.encode(.dismiss(toast, at: 8_000_000, reason: .timeout, shown: 3_000_000), into: &bytes)
        _ = encoder.encode(.drop(toast, at: 9_000_000, Drop(stage: "dedup", reason: .duplicate, of: "t0")), into: &bytes)
        return bytes.bytes
    }

    private func decoded(_ line: String, screenField: String? = nil) throws -> Toast {
        var decoder = EventDecoder()
        decoder.screenField = screenField
        let result = Array(line.utf8).withUnsafeBufferPointer { decoder.decodeJSON($0, number: 7) }
        guard case .success(let event) = result, case .show(let toast) = event.kind else {
            throw SavedStateError("not a show: \(line)")
        }
        return toast
    }

    @Test(arguments: [
        #"{"message":"Saved","at":1.5}"#,
        #"{"id":"x","message":"Süß 😀 \"quoted\"\n","subtitle":"sub","role":"error","source":"net","key":"k","priority":3}"#,
        #"{"message":"M","duration":null,"after":2,"placement":"bottom","policy":"replace","dismiss_on_tap":false,"swipe":false}"#,
        #"{"message":"M","level":"debug","n":{"a":[1,2.5,true,null]},"build":"b 1"}"#,
        #"{"message":"M", "spaced" : 1e3, "user":"u7"}"#,
        #"{"message":"M","user":42}"#,
    ])
    func aDecodedToastComesBackAsItWas(line: String) throws {
        let toast = try decoded(line, screenField: "user")
        let restored = try Toast(savedState: toast.savedState)
        #expect(restored.savedState == toast.savedState)
        #expect(recordBytes(restored) == recordBytes(toast))
    }

    @Test func whatTheStagesAddedComesBackToo() throws {
        var toast = try decoded(#"{"message":"Disk full","subtitle":"/var","role":"warning","n":1}"#)
        toast.style = AppliedStyle(symbol: "exclamationmark.triangle.fill", glyph: "⚠", color: "orange")
        toast.madeBy = "digest"
        toast.priority = 1
        toast.message = "Disk full (twice)"
        toast.announce(label: "Warning")
        let restored = try Toast(savedState: toast.savedState)
        #expect(restored.savedState == toast.savedState)
        #expect(recordBytes(restored) == recordBytes(toast))
        #expect(restored.announcement == "Warning: Disk full (twice), /var")
        #expect(restored.madeBy == "digest" && restored.atMicros == toast.atMicros && restored.inputLine == 7)
    }

    /// A restart reads a saved toast straight from its text (`Toast(scanningSaved:)`): in the
    /// form a run writes, it is the toast `init(savedState:)` makes of the same text; in any
    /// other form it is nil (and the value is read instead, which says what is wrong).
    @Test func aToastReadFromItsTextIsTheToastItsValueMakes() throws {
        var toasts = try [
            #"{"message":"Saved","at":1.5}"#,
            #"{"id":"x","message":"Süß 😀 \"quoted\"\n","subtitle":"sub","role":"error","source":"net","key":"k","priority":3}"#,
            #"{"message":"M","duration":null,"after":2,"placement":"bottom","policy":"replace","dismiss_on_tap":false}"#,
            #"{"message":"M","level":"debug","n":{"a":[1,2.5,true,null]},"build":"b 1","user":"u7"}"#,
            #"{"message":"M","user":42,"at":2000000000000.5}"#,
        ].map { try decoded($0, screenField: "user") }
        var styled = toasts[1]
        styled.style = AppliedStyle(symbol: "xmark.octagon.fill", glyph: "✖", color: "red")
        styled.madeBy = "digest"
        styled.announce(label: "Error")
        var announced = toasts[3]
        announced.announcement = "Read this"
        toasts += [styled, announced]
        for toast in toasts {
            let text = JSONText.encode(toast.savedState)
            let read = Array(text.utf8).withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                return Toast(scanningSaved: &scanner).map { ($0, scanner.isAtEnd) }
            }
            let (fromText, atEnd) = try #require(read, "\(text)")
            #expect(atEnd)
            #expect(fromText.savedState == (try Toast(savedState: toast.savedState)).savedState)
            #expect(recordBytes(fromText) == recordBytes(toast))
        }
        for other in [#"{"extra":{},"fields":{"message":"M"},"at":0,"input_line":0}"#,
                      #"{"fields":{"message":"M"},"extra":{},"at":0,"input_line":0,"screen":"a","style":{"symbol":"s","glyph":"g","color":"c"}}"#,
                      #"{"fields":{"message":"M"},"extra":{},"at":0.5,"input_line":0}"#,
                      #"{"fields":{"message":"M","wat":1},"extra":{},"at":0,"input_line":0}"#,
                      #"{"fields":{"message":"M"},"extra":{},"at":0,"input_line":0,"later":1}"#] {
            let read = Array(other.utf8).withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                return Toast(scanningSaved: &scanner)
            }
            #expect(read == nil, "\(other)")
        }
    }

    @Test func aSavedToastKeepsOnlyTheFieldsThatAreNotANewToasts() {
        var toast = Toast(id: "t1", message: "M", role: "warning", duration: nil)
        toast.set(.dismissOnLongPress, to: .flag(true))
        #expect(JSONText.encode(toast.savedState)
                == #"{"fields":{"id":"t1","message":"M","role":"warning","duration":null,"dismiss_on_long_press":{"flag":true}},"extra":{},"at":0,"input_line":0}"#)
    }

    @Test func aToastSavedWithEveryFieldTaggedReadsBackTheSame() throws {
        let toast = try decoded(#"{"id":"x","message":"M","subtitle":"s","role":"error","duration":null,"swipe":false,"user":"u7"}"#)
        // The form of every field, each tagged by kind, that a state written before held.
        let tagged = #"{"fields":{"id":{"text":"x"},"message":{"text":"M"},"subtitle":{"text":"s"},"role":{"text":"error"},"#
            + #""duration":null,"after":{"time":0},"placement":{"text":"top"},"policy":{"text":"enqueue"},"priority":null,"#
            + #""source":null,"key":null,"dismiss_on_tap":{"flag":true},"dismiss_on_long_press":{"flag":false},"#
            + #""swipe":{"flag":false},"at":{"time":0}},"extra":{"user":"u7"},"at":0,"input_line":7}"#
        let restored = try Toast(savedState: try JSONScanner.value(of: Array(tagged.utf8)))
        #expect(restored.savedState == toast.savedState)
        #expect(recordBytes(restored) == recordBytes(toast))
    }

    @Test func aDamagedSavedToastSaysWhatIsWrong() {
        #expect(throws: SavedStateError("toast is not an object")) { try Toast(savedState: .string("x")) }
        #expect(throws: SavedStateError("toast has no fields")) { try Toast(savedState: .object([])) }
        func withField(_ name: String, _ value: JSONValue) -> JSONValue {
            guard case .object(var members) = Toast(id: "t1", message: "M").savedState,
                  case .object(let fields) = members[0].value else { return .null }
            members[0].value = .object(fields + [JSONMember(name, value)])
            return .object(members)
        }
        #expect(throws: SavedStateError("toast.fields.duration is not a value this field holds")) {
            try Toast(savedState: withField("duration", .object([JSONMember("text", .string("3"))])))
        }
        #expect(throws: SavedStateError("toast.fields.duration is not a saved field value")) {
            try Toast(savedState: withField("duration", .string("3")))
        }
        #expect(throws: SavedStateError("toast.fields.nope is not a field a saved toast has")) {
            try Toast(savedState: withField("nope", .integer(1)))
        }
    }
}
