import Testing
@testable import ToastCore
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// The host's behaviour (docs/events.md, "`show`" and "Interactions"), as whole record streams.
@Suite struct HostBehaviourTests {
    /// Dedup would drop repeated messages before the host sees them.
    let noDedup = "config{ dedup = false }"

    @Test func showsOneToastAtATimeInArrivalOrderForThreeSeconds() {
        let records = jsonRecords(lines(#"{"message":"A","at":0}"#, #"{"message":"B","at":1}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t2", "B", waited: "2"),
            dismiss("6", "t2", "timeout", shown: "3"),
        ])
    }

    @Test func waitingLineOfThreeWhereTheOldestMakesRoom() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#, #"{"message":"B"}"#, #"{"message":"C"}"#, #"{"message":"D"}"#, #"{"message":"E"}"#))
        #expect(records == [
            present("0", "t1", "A"),
            drop("0", "t2", "B", stage: "host", "evicted"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t3", "C", waited: "3"),
            dismiss("6", "t3", "timeout", shown: "3"),
            present("6", "t4", "D", waited: "6"),
            dismiss("9", "t4", "timeout", shown: "3"),
            present("9", "t5", "E", waited: "9"),
            dismiss("12", "t5", "timeout", shown: "3"),
        ])
    }

    @Test func sameMessageAndRoleAsTheNewestToastIsARepeat() {
        let records = jsonRecords(lines(
            #"{"message":"A","at":0}"#,
            #"{"message":"A","at":1}"#,
            #"{"message":"A","role":"error","at":1.5}"#), scripts: [noDedup])
        #expect(records == [
            present("0", "t1", "A"),
            drop("1", "t2", "A", stage: "host", "repeat"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t3", "A", role: "error", waited: "1.5"),
            dismiss("6", "t3", "timeout", shown: "3"),
        ])
    }

    /// Messages compare as Swift strings do: the same text composed and decomposed is a
    /// repeat; ASCII text that differs in one byte, or in length, is not.
    @Test func aRepeatIsTheSameTextHoweverItIsComposed() {
        let records = jsonRecords(lines(
            #"{"message":"Caf\u00e9 ok","at":0}"#,
            #"{"message":"Cafe\u0301 ok","at":1}"#,
            #"{"message":"Cafe ok","at":1.2}"#,
            #"{"message":"Cafe ok!","at":1.4}"#), scripts: [noDedup])
        let dropped = records.filter { $0.contains("\"event\":\"drop\"") }
        #expect(dropped == [drop("1", "t2", "Cafe\u{0301} ok", stage: "host", "repeat")])
        #expect(records.count == 7)
    }

    @Test func theNewestToastIsTheLastWaitingOneBeforeAnyVisibleOne() {
        // A is visible, B waits: a second A compares with B, so it is no repeat.
        let records = jsonRecords(lines(
            #"{"message":"A","at":0}"#, #"{"message":"B","at":0.5}"#, #"{"message":"A","at":1}"#,
            #"{"message":"A","at":1.5}"#), scripts: [noDedup])
        #expect(records == [
            present("0", "t1", "A"),
            drop("1.5", "t4", "A", stage: "host", "repeat"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t2", "B", waited: "2.5"),
            dismiss("6", "t2", "timeout", shown: "3"),
            present("6", "t3", "A", waited: "5"),
            dismiss("9", "t3", "timeout", shown: "3"),
        ])
    }

    @Test func repeatsPassWhenDropRepeatsIsOff() {
        let records = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"A","at":1}"#),
                                  scripts: ["config{ dedup = false, queue = { drop_repeats = false } }"])
        #expect(records.count == 4)
        #expect(records[1] == dismiss("3", "t1", "timeout", shown: "3"))
    }

    @Test func tapDismissesUnlessTheToastSaysNo() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#, #"{"type":"tap","at":1}"#,
            #"{"message":"B","dismiss_on_tap":false,"at":2}"#, #"{"type":"tap","at":2.5}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("1", "t1", "tap", shown: "1"),
            present("2", "t2", "B"),
            dismiss("5", "t2", "timeout", shown: "3"),
        ])
    }

    @Test func replaceDismissesTheVisibleToastsBeforeItsPresent() {
        let records = jsonRecords(lines(
            #"{"message":"A","at":0}"#, #"{"message":"B","at":0.5}"#,
            #"{"message":"C","policy":"replace","at":1}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("1", "t1", "replacement", shown: "1"),
            present("1", "t3", "C", policy: "replace"),
            dismiss("4", "t3", "timeout", shown: "3"),
            present("4", "t2", "B", waited: "3.5"),
            dismiss("7", "t2", "timeout", shown: "3"),
        ])
    }

    @Test func stackShowsUpToMaxVisible() {
        let stack = #""policy":"stack""#
        let records = jsonRecords(lines(
            "{\"message\":\"A\",\(stack)}", "{\"message\":\"B\",\(stack)}", "{\"message\":\"C\",\(stack)}",
            "{\"message\":\"D\",\(stack)}"))
        #expect(records == [
            present("0", "t1", "A", policy: "stack"),
            present("0", "t2", "B", policy: "stack"),
            present("0", "t3", "C", policy: "stack"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t4", "D", waited: "3", policy: "stack"),
            dismiss("3", "t2", "timeout", shown: "3"),
            dismiss("3", "t3", "timeout", shown: "3"),
            dismiss("6", "t4", "timeout", shown: "3"),
        ])
    }

    @Test func afterAReplaceAWaitingStackHeadJoinsTheNewToast() {
        let records = jsonRecords(lines(
            #"{"message":"A","policy":"stack"}"#, #"{"message":"B","policy":"stack"}"#,
            #"{"message":"D","policy":"stack"}"#, #"{"message":"C","policy":"replace","at":1}"#),
            scripts: ["config{ queue = { max_visible = 2 } }"])
        #expect(records == [
            present("0", "t1", "A", policy: "stack"),
            present("0", "t2", "B", policy: "stack"),
            dismiss("1", "t1", "replacement", shown: "1"),
            dismiss("1", "t2", "replacement", shown: "1"),
            present("1", "t4", "C", policy: "replace"),
            present("1", "t3", "D", waited: "1", policy: "stack"),
            dismiss("4", "t4", "timeout", shown: "3"),
            dismiss("4", "t3", "timeout", shown: "3"),
        ])
    }

    @Test func higherPriorityGoesFirstAndTheLowestOldestIsEvicted() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#, #"{"message":"B"}"#, #"{"message":"C","priority":5}"#,
            #"{"message":"D","priority":1}"#, #"{"message":"E"}"#))
        #expect(records == [
            present("0", "t1", "A"),
            drop("0", "t2", "B", stage: "host", "evicted"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("3", "t3", "C", waited: "3", priority: 5),
            dismiss("6", "t3", "timeout", shown: "3"),
            present("6", "t4", "D", waited: "6", priority: 1),
            dismiss("9", "t4", "timeout", shown: "3"),
            present("9", "t5", "E", waited: "9"),
            dismiss("12", "t5", "timeout", shown: "3"),
        ])
    }

    @Test func limitZeroKeepsNothingWaiting() {
        let records = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"B","at":1}"#),
                                  scripts: ["config{ queue = { limit = 0 } }"])
        #expect(records == [
            present("0", "t1", "A"),
            drop("1", "t2", "B", stage: "host", "evicted"),
            dismiss("3", "t1", "timeout", shown: "3"),
        ])
    }

    @Test func afterDelaysArrivalAndDismissCancelsADelayedToast() {
        let records = jsonRecords(lines(
            #"{"message":"A","after":2}"#,
            #"{"id":"b","message":"B","after":5}"#,
            #"{"type":"dismiss","id":"b","at":1}"#))
        #expect(records == [
            drop("1", "b", "B", stage: "host", "cancelled"),
            present("2", "t1", "A"),
            dismiss("5", "t1", "timeout", shown: "3"),
        ])
    }

    @Test func dismissCancelsAWaitingToastAndDismissAllEndsEverything() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#, #"{"id":"w","message":"W"}"#, #"{"message":"X"}"#,
            #"{"message":"D","after":9}"#,
            #"{"type":"dismiss","id":"w","at":1}"#,
            #"{"type":"dismiss_all","at":2}"#))
        #expect(records == [
            present("0", "t1", "A"),
            drop("1", "w", "W", stage: "host", "cancelled"),
            dismiss("2", "t1", "programmatic", shown: "2"),
            drop("2", "t3", "X", stage: "host", "cancelled"),
            drop("2", "t4", "D", stage: "host", "cancelled"),
        ])
    }

    @Test func dismissWithoutIdTakesTheNewestVisibleToast() {
        let records = jsonRecords(lines(
            #"{"message":"A","policy":"stack"}"#, #"{"message":"B","policy":"stack","at":0.5}"#,
            #"{"type":"dismiss","at":1}"#, #"{"type":"dismiss","id":"nope","at":1}"#))
        #expect(records == [
            present("0", "t1", "A", policy: "stack"),
            present("0.5", "t2", "B", policy: "stack"),
            dismiss("1", "t2", "programmatic", shown: "0.5"),
            dismiss("3", "t1", "timeout", shown: "3"),
        ])
    }

    @Test func dragBeginPausesAndAShortDragRestartsTheFullDuration() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#,
            #"{"type":"drag","phase":"begin","at":1}"#,
            #"{"type":"tick","at":4}"#,
            #"{"type":"drag","phase":"end","dy":-10,"at":5}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("8", "t1", "timeout", shown: "8"),
        ])
    }

    @Test func aDragEndWithoutBeginRestartsTooAndASecondBeginChangesNothing() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#,
            #"{"type":"drag","phase":"end","at":2}"#,
            #"{"type":"drag","phase":"begin","at":3}"#,
            #"{"type":"drag","phase":"begin","at":4}"#,
            #"{"type":"drag","phase":"end","dy":5,"at":6}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("9", "t1", "timeout", shown: "9"),
        ])
    }

    @Test func aDragPastTheThresholdTowardsTheEdgeSwipesTheToastAway() {
        let records = jsonRecords(lines(
            #"{"message":"Top"}"#,
            #"{"type":"drag","phase":"end","dy":-30,"at":1}"#,
            #"{"message":"Bottom","placement":"bottom","at":2}"#,
            #"{"type":"drag","phase":"end","dy":-40,"at":2.5}"#,
            #"{"type":"drag","phase":"end","dy":30,"at":3}"#,
            #"{"message":"Center","placement":"center","at":4}"#,
            #"{"type":"drag","phase":"end","dy":-31,"at":4.5}"#,
            #"{"message":"Stuck","swipe":false,"at":5}"#,
            #"{"type":"drag","phase":"end","dy":-50,"at":5.5}"#))
        #expect(records == [
            present("0", "t1", "Top"),
            dismiss("1", "t1", "swipe", shown: "1"),
            present("2", "t2", "Bottom", placement: "bottom"),
            dismiss("3", "t2", "swipe", shown: "1"),
            present("4", "t3", "Center", placement: "center"),
            dismiss("4.5", "t3", "swipe", shown: "0.5"),
            present("5", "t4", "Stuck"),
            dismiss("8.5", "t4", "timeout", shown: "3.5"),
        ])
    }

    @Test func swipeAndLongPressFollowTheirSwitches() {
        let records = jsonRecords(lines(
            #"{"message":"A","swipe":false}"#, #"{"type":"swipe","at":0.5}"#, #"{"type":"long_press","at":0.6}"#,
            #"{"message":"B","dismiss_on_long_press":true,"at":4}"#, #"{"type":"long_press","at":4.5}"#,
            #"{"message":"C","at":5}"#, #"{"type":"swipe","at":6}"#))
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("3", "t1", "timeout", shown: "3"),
            present("4", "t2", "B"),
            dismiss("4.5", "t2", "long_press", shown: "0.5"),
            present("5", "t3", "C"),
            dismiss("6", "t3", "swipe", shown: "1"),
        ])
    }

    @Test func toastsWithoutTimeoutEndHostRemovedWhenTheDrainRunsOut() {
        let records = jsonRecords(lines(
            #"{"message":"Sticky","duration":null}"#, #"{"message":"Zero","duration":0,"at":1}"#,
            #"{"message":"Late","at":2,"after":1}"#))
        #expect(records == [
            present("0", "t1", "Sticky", duration: "null"),
            dismiss("3", "t1", "host_removed", shown: "3"),
            drop("3", "t2", "Zero", stage: "host", "host_removed"),
            drop("3", "t3", "Late", stage: "host", "host_removed"),
        ])
    }

    @Test func noDrainEndsEverythingAtTheLastEvent() {
        let records = jsonRecords(lines(
            #"{"message":"A"}"#, #"{"message":"B","at":1}"#, #"{"message":"C","after":5,"at":1}"#), ["--no-drain"])
        #expect(records == [
            present("0", "t1", "A"),
            dismiss("1", "t1", "host_removed", shown: "1"),
            drop("1", "t2", "B", stage: "host", "host_removed"),
            drop("1", "t3", "C", stage: "host", "host_removed"),
        ])
    }

    @Test func shortAndLongDurations() {
        let records = jsonRecords(lines(#"{"message":"A","duration":"short"}"#, #"{"message":"B","duration":"long"}"#))
        #expect(records == [
            present("0", "t1", "A", duration: "2"),
            dismiss("2", "t1", "timeout", shown: "2"),
            present("2", "t2", "B", waited: "2", duration: "3.5"),
            dismiss("5.5", "t2", "timeout", shown: "3.5"),
        ])
    }
}
