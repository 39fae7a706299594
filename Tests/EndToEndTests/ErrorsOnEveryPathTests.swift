import Foundation
import Testing

/// The promise that an error is never lost for a lesser toast, one step off the usual path
/// (docs/events.md, "Errors are never lost in silence"): a `when` that points a stage elsewhere,
/// `spare`, a plain-text log's levels, a sticky toast in the way, live events without a time.
@Suite struct ErrorsOnEveryPathTests {
    private let stack = "queue = { policy = 'stack', max_visible = 10, limit = 10, drop_repeats = false }"

    private func metricsLines(count: Int, thenError error: Bool = true) -> [String] {
        (0..<count).map { #"{"at":\#($0),"message":"cpu \#(90 + $0) %","source":"metrics"}"# }
            + (error ? [#"{"at":\#(count),"message":"metrics exporter crashed","role":"error","source":"metrics"}"#] : [])
    }

    // MARK: spare

    @Test func aWhenOnARateLimitNeverLetsAnErrorIn() throws {
        let script = "config{ dedup = false, \(stack), rate_limit = { when = { source = 'metrics' }, limit = 1, window = 60 } }"
        let lines = try recordStory(script, metricsLines(count: 3))
        #expect(lines.filter { $0.contains(" drop ") } == [
            "1 drop t2 rate_limit rate_limited info cpu 91 %",
            "2 drop t3 rate_limit rate_limited info cpu 92 %",
        ])
        #expect(lines.contains("3 present t4 metrics exporter crashed error 2"))
    }

    @Test func spareFalseIsTheOneWayToLetErrorsIntoARateLimit() throws {
        let script = "config{ dedup = false, \(stack), rate_limit = { when = { source = 'metrics' }, limit = 1, window = 60, spare = false } }"
        let lines = try recordStory(script, metricsLines(count: 3))
        #expect(lines.contains("3 drop t4 rate_limit rate_limited error metrics exporter crashed"))
    }

    @Test func aWhenOnADebounceNeverHoldsAnError() throws {
        let events = [#"{"at":0,"message":"10 %","source":"upload"}"#, #"{"at":0.2,"message":"upload failed","role":"error","source":"upload"}"#,
                      #"{"at":0.4,"message":"30 %","source":"upload"}"#]
        let spared = try recordStory("config{ \(stack), debounce = { window = 1, when = { source = 'upload' }, fields = { 'source' } } }", events)
        #expect(spared.first == "0.2 present t2 upload failed error 2")
        #expect(spared.contains("0.4 drop t1 debounce debounced info 10 %"))
        let taken = try recordStory("config{ \(stack), debounce = { window = 1, when = { source = 'upload' }, fields = { 'source' }, spare = false } }",
                                    events)
        #expect(taken.contains("0.4 drop t2 debounce debounced error upload failed"))
        #expect(taken.filter { $0.contains(" present ") } == ["1.4 present t3 30 % info 0"])
    }

    @Test func aSpareGivenIsAddedToTheDefaultAndAGivenAgainReplacesTheOneBefore() throws {
        let events = [#"{"at":0,"message":"a1","source":"a"}"#, #"{"at":1,"message":"a2","source":"a"}"#,
                      #"{"at":2,"message":"p1","source":"pager"}"#, #"{"at":3,"message":"p2","source":"pager"}"#,
                      #"{"at":4,"message":"b1","source":"b","role":"warning"}"#, #"{"at":5,"message":"b2","source":"b","role":"warning"}"#,
                      #"{"at":6,"message":"e1","source":"a","role":"error"}"#]
        let added = try recordStory("config{ dedup = false, \(stack), rate_limit = { limit = 1, window = 60, spare = { source = 'pager' } } }",
                                    events)
        #expect(added.filter { $0.contains(" drop ") } == [
            "1 drop t2 rate_limit rate_limited info a2", "5 drop t6 rate_limit rate_limited warning b2",
        ])
        // The second `spare` replaces the first whole: merged, it would spare warnings of the
        // pager alone, and b2 would be dropped.
        let replaced = try recordStory("""
            config{ dedup = false, \(stack), rate_limit = { limit = 1, window = 60, spare = { source = 'pager' } } }
            config{ rate_limit = { spare = { role = 'warning' } } }
            """, events)
        #expect(replaced.filter { $0.contains(" drop ") } == [
            "1 drop t2 rate_limit rate_limited info a2", "3 drop t4 rate_limit rate_limited info p2",
        ])
    }

    @Test func aSpareFunctionThatFailsSparesTheToastAndCountsForItsStage() throws {
        let script = "config{ dedup = false, \(stack), rate_limit = { limit = 1, window = 60, "
            + "spare = function(t) if t.message == 'boom' then error('no') end return false end } }"
        let events = [#"{"at":0,"message":"a","source":"s"}"#, #"{"at":1,"message":"boom","source":"s"}"#,
                      #"{"at":2,"message":"c","source":"s"}"#]
        let result = try runBinary(["--format", "json", "--stats", "-e", script], stdin: events.joined(separator: "\n") + "\n")
        #expect(result.status == 65)   // a script call failed
        let records = try jsonRecords(result.stdout)
        #expect(records.filter { $0["event"] as? String == "present" }.map { $0["message"] as? String } == ["a", "boom"])
        #expect(result.stderr.contains("stage \"rate_limit\" spare"))
        #expect(result.stderr.contains("(spare rate_limit 1)"))
        #expect(result.stderr.contains("spared 1 (spare)"))
    }

    @Test func traceExplainAndStatsSayAToastWasSpared() throws {
        let script = "config{ dedup = false, \(stack), rate_limit = { when = { source = 'metrics' }, limit = 1 } }"
        let input = metricsLines(count: 2).joined(separator: "\n") + "\n"
        let trace = try runBinary(["--format", "json", "--trace", "-e", script], stdin: input)
        #expect(trace.stdout.contains(#"{"event":"trace","t":2,"id":"t3","stage":"rate_limit","verdict":"skip","spare":"{ priority = { at_least = 2 } }","because":"spare"}"#))
        let explain = try runBinary(["--explain", "t3", "-e", script], stdin: input)
        #expect(explain.stdout.contains("rate_limit: spared (spare: { priority = { at_least = 2 } })"))
        let stats = try runBinary(["--format", "json", "--stats", "-e", script], stdin: input)
        #expect(stats.stderr.contains("stage rate_limit  in 2, passed 1, spared 1 (spare), dropped rate_limited=1"))
    }

    @Test func aBadSpareStopsTheRunBeforeAnyInput() throws {
        let result = try runBinary(["-e", "config{ rate_limit = { spare = true } }"], stdin: "")
        #expect(result.status == 2 || result.status == 1)
        #expect(result.stderr.contains("rate_limit.spare must be a match table, a function or false, not a boolean"))
    }

    // MARK: Levels in a text log

    /// 20 ERROR lines among 200 lines of a text log: every error is shown, none rate-limited,
    /// and the summary and `--stats` count them as errors; with `--levels off` they are info
    /// toasts, and the rate limit takes most of them. (A text file's lines all happen at 0: the
    /// waiting line is made long enough to hold them, so only the rate limit decides.)
    @Test func theErrorsOfAPlainLogAreErrors() throws {
        var lines: [String] = []
        for index in 0..<200 {
            lines.append(index % 10 == 9 ? "2026-11-28 09:14:\(index % 60) ERROR job \(index) failed"
                                          : "2026-11-28 09:14:\(index % 60) INFO job \(index) done")
        }
        let queue = ["-e", "config{ queue = { limit = 1000 } }"]
        let result = try runBinary(["--input", "text", "--format", "json", "--stats"] + queue, stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0)
        let records = try jsonRecords(result.stdout)
        let errorsShown = records.filter { $0["event"] as? String == "present" && $0["role"] as? String == "error" }
        #expect(errorsShown.count == 20)
        #expect(records.filter { $0["event"] as? String == "drop" && $0["role"] as? String == "error" }.isEmpty)
        #expect(errorsShown.allSatisfy { ($0["extra"] as? [String: Any])?["level"] as? String == "error" })
        #expect(result.stderr.contains("errors            20 shown, 0 dropped"))
        let off = try runBinary(["--input", "text", "--format", "json", "--levels", "off"] + queue, stdin: lines.joined(separator: "\n") + "\n")
        let offRecords = try jsonRecords(off.stdout)
        #expect(offRecords.filter { $0["role"] as? String == "error" }.isEmpty)
        let failedShown = offRecords.filter { $0["event"] as? String == "present" && ($0["message"] as? String)?.contains("ERROR") == true }
        #expect(failedShown.count < 20)
    }

    // MARK: preempted

    /// A sticky info, a sticky warning and a sticky error are visible (stacked) when an error
    /// arrives that would wait: the info and the warning go (`preempted`, the earliest first),
    /// the sticky error stays.
    @Test func anErrorPreemptsOnlyTheStickyToastsOfLowerPriority() throws {
        let events = [
            #"{"at":0,"id":"info","message":"Syncing","duration":null,"policy":"stack"}"#,
            #"{"at":1,"id":"warn","message":"Disk low","role":"warning","duration":0,"policy":"stack"}"#,
            #"{"at":2,"id":"err","message":"Offline","role":"error","duration":null,"policy":"stack"}"#,
            #"{"at":3,"id":"new","message":"Crash","role":"error"}"#,
            #"{"at":4,"id":"later","message":"Crash again","role":"error"}"#,
        ]
        // "new" still waits behind the sticky error (equal priority: never preempted), and so
        // does "later" (nothing of lower priority is left to preempt) until the run ends.
        #expect(try recordStory("config{ dedup = false, queue = { max_visible = 3 } }", events) == [
            "0 present info Syncing info 0",
            "1 present warn Disk low warning 1",
            "2 present err Offline error 2",
            "3 dismiss info preempted",
            "3 dismiss warn preempted",
            "4 dismiss err host_removed",
            "4 drop new host host_removed error Crash",
            "4 drop later host host_removed error Crash again",
        ])
    }

    @Test func aStickyInfoNoLongerKeepsAnErrorWaitingAndTheTraceSaysWhy() throws {
        let events = [#"{"at":0,"id":"sync","message":"Syncing","duration":null}"#,
                      #"{"at":5,"id":"crash","message":"Crash","role":"error"}"#]
        let lines = try recordStory("config{}", events)
        #expect(lines == [
            "0 present sync Syncing info 0",
            "5 dismiss sync preempted",
            "5 present crash Crash error 2",
            "8 dismiss crash timeout",
        ])
        let trace = try runBinary(["--format", "json", "--trace"], stdin: events.joined(separator: "\n") + "\n")
        #expect(trace.stdout.contains(#""id":"sync","stage":"host","verdict":"preempted","reason":"preempted","by":"crash","shown":5"#))
        let text = try runBinary(["--explain", "sync", "--format", "text"], stdin: events.joined(separator: "\n") + "\n")
        #expect(text.stdout.contains("host: preempted"))
        let records = try runBinary(["--format", "text"], stdin: events.joined(separator: "\n") + "\n")
        #expect(records.stdout.contains("sync dismissed: preempted after 5s"))
        let page = try runBinary(["--format", "html"], stdin: events.joined(separator: "\n") + "\n")
        #expect(page.stdout.contains("preempted"))
    }

    /// A toast that would not wait preempts nothing: a `stack` one with room, a `replace` one;
    /// nor does a warning (below priority 2), nor an error behind a sticky toast with a timeout.
    @Test func aToastThatWouldNotWaitPreemptsNothing() throws {
        let sticky = #"{"at":0,"id":"sync","message":"Syncing","duration":null,"policy":"stack"}"#
        for arriving in [#"{"at":1,"id":"e","message":"Crash","role":"error","policy":"stack"}"#,
                         #"{"at":1,"id":"w","message":"Disk low","role":"warning"}"#] {
            let lines = try recordStory("config{}", [sticky, arriving])
            #expect(!lines.contains { $0.contains("preempted") }, "\(arriving)")
        }
        let replaced = try recordStory("config{}", [sticky, #"{"at":1,"id":"e","message":"Crash","role":"error","policy":"replace"}"#])
        #expect(replaced.contains("1 dismiss sync replacement"))
        let timed = try recordStory("config{}", [#"{"at":0,"id":"slow","message":"Saving","duration":60}"#,
                                                 #"{"at":1,"id":"e","message":"Crash","role":"error"}"#])
        #expect(timed.contains("60 present e Crash error 2"))
    }

    // MARK: Live events without a time

    /// `(for i in 1..6; echo '{"message":"m$i"}'; sleep 1; done; sleep 8) | toastscript`:
    /// each event happens when it is read, so with the default queue m1, m2, m4, m5 and m6 are
    /// presented at about 0, 3, 6, 9 and 12 s of real time, and m3 is evicted at about 5 s.
    @Test func liveEventsWithoutATimeHappenWhenTheyAreRead() throws {
        let script = #"for i in 1 2 3 4 5 6; do echo "{\"message\":\"m$i\"}"; sleep 1; done; sleep 8"#
        let result = try runShell("(\(script)) | '\(binary)' --format json")
        #expect(result.status == 0, "\(result.stderr)")
        let records = try jsonRecords(result.stdout)
        func time(_ event: String, _ id: String) -> Double? {
            records.first { $0["event"] as? String == event && $0["id"] as? String == id }.flatMap { ($0["t"] as? NSNumber)?.doubleValue }
        }
        for (id, expected) in [("t1", 0.0), ("t2", 3.0), ("t4", 6.0), ("t5", 9.0), ("t6", 12.0)] {
            let shown = time("present", id)
            #expect(shown.map { abs($0 - expected) < 0.6 } == true, "\(id) presented at \(String(describing: shown)), not about \(expected)")
        }
        let evicted = records.first { $0["event"] as? String == "drop" && $0["id"] as? String == "t3" }
        #expect(evicted?["reason"] as? String == "evicted")
        #expect((evicted?["t"] as? NSNumber).map { abs($0.doubleValue - 5) < 0.6 } == true)
        // The timeouts fire in real time: t1 leaves at 3, not when the next line comes.
        #expect(time("dismiss", "t1").map { abs($0 - 3) < 0.01 } == true)
    }
}
