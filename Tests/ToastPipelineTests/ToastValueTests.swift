import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// `Toast` keeps its fields in a shared copy-on-write storage, a decoded one with its text as
/// the bytes that came in; it must still behave as a value, and the bytes must read as the
/// strings they stand for.
@Suite struct ToastValueTests {
    /// A style shares its texts between copies, but is a value: equal by its texts, and a
    /// change to one copy leaves the others as they were.
    @Test func anAppliedStyleIsAValueThoughItsTextsAreShared() {
        let style = AppliedStyle(symbol: "info.circle.fill", glyph: "ℹ", color: "blue")
        var changed = style
        changed.color = "teal"
        #expect(style.color == "blue" && changed.color == "teal" && changed.symbol == style.symbol && changed.glyph == "ℹ")
        #expect(style != changed)
        #expect(style == AppliedStyle(symbol: "info.circle.fill", glyph: "ℹ", color: "blue"))
        changed.color = "blue"
        #expect(style == changed)
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        var original = Toast(id: "a", message: "Saved", extra: [JSONMember("n", .array([.integer(1)]))])
        var copy = original
        copy.message = "Changed"
        copy.extra.append(JSONMember("more", .bool(true)))
        copy.extra[0].value = .null
        copy.style = AppliedStyle(symbol: "s", glyph: "g", color: "c")
        #expect(original.message == "Saved")
        #expect(original.extra == [JSONMember("n", .array([.integer(1)]))])
        #expect(original.style == nil)
        #expect(copy.extra == [JSONMember("n", .null), JSONMember("more", .bool(true))])
        original.priority = 3
        #expect(copy.priority == nil)
        #expect(copy.message == "Changed")
    }

    /// The field schema: every field a line or a script may set is read back as it was set,
    /// through the same name, and a trace names it as changed (a field missing from
    /// `Toast.set` or `Toast.withValue` fails here).
    @Test(arguments: ToastField.settable)
    func everySettableFieldReadsBackWhatWasSet(field: ToastField) {
        let original = Toast(id: "a", message: "Saved")
        let value: Toast.FieldValue = switch field.kind {
        case .identifier, .message, .subtitle, .optionalText: .text("changed")
        case .role: .text("error")
        case .duration, .delay: .time(1_500_000)
        case .choice: .text(field.choices[field.choices.count - 1])
        case .priority: .integer(7)
        case .flag: original.value(of: field) == .flag(true) ? .flag(false) : .flag(true)
        case .eventType, .arrivalTime: .absent
        }
        var toast = original
        toast.set(field, to: value)
        #expect(toast.value(of: field) == value)
        #expect(toast.value(of: field) != original.value(of: field))
        #expect(toast.changedFields(since: original) == [field.name])
    }

    /// Every field is found by its name, and by its bytes in a line.
    @Test(arguments: ToastField.allCases)
    func everyFieldIsFoundByItsName(field: ToastField) {
        #expect(ToastField(named: field.name) == field)
        #expect(EventFieldName(named: field.name) == .show(field))
        #expect(Array(field.name.utf8).withUnsafeBufferPointer(EventFieldName.init) == .show(field))
    }

    /// Extra fields kept as the line's text are compared by their bytes first, then as values:
    /// the same text, or the same values written differently, is no change.
    @Test func changedExtraFieldsAreFoundInStoredTextByValue() {
        func decoded(_ line: String) -> Toast? {
            var decoder = EventDecoder()
            var bytes = Array(line.utf8)
            let result = bytes.withUnsafeMutableBufferPointer { decoder.decodeJSON(UnsafeBufferPointer($0), number: 1) }
            guard case .success(let event) = result, case .show(let toast) = event.kind else { return nil }
            return toast
        }
        guard let base = decoded(#"{"message":"M","level":"debug","n":{"a":[1,2]}}"#),
              let same = decoded(#"{"message":"M","level":"debug","n":{"a":[1,2]}}"#),
              let spaced = decoded(#"{"message":"M", "level" : "debug", "n": {"a": [1, 2]}}"#),
              let changed = decoded(#"{"message":"M","level":"info","n":{"a":[1,2]}}"#),
              let added = decoded(#"{"message":"M","level":"debug","n":{"a":[1,2]},"x":1}"#) else {
            Issue.record("a line did not decode")
            return
        }
        #expect(same.changedFields(since: base) == [])
        #expect(spaced.changedFields(since: base) == [])
        #expect(changed.changedFields(since: base) == ["level"])
        #expect(added.changedFields(since: base) == ["x"])
    }

    @Test func recordsKeepTheToastAsItWasWhenWritten() {
        var toast = Toast(id: "a", message: "First")
        let record = Record.present(toast, at: 0, waited: 0)
        toast.message = "Second"
        guard case .present(let kept, _, _) = record else { Issue.record("not a present"); return }
        #expect(kept.message == "First")
    }

    /// A toast decoded from a JSON line, through a show batch, as the run loop makes it.
    private func decoded(_ line: String) -> Toast? {
        var decoder = EventDecoder()
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            guard case .success(.show(let show)) = decoder.decodeJSON(UnsafeBufferPointer(buffer), number: 1, batch: ShowBatch()) else {
                return nil
            }
            // The line's memory is gone before the toast is made: the toast must not point into it.
            buffer.update(repeating: 0)
            return show.makeToast()
        }
    }

    @Test func aDecodedToastReadsItsStoredTextAsStrings() throws {
        let toast = try #require(decoded(#"{"message":"Grüße 👋","subtitle":"","x":"a\nb","x":1,"n":{"a":[1,"z"]},"e":"\u00e9"}"#))
        #expect(toast.message == "Grüße 👋")
        #expect(toast.subtitle == "")
        // The last of duplicates counts, in the first one's place, as in any decoded object.
        #expect(toast.extra == [JSONMember("x", .integer(1)), JSONMember("n", .object([JSONMember("a", .array([.integer(1), .string("z")]))])),
                                JSONMember("e", .string("é"))])
        #expect(toast.extraValue("x") == .integer(1))
        #expect(toast.extraValue("e") == .string("é"))
        #expect(toast.extraValue("n") == .object([JSONMember("a", .array([.integer(1), .string("z")]))]))
        #expect(toast.extraValue("missing") == nil)
        let escaped = try #require(decoded(#"{"message":"tab\there \"q\"","subtitle":"s\u0301"}"#))
        #expect(escaped.message == "tab\there \"q\"")
        #expect(escaped.subtitle == "s\u{301}")
    }

    @Test func aChangedDecodedToastLeavesItsCopyAndItsTextAsTheyWere() throws {
        let original = try #require(decoded(#"{"message":"Saved","subtitle":"Report.pdf","level":"info"}"#))
        var copy = original
        copy.subtitle = nil
        copy.extra.append(JSONMember("more", .bool(true)))
        #expect(original.subtitle == "Report.pdf")
        #expect(original.extra == [JSONMember("level", .string("info"))])
        #expect(copy.message == "Saved")
        #expect(copy.extra == [JSONMember("level", .string("info")), JSONMember("more", .bool(true))])
    }

    @Test func theStandardAnnouncementSaysWhatMessageAndSubtitleWereWhenItWasSet() throws {
        var toast = try #require(decoded(#"{"message":"Saved","subtitle":"Report.pdf"}"#))
        toast.announce(label: "Success")
        #expect(toast.announcement == "Success: Saved, Report.pdf")
        toast.message = "Changed later"
        toast.subtitle = nil
        #expect(toast.announcement == "Success: Saved, Report.pdf")
        var plain = Toast(id: "t", message: "M", subtitle: "")
        plain.announce(label: "")
        #expect(plain.announcement == "M")
        // A JSON record writes it from the message and subtitle it wrote (no `, ` for an
        // empty subtitle, no `: ` for an empty label).
        var buffer = ByteBuffer()
        _ = JSONRecordEncoder().encode(.present(plain, at: 0, waited: 0), into: &buffer)
        #expect(String(decoding: buffer.bytes, as: UTF8.self).contains(#","announcement":"M","#))
    }

    @Test func theRepeatCheckComparesMessagesAsStringsDo() throws {
        // "é" precomposed and as e + combining accent are equal Swift strings, with other bytes.
        let precomposed = try #require(decoded(#"{"message":"caf\u00e9"}"#))
        let combining = try #require(decoded(#"{"message":"cafe\u0301"}"#))
        let plain = try #require(decoded(#"{"message":"café"}"#))
        #expect(precomposed.hasEqualMessage(to: combining))
        #expect(precomposed.hasEqualMessage(to: plain))
        #expect(!plain.hasEqualMessage(to: try #require(decoded(#"{"message":"cafe"}"#))))
        #expect(precomposed.message == combining.message)
    }
}

/// What a plugin stage reads its saved state with (docs/plugins.md, section 8).
@Suite struct JSONValueAccessorTests {
    @Test func eachAccessorGivesItsKindAndNilForAnyOther() {
        let saved: JSONValue = .object([
            JSONMember("count", .integer(3)), JSONMember("ratio", .number(0.5)), JSONMember("on", .bool(true)),
            JSONMember("name", .string("sync")), JSONMember("held", .array([.integer(1), .integer(2)])),
            JSONMember("huge", .integer(Int64.max)),
        ])
        #expect(saved[member: "count"]?.intValue == 3)
        #expect(saved[member: "count"]?.doubleValue == 3)
        #expect(saved[member: "ratio"]?.doubleValue == 0.5)
        #expect(saved[member: "ratio"]?.intValue == nil)
        #expect(saved[member: "on"]?.boolValue == true)
        #expect(saved[member: "name"]?.stringValue == "sync")
        #expect(saved[member: "name"]?.boolValue == nil)
        #expect(saved[member: "held"]?.arrayValue == [.integer(1), .integer(2)])
        #expect(saved[member: "huge"]?.intValue == Int(exactly: Int64.max))
        #expect(saved.objectValue?.map(\.name) == ["count", "ratio", "on", "name", "held", "huge"])
        #expect(saved[member: "absent"] == nil)
        #expect(JSONValue.array([])[member: "count"] == nil)
        #expect(JSONValue.null.arrayValue == nil && JSONValue.null.objectValue == nil)
    }
}
