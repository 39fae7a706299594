import Foundation
import Testing

/// Holding toasts, on the built binary: `debounce` shows the last of a burst once it settles,
/// `digest` makes one toast of a group's burst, and the pipeline ends every held toast
/// exactly once (a dismiss, dismiss_all, the end of a run with and without the drain, a signal).
@Suite struct HoldTests {
    /// The run's records, one short line each: `t present id message role priority source extra`,
    /// `t dismiss id reason`, `t drop id stage reason [by X] [into X]`.
    private func story(_ arguments: [String], _ events: [String]) throws -> [String] {
        let result = try runBinary(["--format", "json"] + arguments, stdin: events.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let records = try jsonRecords(result.stdout)
        try checkEveryToastEndsOnce(records)
        return records.map { record in
            let time = "\(record["t"] ?? "")"
            let id = "\(record["id"] ?? "")"
            switch record["event"] as? String {
            case "present":
                var line = "\(time) present \(id) \(record["message"] ?? "") \(record["role"] ?? "") \(record["priority"] ?? "")"
                if let source = record["source"] { line += " from \(source)" }
                if let extra = record["extra"] as? [String: Any] {
                    line += " count=\(extra["count"] ?? "") ids=\((extra["ids"] as? [String])?.joined(separator: ",") ?? "")"
                }
                return line
            case "dismiss":
                return "\(time) dismiss \(id) \(record["reason"] ?? "")"
            default:
                var line = "\(time) drop \(id) \(record["stage"] ?? "") \(record["reason"] ?? "")"
                if let by = record["by"] { line += " by \(by)" }
                if let into = record["into"] { line += " into \(into)" }
                return line
            }
        }
    }

    /// Every toast ends in exactly one drop, or one present then one dismiss.
    private func checkEveryToastEndsOnce(_ records: [[String: Any]]) throws {
        var endings: [String: [String]] = [:]
        for record in records {
            endings[record["id"] as? String ?? "", default: []].append(record["event"] as? String ?? "")
        }
        for (id, events) in endings {
            #expect(events == ["drop"] || events == ["present", "dismiss"], "\(id): \(events)")
        }
    }

    // MARK: debounce

    @Test func aBurstEndsInItsLastToastWindowAfterItOrMaxWaitAfterItsFirst() throws {
        let events = [
            #"{"at":0,"message":"Saving 10 %","key":"save"}"#, #"{"at":0.5,"message":"Saving 40 %","key":"save"}"#,
            #"{"at":1,"message":"Saving 70 %","key":"save"}"#, #"{"at":1.5,"message":"Saving 90 %","key":"save"}"#,
            // Exactly at the release time: the timer goes first, so this starts a new burst.
            #"{"at":2,"message":"Saved","key":"save"}"#,
        ]
        #expect(try story(["-e", #"config{ debounce = { window = 1, max_wait = 2, fields = { "key" } }, dedup = false }"#], events) == [
            "0.5 drop t1 debounce debounced by t2",
            "1 drop t2 debounce debounced by t3",
            "1.5 drop t3 debounce debounced by t4",
            "2 present t4 Saving 90 % info 0",
            "5 dismiss t4 timeout",
            "5 present t5 Saved info 0",
            "8 dismiss t5 timeout",
        ])
        // Without max_wait the burst goes on as long as toasts come within the window.
        #expect(try story(["-e", #"config{ debounce = { window = 1, fields = { "key" } }, dedup = false }"#], Array(events.prefix(4))) == [
            "0.5 drop t1 debounce debounced by t2", "1 drop t2 debounce debounced by t3", "1.5 drop t3 debounce debounced by t4",
            "2.5 present t4 Saving 90 % info 0", "5.5 dismiss t4 timeout",
        ])
    }

    /// Debounce keys by its `fields` alone: a toast's `key` is dedup's (here the two info toasts
    /// have different keys and still make one burst). An error skips the wait by default (its
    /// default `spare`); with `spare = false` it is held like any toast.
    @Test func keysAreTheFieldsAloneAndAnErrorSkipsTheWait() throws {
        let events = [#"{"at":0,"message":"a","role":"info","key":"k1"}"#, #"{"at":0.1,"message":"b","role":"error"}"#,
                      #"{"at":0.2,"message":"c","role":"info","key":"k2"}"#]
        #expect(try story(["-e", #"config{ debounce = { window = 1, fields = { "role" } }, dedup = false }"#], events) == [
            "0.1 present t2 b error 2",
            "0.2 drop t1 debounce debounced by t3",
            "3.1 dismiss t2 timeout",
            "3.1 present t3 c info 0",
            "6.1 dismiss t3 timeout",
        ])
        #expect(try story(["-e", #"config{ debounce = { window = 1, fields = { "role" }, spare = false }, dedup = false }"#], events) == [
            "0.2 drop t1 debounce debounced by t3",
            "1.1 present t2 b error 2",
            "4.1 dismiss t2 timeout",
            "4.1 present t3 c info 0",
            "7.1 dismiss t3 timeout",
        ])
        // Where `fields` names `key`, it counts.
        #expect(try story(["-e", #"config{ debounce = { window = 1, fields = { "key" } }, dedup = false }"#], events) == [
            "0.1 present t2 b error 2",
            "3.1 dismiss t2 timeout",
            "3.1 present t1 a info 0",
            "6.1 dismiss t1 timeout",
            "6.1 present t3 c info 0",
            "9.1 dismiss t3 timeout",
        ])
    }

    @Test func aDismissCancelsAHeldToastAndFreesItsKeyAndDismissAllEndsEveryHeldOne() throws {
        let events = [
            #"{"at":0,"message":"a","id":"a"}"#, #"{"at":0.1,"message":"b","id":"b"}"#,
            #"{"at":0.2,"type":"dismiss","id":"b"}"#,
            // The key is free again: a new burst, nothing to drop.
            #"{"at":0.3,"message":"c","id":"c"}"#, #"{"at":0.3,"message":"shown","id":"s","role":"error"}"#,
            #"{"at":0.4,"message":"waits","id":"w","role":"error"}"#,
            #"{"at":0.5,"type":"dismiss_all"}"#,
        ]
        #expect(try story(["-e", #"config{ debounce = { window = 5, fields = { "role" }, spare = false }, dedup = false }"#], events) == [
            "0.1 drop a debounce debounced by b",
            "0.2 drop b debounce cancelled",
            "0.4 drop s debounce debounced by w",
            // dismiss_all: visible and waiting ones first (none here), then the held, in the order held.
            "0.5 drop c debounce cancelled",
            "0.5 drop w debounce cancelled",
        ])
    }

    @Test func heldToastsEndHostRemovedWithoutTheDrainAfterTheHostsOwnEndings() throws {
        let events = [#"{"at":0,"message":"visible","role":"error","duration":null}"#, #"{"at":0,"message":"held"}"#]
        let script = #"config{ debounce = { window = 5, fields = { "role" }, spare = false } }"#
        #expect(try story(["--no-drain", "-e", script], events) == [
            "0 drop t1 debounce host_removed", "0 drop t2 debounce host_removed",
        ])
        // With the drain, the timers run and the held toasts go on (the sticky one stays until
        // the end, so the other one waits and ends at the host).
        #expect(try story(["-e", script], events) == [
            "5 present t1 visible error 2", "5 dismiss t1 host_removed", "5 drop t2 host host_removed",
        ])
    }

    @Test func aSignalEndsTheHeldToastsToo() throws {
        let run = try runShell("""
            { echo '{"message":"Saving 10 %"}'; sleep 3; } | timeout --preserve-status -s INT 0.5 \
                '\(binary)' --clock stream --format json -e 'config{ debounce = { window = 10 } }'; echo "status $?"
            """)
        #expect(run.stdout == #"{"event":"drop","t":0,"id":"t1","message":"Saving 10 %","role":"info","stage":"debounce","reason":"host_removed"}"# + "\nstatus 130\n")
    }

    // MARK: digest

    @Test func aGroupsBurstBecomesOneDigestToastAndTheOpenerGoesOnAtOnce() throws {
        let events = [
            #"{"at":0,"message":"test a failed","source":"ci"}"#,
            #"{"at":1,"message":"test b failed","source":"ci","role":"warning"}"#,
            #"{"at":2,"message":"test c failed","source":"ci","role":"error"}"#,
            #"{"at":3,"message":"test d failed","source":"ci","role":"error"}"#,
            // At exactly the window's end: the window closed first, this one opens the next.
            #"{"at":10,"message":"test e failed","source":"ci"}"#,
            // No source: the shared group.
            #"{"at":11,"message":"n1"}"#, #"{"at":12,"message":"n2"}"#, #"{"at":13,"message":"n3"}"#,
        ]
        #expect(try story(["-e", "config{ digest = { window = 10 }, dedup = false }"], events) == [
            "0 present t1 test a failed info 0 from ci",
            "3 dismiss t1 timeout",
            "10 drop t2 digest digested into e1",
            "10 drop t3 digest digested into e1",
            "10 drop t4 digest digested into e1",
            // The role of the highest priority, the latest among equals; the group as source.
            "10 present e1 3 more from ci error 2 from ci count=3 ids=t2,t3,t4",
            "13 dismiss e1 timeout",
            "13 present t5 test e failed info 0 from ci",
            "16 dismiss t5 timeout",
            "16 present t6 n1 info 0",
            "19 dismiss t6 timeout",
            "21 drop t7 digest digested into e2",
            "21 drop t8 digest digested into e2",
            "21 present e2 2 more notifications info 0 count=2 ids=t7,t8",
            "24 dismiss e2 timeout",
        ])
    }

    @Test func fewerThanMinGoOnAsTheyWereAndATemplateTellsTheBurst() throws {
        let events = [#"{"at":0,"message":"b1","source":"x"}"#, #"{"at":1,"message":"b2","source":"y"}"#,
                      #"{"at":2,"message":"b3","source":"y"}"#, #"{"at":3,"message":"b4","source":"y"}"#]
        let script = #"config{ digest = { window = 5, min = 3, leading = false, message = "{count} from {group}: {first} .. {last}" }, dedup = false }"#
        #expect(try story(["-e", script], events) == [
            "5 present t1 b1 info 0 from x",
            "6 drop t2 digest digested into e1",
            "6 drop t3 digest digested into e1",
            "6 drop t4 digest digested into e1",
            "8 dismiss t1 timeout",
            "8 present e1 3 from y: b2 .. b4 info 0 from y count=3 ids=t2,t3,t4",
            "11 dismiss e1 timeout",
        ])
        // The default message without leading; min = 1: even one held toast is a digest.
        let one = try story(["-e", "config{ digest = { window = 5, min = 1, leading = false }, dedup = false }"], Array(events.prefix(1)))
        #expect(one == ["5 drop t1 digest digested into e1", "5 present e1 1 notifications from x info 0 from x count=1 ids=t1",
                        "8 dismiss e1 timeout"])
    }

    @Test func aCancelledToastLeavesTheWindowOpenAndAnEmptyWindowWritesNothing() throws {
        let events = [#"{"at":0,"message":"a","source":"s"}"#, #"{"at":1,"message":"b","source":"s","id":"b"}"#,
                      #"{"at":2,"type":"dismiss","id":"b"}"#, #"{"at":3,"message":"c","source":"s"}"#]
        #expect(try story(["-e", "config{ digest = { window = 5, min = 1 }, dedup = false }"], events) == [
            "0 present t1 a info 0 from s",
            "2 drop b digest cancelled",
            "3 dismiss t1 timeout",
            "5 drop t3 digest digested into e1",
            "5 present e1 1 more from s info 0 from s count=1 ids=t3",
            "8 dismiss e1 timeout",
        ])
        let emptied = [#"{"at":0,"message":"a","source":"s"}"#, #"{"at":1,"message":"b","source":"s","id":"b"}"#,
                       #"{"at":2,"type":"dismiss","id":"b"}"#]
        #expect(try story(["-e", "config{ digest = { window = 5, min = 1 }, dedup = false }"], emptied) == [
            "0 present t1 a info 0 from s", "2 drop b digest cancelled", "3 dismiss t1 timeout",
        ])
    }

    @Test func aDigestGoesThroughTheRulesWithMadeByAndAFunctionMayWriteIt() throws {
        let events = [#"{"at":0,"message":"c1","source":"z"}"#, #"{"at":1,"message":"c2","source":"z"}"#,
                      #"{"at":2,"message":"c3","source":"z"}"#]
        let script = """
            config{ digest = { window = 5, message = function(list)
              return { message = #list .. " held, the last " .. list[#list].message, subtitle = "digest" }
            end }, dedup = false }
            rule("quiet", function(t) if t.made_by == "digest" and t.source == "hush" then return false end end)
            rule("tag", function(t) if t.made_by then t.message = t.made_by .. ": " .. t.message end end)
            """
        #expect(try story(["-e", script], events) == [
            "0 present t1 c1 info 0 from z", "3 dismiss t1 timeout",
            "5 drop t2 digest digested into e1", "5 drop t3 digest digested into e1",
            "5 present e1 digest: 2 held, the last c3 info 0 from z count=2 ids=t2,t3", "8 dismiss e1 timeout",
        ])
        let hushed = events.map { $0.replacingOccurrences(of: #""z""#, with: #""hush""#) }
        #expect(try story(["-e", script], hushed).contains("5 drop e1 rule rule"))
    }

    // MARK: Seeing it

    @Test func traceStatsAndTheStorySayWhereAToastWaitedAndForHowLong() throws {
        let input = [#"{"at":0,"message":"Saving","key":"s"}"#, #"{"at":0.5,"message":"Saved","key":"s"}"#].joined(separator: "\n") + "\n"
        let story = try runBinary(["--explain", "t2", "-e", #"config{ debounce = { fields = { "key" } } }"#], stdin: input)
        #expect(story.stdout.contains("         0.5  debounce: held: the burst since 0 s goes on: held until 1.5 s\n"))
        #expect(story.stdout.contains("         1.5  debounce: released: held for 1 s, since 0.5 s\n"), "\(story.stdout)")
        let dropped = try runBinary(["--explain", "t1", "-e", #"config{ debounce = { fields = { "key" } } }"#], stdin: input)
        #expect(dropped.stdout.contains("         0.5  dropped by debounce (debounced by t2) — the end\n"), "\(dropped.stdout)")
        let stats = try runBinary(["--stats", "--format", "json", "-e", #"config{ debounce = { fields = { "key" } } }"#], stdin: input)
        #expect(stats.stderr.contains("  stage debounce    in 2, passed 1, held 2, released 1, dropped debounced=1\n"), "\(stats.stderr)")
        let trace = try runBinary(["--trace", "--format", "json", "-e", #"config{ debounce = { fields = { "key" } } }"#], stdin: input)
        let verdicts = try jsonRecords(trace.stdout).filter { $0["event"] as? String == "trace" && $0["stage"] as? String == "debounce" }
            .map { "\($0["id"] ?? "") \($0["verdict"] ?? "")" }
        #expect(verdicts == ["t1 held", "t1 drop", "t2 held", "t2 released"])
        let page = try runBinary(["--format", "html", "-e", #"config{ debounce = { fields = { "key" } } }"#], stdin: input)
        #expect(page.stdout.contains(#"<g class="held" data-id="t2"><title>t2 held by debounce for 1 s, then released</title>"#))
    }

    @Test func badSettingsAreRefusedAtTheConfigCall() throws {
        for (setting, message) in [
            ("debounce = { window = 0 }", "debounce.window must be a number of seconds > 0, not 0"),
            ("digest = { min = 0 }", "digest.min must be a whole number ≥ 1, not 0"),
            ("digest = { message = 5 }", "digest.message must be a template string or a function, not a number"),
            ("debounce = { wait = 1 }", "unknown setting debounce.wait (known: window, max_wait, fields, when, spare)"),
        ] {
            let result = try runBinary(["-e", "config{ \(setting) }"], stdin: "")
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("toastscript: -e:1: config: \(message)\n"), "\(result.stderr)")
        }
    }
}
