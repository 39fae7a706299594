import Testing
@testable import ToastPipeline

/// `Toast` keeps its fields in a shared copy-on-write box; it must still behave as a value.
@Suite struct ToastValueTests {
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

    @Test func recordsKeepTheToastAsItWasWhenWritten() {
        var toast = Toast(id: "a", message: "First")
        let record = Record.present(toast, at: 0, waited: 0)
        toast.message = "Second"
        guard case .present(let kept, _, _) = record else { Issue.record("not a present"); return }
        #expect(kept.message == "First")
    }
}
