import Testing
@testable import ToastCore

/// A drop keeps a built-in stage or reason as a word and the rest (the other toast, the rule,
/// the note) in one shared reference: none of that shows through its public fields, its
/// copies or its equality.
@Suite struct DropTests {
    @Test func aDropIsAValueWhateverItKeepsInside() {
        var drop = Drop(stage: "dedup", reason: .duplicate, of: "t1")
        let copy = drop
        drop.note = "seen before"
        drop.rule = "no repeats"
        #expect(copy.note == nil && copy.rule == nil && copy.of == "t1")
        #expect(drop.of == "t1" && drop.note == "seen before" && drop.rule == "no repeats")
        // One link at a time: setting `by` replaces `of`, nil removes it.
        drop.by = "t9"
        #expect(drop.of == nil && drop.by == "t9" && drop.into == nil)
        drop.by = nil
        #expect(drop.of == nil && drop.by == nil && drop.rule == "no repeats")
        // Equal by contents, however each was made.
        var other = Drop(stage: "dedup", reason: DropReason(rawValue: "duplicate"), rule: "no repeats")
        #expect(other != drop)
        other.note = "seen before"
        #expect(other == drop)
        other.note = nil
        other.rule = nil
        #expect(other == Drop(stage: .dedup, reason: .duplicate))
    }

    @Test func aStageOrReasonThatSpellsABuiltInWordIsThatWord() {
        #expect(Drop(stage: "host", reason: "evicted") == Drop(stage: .host, reason: .evicted))
        #expect(DropReason("rate_limited") == .rateLimited)
        #expect(DropReason("rate_limited").hashValue == DropReason.rateLimited.hashValue)
        var plugin = Drop(stage: "night_hold", reason: "held")
        #expect(plugin.stage == "night_hold" && plugin.reason.rawValue == "held")
        plugin.stage = "rule"
        plugin.reason.rawValue = "capped"
        #expect(plugin.stageLabel == .word(.rule) && plugin.reason.label == .text("capped"))
        #expect(DropLabel.Word.allCases.allSatisfy { DropLabel($0.rawValue) == .word($0) })
    }
}
