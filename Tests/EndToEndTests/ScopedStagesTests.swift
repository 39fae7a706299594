import Foundation
import Testing

/// Stages with a scope (`when`), stages defined by a name of their own, and what the run says
/// of errors (docs/lua.md, "Pointing a stage at some toasts"; docs/events.md, "Errors"), on
/// the built binary.
@Suite struct ScopedStagesTests {
    private func story(_ script: String, _ events: [String], _ arguments: [String] = []) throws -> [String] {
        try recordStory(script, events, arguments)
    }

    private let stack = "queue = { policy = 'stack', max_visible = 10, limit = 10, drop_repeats = false }"

    // MARK: when

    @Test func aToastOutsideTheScopeSkipsADigestWhileItsWindowIsOpen() throws {
        let script = "config{ digest = { window = 10, key = 'source', when = { role = 'info' } }, dedup = false, \(stack) }"
        let events = [#"{"at":0,"message":"a","source":"ci"}"#, #"{"at":1,"message":"b","source":"ci"}"#,
                      #"{"at":2,"message":"boom","role":"error","source":"ci"}"#, #"{"at":3,"message":"c","source":"ci"}"#]
        #expect(try story(script, events) == [
            "0 present t1 a info 0",
            "2 present t3 boom error 2",
            "3 dismiss t1 timeout",
            "5 dismiss t3 timeout",
            "10 drop t2 digest digested info b",
            "10 drop t4 digest digested info c",
            "10 present e1 2 more from ci info 0 count=2 ids=t2,t4",
            "13 dismiss e1 timeout",
        ])
    }

    @Test func aSkippedToastIsNeitherADuplicateNorRemembered() throws {
        // Dedup only takes info toasts: the warning with the same message passes, and a later
        // info toast is still a duplicate of the first (the warning opened nothing).
        let script = "config{ dedup = { window = 10, fields = { 'message' }, when = { role = 'info' } }, \(stack) }"
        let events = [#"{"at":0,"message":"disk"}"#, #"{"at":1,"message":"disk","role":"warning"}"#,
                      #"{"at":2,"message":"disk","role":"warning"}"#, #"{"at":3,"message":"disk"}"#]
        #expect(try story(script, events) == [
            "0 present t1 disk info 0",
            "1 present t2 disk warning 1",
            "2 present t3 disk warning 1",
            "3 dismiss t1 timeout",
            "3 drop t4 dedup duplicate info disk",
            "4 dismiss t2 timeout",
            "5 dismiss t3 timeout",
        ])
    }

    @Test func everyFormOfAMatchTable() throws {
        let events = [
            #"{"at":0,"message":"m1","source":"ci","n":7}"#, #"{"at":0,"message":"m2","source":"db","n":7.0}"#,
            #"{"at":0,"message":"m3","source":"web","n":"7"}"#, #"{"at":0,"message":"m4","role":"warning"}"#,
            #"{"at":0,"message":"m5","role":"error","flag":true}"#,
        ]
        func dropped(_ when: String) throws -> [String] {
            let lines = try story("config{ dedup = false, \(stack), rules_drop = { stage = 'rate_limit', limit = 0, spare = false, when = \(when) }, "
                                  + "stages = { 'rules', 'rules_drop', 'priority', 'style', 'announce' } }", events)
            return lines.filter { $0.contains(" drop ") }.map { String($0.split(separator: " ")[2]) }
        }
        #expect(try dropped("{ source = 'ci' }") == ["t1"])
        #expect(try dropped("{ n = 7 }") == ["t1", "t2"])                       // 7.0 is 7; "7" is a string
        #expect(try dropped("{ n = '7' }") == ["t3"])
        #expect(try dropped("{ source = { 'ci', 'web' } }") == ["t1", "t3"])
        #expect(try dropped("{ source = { ['not'] = 'ci' } }") == ["t2", "t3", "t4", "t5"])  // absent matches a not
        #expect(try dropped("{ n = { below = 8, at_least = 7 } }") == ["t1", "t2"]) // "7" is no number
        #expect(try dropped("{ priority = { at_least = 1 } }") == ["t4", "t5"])   // the role's priority
        #expect(try dropped("{ flag = true, role = 'error' }") == ["t5"])
        #expect(try dropped("{}") == ["t1", "t2", "t3", "t4", "t5"])
        #expect(try dropped("function(t) return t.n == 7 end") == ["t1", "t2"])
    }

    @Test func aWhenFunctionThatFailsIsAnErrorOfItsStageAndTheToastSkips() throws {
        let script = "config{ dedup = { when = function(t) if t.message == 'bad' then error('no') end return true end }, \(stack) }"
        let result = try runBinary(["--format", "json", "--stats", "-e", script],
                                   stdin: [#"{"message":"bad"}"#, #"{"message":"bad","at":1}"#, #"{"message":"ok","at":2}"#,
                                           #"{"message":"ok","at":3}"#].joined(separator: "\n") + "\n")
        #expect(result.status == 65)
        let records = try jsonRecords(result.stdout).map { "\($0["event"] ?? "") \($0["id"] ?? "")" }
        #expect(records.filter { $0.hasPrefix("present") } == ["present t1", "present t2", "present t3"])
        #expect(records.contains("drop t4"))
        #expect(result.stderr.contains(#"toastscript: stage "dedup" when: -e:1: no (input line 1)"#), "\(result.stderr)")
        #expect(result.stderr.contains("  script errors     2 (when dedup 2)"), "\(result.stderr)")
        #expect(result.stderr.contains("  stage dedup       in 2, passed 1, skipped 2 (when), dropped duplicate=1"), "\(result.stderr)")
    }

    @Test func traceAndExplainSayTheToastSkipped() throws {
        let script = "config{ errors = { stage = 'digest', when = { role = 'error' }, window = 60 }, "
            + "stages = { 'rules', 'dedup', 'errors', 'rate_limit', 'priority', 'style', 'announce' } }"
        let input = #"{"message":"hello"}"# + "\n"
        let trace = try runBinary(["--trace", "--format", "json", "-e", script], stdin: input)
        #expect(trace.stdout.contains(#"{"event":"trace","t":0,"id":"t1","stage":"errors","verdict":"skip","when":"{ role = \"error\" }","because":"when"}"#),
                "\(trace.stdout)")
        let story = try runBinary(["--explain", "t1", "-e", script], stdin: input)
        #expect(story.stdout.contains("  errors: skipped (when: { role = \"error\" })\n"), "\(story.stdout)")
        let function = try runBinary(["--explain", "t1", "-e", "config{ dedup = { when = function(t) return false end } }"], stdin: input)
        #expect(function.stdout.contains("  dedup: skipped (when: function at -e:1)\n"), "\(function.stdout)")
    }

    // MARK: Several of a kind

    @Test func errorsByTheMinuteAndTheRestByTenSecondsAreNamedByTheirStage() throws {
        let script = """
            config{
              errors = { stage = "digest", when = { role = "error" }, window = 60 },
              digest = { when = { role = { ["not"] = "error" } }, window = 10, min = 1 },
              dedup = false, \(stack),
              stages = { "rules", "dedup", "errors", "digest", "rate_limit", "priority", "style", "announce" },
            }
            rule("made", function(t) if t.made_by then t.subtitle = t.made_by end end)
            """
        let events = [#"{"at":0,"message":"db down","role":"error","source":"db"}"#,
                      #"{"at":1,"message":"db still down","role":"error","source":"db"}"#,
                      #"{"at":2,"message":"hi","source":"db"}"#, #"{"at":3,"message":"hi again","source":"db"}"#,
                      #"{"at":4,"message":"db gone","role":"error","source":"db"}"#]
        #expect(try story(script, events) == [
            "0 present t1 db down error 2",
            "2 present t3 hi info 0",
            "3 dismiss t1 timeout",
            "5 dismiss t3 timeout",
            "12 drop t4 digest digested info hi again",
            "12 present e1 1 more from db info 0 count=1 ids=t4",
            "15 dismiss e1 timeout",
            "60 drop t2 errors digested error db still down",
            "60 drop t5 errors digested error db gone",
            "60 present e2 2 more from db error 2 count=2 ids=t2,t5",
            "63 dismiss e2 timeout",
        ])
        let result = try runBinary(["--format", "json", "--stats", "-e", script], stdin: events.joined(separator: "\n") + "\n")
        let records = try jsonRecords(result.stdout)
        #expect(records.first { $0["id"] as? String == "e2" }?["subtitle"] as? String == "errors")
        #expect(records.first { $0["id"] as? String == "e1" }?["subtitle"] as? String == "digest")
        #expect(result.stderr.contains("  stage errors      in 3, passed 1, skipped 2 (when), held 2, released 0, dropped digested=2"),
                "\(result.stderr)")
    }

    @Test func diffAndTheHTMLPageNameANamedStage() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ts-named-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.path + "/errors.lua"
        try """
            config{
              errors = { stage = "digest", when = { role = "error" }, window = 60 },
              stages = { "rules", "dedup", "errors", "rate_limit", "priority", "style", "announce" },
            }
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let events = [#"{"at":0,"message":"a","role":"error"}"#, #"{"at":1,"message":"b","role":"error"}"#,
                      #"{"at":2,"message":"c","role":"error"}"#].joined(separator: "\n") + "\n"
        let diff = try runBinary(["diff", "none", script], stdin: events)
        #expect(diff.status == 1)
        #expect(diff.stdout.contains(#"t2  "b"  was: shown 3 s → 6 s (timeout); now: dropped by errors (digested) at 60 s"#), "\(diff.stdout)")
        let page = try runBinary(["--format", "html", script], stdin: events)
        #expect(page.stdout.contains(#"class="drop" data-id="t2" data-stage="errors""#))
    }

    @Test func twoRateLimitsOfOneKindKeepTheirOwnWindows() throws {
        let script = """
            config{
              noisy = { stage = "rate_limit", when = { source = "metrics" }, limit = 1, window = 60 },
              rate_limit = { limit = 5, window = 10 },
              dedup = false, \(stack),
              stages = { "rules", "noisy", "rate_limit", "priority", "style", "announce" },
            }
            """
        let events = (0..<4).map { #"{"at":\#($0),"message":"cpu \#($0)","source":"metrics"}"# }
            + (0..<4).map { #"{"at":\#($0),"message":"job \#($0)","source":"ci"}"# }
        let drops = try story(script, events).filter { $0.contains(" drop ") }
        #expect(drops == ["1 drop t2 noisy rate_limited info cpu 1", "2 drop t3 noisy rate_limited info cpu 2",
                          "3 drop t4 noisy rate_limited info cpu 3"])
    }

    @Test func badDefinitionsStopTheRunBeforeAnyInputNamingTheStageAndTheKey() throws {
        let cases: [(String, String)] = [
            ("config{ errors = { stage = 'digest' } }",
             "toastscript: config: errors is defined (a stage of kind \"digest\") but stages does not list it"),
            ("config{ stages = { 'rules', 'errors' } }", "stages: unknown stage \"errors\""),
            ("config{ errors = { stage = 'digets' } }", "config: errors.stage: unknown kind of stage \"digets\"; did you mean \"digest\"?"),
            ("config{ errors = { stage = 'digest', when = { role = { equals = 'x' } } } }",
             "config: unknown match operator errors.when.role.equals (known: not, below, at_least, contains, starts_with, ends_with)"),
            ("config{ dedup = { when = { n = { belw = 2 } } } }",
             "config: unknown match operator dedup.when.n.belw; did you mean \"below\"?"),
            ("config{ dedup = { when = 'errors' } }", "config: dedup.when must be a match table or a function, not a string"),
            ("config{ dedup = { when = { role = function() end } } }", "config: dedup.when.role must be a string, a number, a boolean"),
            ("config{ dedup = { stage = 'digest' } }", "config: dedup.stage: \"dedup\" names the stage of kind \"dedup\""),
            ("config{ style = { stage = 'digest' } }", "config: style is a built-in stage's name; give your digest stage a name of its own"),
        ]
        for (script, message) in cases {
            let result = try runBinary(["-e", script], stdin: #"{"message":"never read"}"# + "\n")
            #expect(result.status == 1, "\(script)")
            #expect(result.stderr.contains(message), "\(script): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(script)")
        }
    }

    // MARK: No error lost in silence

    @Test func anErrorArrivingWhenItsGroupIsFullPassesAndASummaryStandsForWhatItDropped() throws {
        let script = "config{ rate_limit = { limit = 1, window = 10, summary = true }, dedup = false, \(stack) }"
        let events = [#"{"at":0,"message":"i1"}"#, #"{"at":1,"message":"i2"}"#, #"{"at":2,"message":"E","role":"error"}"#,
                      #"{"at":3,"message":"w","role":"warning"}"#, #"{"at":4,"message":"i3"}"#]
        #expect(try story(script, events) == [
            "0 present t1 i1 info 0",
            "1 drop t2 rate_limit rate_limited info i2",
            "2 present t3 E error 2",
            "3 dismiss t1 timeout",
            "3 drop t4 rate_limit rate_limited warning w",
            "4 drop t5 rate_limit rate_limited info i3",
            "5 dismiss t3 timeout",
            "11 present e1 3 more notifications warning 1 count=3 ids=t2,t4,t5",
            "14 dismiss e1 timeout",
        ])
        // With `spare = false` the limit takes errors too, and the summary of an info and an
        // error is an error: a rule that silences info keeps it.
        let every = "config{ rate_limit = { limit = 1, window = 10, summary = true, spare = false }, dedup = false, \(stack) }"
            + " rule('quiet', function(t) if t.role == 'info' then return false end end)"
        let lines = try story(every, [#"{"at":0,"message":"x","role":"success"}"#, #"{"at":1,"message":"i","role":"success"}"#,
                                      #"{"at":2,"message":"E","role":"error"}"#])
        #expect(lines.contains("11 present e1 2 more notifications error 2 count=2 ids=t2,t3"), "\(lines)")
    }

    @Test func theRunSummaryAndStatsCountDroppedErrorsByStageAndRole() throws {
        let script = "config{ rate_limit = { limit = 1, window = 10, summary = true, spare = false }, dedup = { window = 5 } }"
        let events = [#"{"at":0,"message":"E","role":"error"}"#, #"{"at":1,"message":"E","role":"error"}"#,
                      #"{"at":2,"message":"F","role":"error"}"#, #"{"at":3,"message":"i"}"#].joined(separator: "\n") + "\n"
        let stats = try runBinary(["--format", "json", "--stats", "-e", script], stdin: events)
        #expect(stats.stderr.contains("  errors            2 shown, 2 dropped (dedup 1, rate_limit 1; by role: error 2)"),
                "\(stats.stderr)")
        #expect(stats.stderr.contains("  stood for         2 dropped toasts (1 error) in 1 summary and digests shown"), "\(stats.stderr)")
        // The run summary, on a real terminal.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ts-pty-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try events.write(toFile: directory.path + "/events.jsonl", atomically: true, encoding: .utf8)
        let command = "'\(binary)' --format json --output \(directory.path)/out -e \"\(script)\" --events \(directory.path)/events.jsonl"
        let run = try runShell("script -qec \(shellQuoted(command)) /dev/null")
        #expect(run.stdout.contains("toastscript: 5 toasts: 2 shown, 3 dropped (dedup 1, rate_limit 2); errors: 2 shown, 2 dropped (dedup 1, rate_limit 1)"),
                "\(run.stdout)")
    }

    @Test func theScreenLimitSparesAScreenWithAnErrorAndSaysWhy() throws {
        let script = "config{ screens = { by = 'user', limit = 2 } }"
        let events = [#"{"at":0,"id":"a1","message":"down","role":"error","user":"alice","duration":null}"#,
                      #"{"at":1,"id":"b1","message":"hi","user":"bob","duration":null}"#,
                      #"{"at":2,"id":"c1","message":"yo","user":"carol","duration":null}"#,
                      #"{"at":3,"id":"d1","message":"boom","role":"error","user":"dave","duration":null}"#]
        let result = try runBinary(["--format", "json", "-e", script], stdin: events.joined(separator: "\n") + "\n")
        let records = try jsonRecords(result.stdout).map { "\($0["t"] ?? "") \($0["event"] ?? "") \($0["id"] ?? "") \($0["reason"] ?? "")" }
        // Alice is the least recently named, but she shows an error: bob ends, then carol.
        #expect(Array(records.prefix(5)) == ["0 present a1 ", "1 present b1 ", "2 dismiss b1 screen_limit", "2 present c1 ",
                                             "3 dismiss c1 screen_limit"])
        // When every screen shows an error, the least recently named of all ends.
        let all = events.map { $0.replacingOccurrences(of: #""message":"hi""#, with: #""message":"hi","role":"error""#)
            .replacingOccurrences(of: #""message":"yo""#, with: #""message":"yo","role":"error""#) }
        let every = try runBinary(["--format", "json", "-e", script], stdin: all.joined(separator: "\n") + "\n")
        let ended = try jsonRecords(every.stdout).filter { $0["reason"] as? String == "screen_limit" }.map { "\($0["t"] ?? "") \($0["id"] ?? "")" }
        #expect(ended == ["2 a1", "3 b1"])
        let story = try runBinary(["--explain", "b1", "-e", script], stdin: events.joined(separator: "\n") + "\n")
        #expect(story.stdout.contains("host: dismissed: its screen was ended by screens.limit (limit 2, 2 screens held state) "
                                      + "to make room for a new one after 1 s on screen"), "\(story.stdout)")
    }

    /// The README's promise on the new user's case: a text log (one shared rate-limit group)
    /// with an ERROR line after a dozen info lines, default settings. The error is shown; the
    /// info lines the limit drops are named with their message and role, and counted.
    @Test func theReadmePromiseHoldsOnATextLogWithDefaults() throws {
        let log = (1...12).map { "Setting up package \($0)" } + ["ERROR database down"] + (13...20).map { "Unpacking \($0)" }
        let script = "rule('error', function(t) if t.message:find('^ERROR') then t.role = 'error' end end)"
        let result = try runBinary(["--input", "text", "--clock", "stream", "--format", "json", "--stats", "-e", script],
                                   stdin: log.joined(separator: "\n") + "\n")
        let records = try jsonRecords(result.stdout)
        #expect(records.contains { $0["event"] as? String == "present" && $0["message"] as? String == "ERROR database down" })
        let limited = records.filter { $0["reason"] as? String == "rate_limited" }
        #expect(limited.count == 10)
        #expect(limited.allSatisfy { $0["role"] as? String == "info" && ($0["message"] as? String)?.isEmpty == false })
        #expect(result.stderr.contains("  errors            1 shown, 0 dropped"), "\(result.stderr)")
    }

    private func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
