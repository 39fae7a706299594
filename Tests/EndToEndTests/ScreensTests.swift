import Foundation
import Testing

/// Many screens in one run (`config{ screens = { by = ... } }`), on the built binary: a host and
/// the stages' state per screen, interactions routed to the screen they name, the limit, and
/// screens forgotten when nothing in them remains.
@Suite struct ScreensTests {
    /// The run's records as short lines: `t [screen] present id message`, `t [screen] dismiss id
    /// reason`, `t [screen] drop id stage reason`; every toast checked to end once.
    private func story(_ script: String, _ events: [String]) throws -> [String] {
        let result = try runBinary(["--format", "json", "-e", script],
                                   stdin: events.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        return try lines(of: result.stdout)
    }

    private func lines(of output: String) throws -> [String] {
        var endings: [String: [String]] = [:]
        let lines = try jsonRecords(output).map { record in
            let screen = record["screen"].map { value in value is String ? "[\(value)]" : "[#\(value)]" } ?? "[none]"
            let id = "\(record["id"] ?? "")"
            let event = record["event"] as? String ?? ""
            endings[screen + id, default: []].append(event)
            var line = "\(record["t"] ?? "") \(screen) \(event) \(id)"
            switch event {
            case "present": line += " \(record["message"] ?? "")"
            case "dismiss": line += " \(record["reason"] ?? "")"
            default: line += " \(record["stage"] ?? "") \(record["reason"] ?? "")"
            }
            return line
        }
        for (key, events) in endings {
            #expect(events == ["drop"] || events == ["present", "dismiss"], "\(key): \(events)")
        }
        return lines
    }

    @Test func eachScreenHasItsOwnHostAndItsOwnRepeatsAndLimits() throws {
        let events = [
            #"{"at":0,"id":"a1","message":"Saved","user":"alice"}"#,
            #"{"at":0,"id":"b1","message":"Saved","user":"bob"}"#,
            // A repeat on alice's screen; the same message on bob's was no repeat.
            #"{"at":1,"id":"a2","message":"Saved","user":"alice"}"#,
            // 7.0 is the screen 7, which is not the screen "7".
            #"{"at":1,"id":"n1","message":"Build 7","user":7.0}"#,
            #"{"at":1,"id":"s1","message":"Build 7","user":"7"}"#,
        ]
        #expect(try story("config{ screens = { by = 'user' } }", events) == [
            "0 [alice] present a1 Saved",
            "0 [bob] present b1 Saved",
            "1 [alice] drop a2 dedup duplicate",
            "1 [#7] present n1 Build 7",
            "1 [7] present s1 Build 7",
            "3 [alice] dismiss a1 timeout",
            "3 [bob] dismiss b1 timeout",
            "4 [#7] dismiss n1 timeout",
            "4 [7] dismiss s1 timeout",
        ])
        // The rate limit counts per screen: two toasts a screen, four screens' worth pass.
        let flood = (0..<6).map { #"{"at":0,"id":"t\#($0)","message":"m\#($0)","user":"u\#($0 % 2)","duration":0}"# }
        let limited = try story("config{ screens = { by = 'user' }, rate_limit = { limit = 2, key = 'user' } }", flood)
        #expect(limited.filter { $0.contains("rate_limited") } == ["0 [u0] drop t4 rate_limit rate_limited",
                                                                  "0 [u1] drop t5 rate_limit rate_limited"])
    }

    /// dedup keeps every screen's keys in one table, each screen with its own `cache` of them:
    /// a screen that passes more keys than that forgets its own oldest, not another's.
    @Test func eachScreenRemembersItsOwnCacheOfKeys() throws {
        let events = [
            #"{"at":0,"id":"b1","message":"m1","user":"bob"}"#,
            #"{"at":0,"id":"a1","message":"m1","user":"alice"}"#,
            #"{"at":0,"id":"a2","message":"m2","user":"alice"}"#,
            // Alice's third key: her cache of two forgets m1; bob's still holds it.
            #"{"at":0,"id":"a3","message":"m3","user":"alice"}"#,
            #"{"at":1,"id":"a4","message":"m1","user":"alice"}"#,
            #"{"at":1,"id":"b2","message":"m1","user":"bob"}"#,
            #"{"at":1,"id":"a5","message":"m3","user":"alice"}"#,
        ]
        let config = "config{ screens = { by = 'user' }, dedup = { cache = 2 }, queue = { policy = 'stack', max_visible = 9 } }"
        let story = try story(config, events).filter { !$0.contains("dismiss") }
        #expect(story == [
            "0 [bob] present b1 m1",
            "0 [alice] present a1 m1",
            "0 [alice] present a2 m2",
            "0 [alice] present a3 m3",
            "1 [alice] present a4 m1",
            "1 [bob] drop b2 dedup duplicate",
            "1 [alice] drop a5 dedup duplicate",
        ])
    }

    @Test func interactionsActOnTheScreenTheyName() throws {
        let events = [
            #"{"at":0,"id":"a1","message":"one","user":"alice","duration":0}"#,
            #"{"at":0,"id":"b1","message":"two","user":"bob","duration":0}"#,
            // No id: the newest visible toast of that screen.
            #"{"at":1,"type":"tap","user":"bob"}"#,
            // An id names a toast of that screen only: carol has none, and is not made.
            #"{"at":2,"type":"dismiss","id":"a1","user":"carol"}"#,
            #"{"at":3,"id":"c1","message":"three","user":"carol","duration":0}"#,
            #"{"at":3,"id":"a2","message":"four","user":"alice","duration":0,"policy":"stack"}"#,
            // With the field, one screen; without, every screen in the order they appeared.
            #"{"at":4,"type":"dismiss_all","user":"carol"}"#,
            #"{"at":5,"type":"dismiss_all"}"#,
        ]
        let result = try runBinary(["--format", "json", "--stats", "-e", "config{ screens = { by = 'user' } }"],
                                   stdin: events.joined(separator: "\n") + "\n")
        #expect(try lines(of: result.stdout) == [
            "0 [alice] present a1 one",
            "0 [bob] present b1 two",
            "1 [bob] dismiss b1 tap",
            "3 [carol] present c1 three",
            "3 [alice] present a2 four",
            "4 [carol] dismiss c1 programmatic",
            "5 [alice] dismiss a1 programmatic",
            "5 [alice] dismiss a2 programmatic",
        ])
        #expect(result.stderr.contains("  screens           3 (0 ended by the limit, at most 3 at once)"), "\(result.stderr)")
    }

    @Test func pastTheLimitTheScreenLeastRecentlyNamedEnds() throws {
        let events = [
            #"{"at":0,"id":"a1","message":"one","user":"alice","duration":0}"#,
            #"{"at":0,"id":"b1","message":"two","user":"bob","duration":0}"#,
            // alice is named again, so bob is the least recently named when carol comes.
            #"{"at":1,"type":"tick","user":"alice"}"#,
            #"{"at":1,"id":"a2","message":"three","user":"alice","duration":0}"#,
            #"{"at":2,"id":"c1","message":"four","user":"carol","duration":0}"#,
            // bob was forgotten: a tap for him finds nothing.
            #"{"at":3,"type":"tap","id":"b1","user":"bob"}"#,
        ]
        let result = try runBinary(["--format", "json", "--stats", "-e", "config{ screens = { by = 'user', limit = 2 } }"],
                                   stdin: events.joined(separator: "\n") + "\n")
        #expect(try lines(of: result.stdout) == [
            "0 [alice] present a1 one",
            "0 [bob] present b1 two",
            "2 [bob] dismiss b1 screen_limit",
            "2 [carol] present c1 four",
            "3 [alice] dismiss a1 host_removed",
            "3 [alice] drop a2 host host_removed",
            "3 [carol] dismiss c1 host_removed",
        ])
        #expect(result.stderr.contains("  screens           3 (1 ended by the limit, at most 2 at once)"), "\(result.stderr)")
    }

    /// The limit ends a screen in the very step that used it (alice's toast brings one in for
    /// bob): her toast ends at once, bob's is shown, and the next event looks at her screen no
    /// more (`ScreenTableTests` checks that the table keeps it that long).
    @Test func aScreenEndedByTheLimitInTheStepThatUsedItEndsCleanly() throws {
        let events = [
            #"{"at":0,"id":"a1","message":"one","user":"alice"}"#,
            #"{"at":1,"id":"c1","message":"two","user":"carol"}"#,
        ]
        let script = "config{ screens = { by = 'user', limit = 1 } } "
            + "rule(function(t) if t.user == 'alice' then emit{ message = 'copy', user = 'bob' } end end)"
        let result = try runBinary(["--format", "json", "--stats", "-e", script], stdin: events.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try lines(of: result.stdout) == [
            "0 [alice] present a1 one",
            "0 [alice] dismiss a1 screen_limit",
            "0 [bob] present e1 copy",
            "1 [bob] dismiss e1 screen_limit",
            "1 [carol] present c1 two",
            "4 [carol] dismiss c1 timeout",
        ])
        #expect(result.stderr.contains("  screens           3 (2 ended by the limit, at most 1 at once)"), "\(result.stderr)")
    }

    @Test func aScreenWithNothingLeftIsForgottenAndComesBackNew() throws {
        let events = [
            #"{"at":0,"id":"a1","message":"one","user":"alice"}"#,
            #"{"at":1,"id":"b1","message":"two","user":"bob","duration":0}"#,
            // By 10 alice's toast is gone and dedup's window has passed: she is forgotten, and
            // comes back after bob in the order of appearance.
            #"{"at":10,"id":"a2","message":"one","user":"alice","duration":0}"#,
            #"{"at":11,"type":"dismiss_all"}"#,
        ]
        #expect(try story("config{ screens = { by = 'user' } }", events) == [
            "0 [alice] present a1 one",
            "1 [bob] present b1 two",
            "3 [alice] dismiss a1 timeout",
            "10 [alice] present a2 one",
            "11 [bob] dismiss b1 programmatic",
            "11 [alice] dismiss a2 programmatic",
        ])
        // dedup's window keeps a screen: the repeat at 4 is still a repeat (window 5).
        #expect(try story("config{ screens = { by = 'user' } }", [
            #"{"at":0,"id":"a1","message":"one","user":"alice","duration":1}"#,
            #"{"at":4,"id":"a2","message":"one","user":"alice","duration":1}"#,
        ]) == ["0 [alice] present a1 one", "1 [alice] dismiss a1 timeout", "4 [alice] drop a2 dedup duplicate"])
        // With window = 0 no key keeps a screen (and no rate limit here): alice is forgotten by 5, and what she had seen
        // is gone with her, whichever screen reuses what was hers (bob's, here); so is bob by 6.5.
        #expect(try story("config{ screens = { by = 'user' }, dedup = { window = 0 }, rate_limit = false }", [
            #"{"at":0,"id":"a1","message":"one","user":"alice","duration":1}"#,
            #"{"at":5,"id":"b1","message":"one","user":"bob","duration":1}"#,
            #"{"at":6,"id":"a2","message":"one","user":"alice","duration":1}"#,
            #"{"at":6.5,"id":"b2","message":"one","user":"bob","duration":1}"#,
        ]) == ["0 [alice] present a1 one", "1 [alice] dismiss a1 timeout", "5 [bob] present b1 one",
               "6 [bob] dismiss b1 timeout", "6 [alice] present a2 one", "6.5 [bob] present b2 one",
               "7 [alice] dismiss a2 timeout", "7.5 [bob] dismiss b2 timeout"])
    }

    @Test func aValueThatNamesNoScreenRejectsTheLine() throws {
        let events = [
            #"{"at":0,"message":"ok","user":"alice"}"#,
            #"{"at":0,"message":"bad","user":true}"#,
            #"{"at":0,"message":"bad","user":7.5}"#,
            #"{"at":0,"type":"tap","user":["x"]}"#,
            #"{"at":0,"message":"no user"}"#,
        ]
        let result = try runBinary(["--format", "json", "-e", "config{ screens = { by = 'user' } }"],
                                   stdin: events.joined(separator: "\n") + "\n")
        #expect(result.status == 65)
        #expect(try lines(of: result.stdout) == ["0 [alice] present t1 ok", "0 [] present t4 no user",
                                                 "3 [alice] dismiss t1 timeout", "3 [] dismiss t4 timeout"])
        #expect(result.stderr.contains(
            "toastscript: input line 2: field 'user' names the screen (screens.by): it must be a string or an integer"))
        #expect(result.stderr.contains("toastscript: input line 4: field 'user' names the screen"))
    }

    @Test func summariesGoToTheScreenOfTheirGroupAndRulesMayMoveAToast() throws {
        let flood = (0..<4).map { #"{"at":0,"id":"t\#($0)","message":"m\#($0)","user":"alice","duration":1}"# }
            + [#"{"at":0,"id":"x","message":"to ops","user":"alice","duration":0}"#]
        let script = """
            config{ screens = { by = 'user' }, rate_limit = { limit = 2, key = 'user', summary = true } }
            rule('to ops', function(t) if t.message == 'to ops' then t.user = 'ops' end end)
            """
        let story = try story(script, flood)
        #expect(story.contains("0 [ops] present x to ops"))
        #expect(story.contains("10 [alice] present e1 2 more from alice"))
    }

    /// The screen is found again whenever a rule may have moved the toast: by an extra field
    /// once the rule wrote an extra field, by a show field once it wrote any field.
    @Test func aRuleThatChangesOtherFieldsLeavesTheToastOnItsScreen() throws {
        let byUser = """
            config{ screens = { by = 'user' } }
            rule('edit', function(t) t.message = t.message .. '!'; if t.id == 'b' then t.team = 'x' end end)
            """
        let events = [#"{"at":0,"id":"a","message":"m","user":"alice","duration":1}"#,
                      #"{"at":0,"id":"b","message":"m","user":"bob","team":"y","duration":1}"#]
        #expect(try story(byUser, events) == ["0 [alice] present a m!", "0 [bob] present b m!",
                                              "1 [alice] dismiss a timeout", "1 [bob] dismiss b timeout"])
        let bySource = """
            config{ screens = { by = 'source' } }
            rule('to ops', function(t) if t.id == 'a' then t.source = 'ops' else t.message = 'n' end end)
            """
        let shows = [#"{"at":0,"id":"a","message":"m","source":"alice","duration":1}"#,
                     #"{"at":0,"id":"b","message":"m","source":"alice","duration":1}"#]
        #expect(try story(bySource, shows) == ["0 [ops] present a m", "0 [alice] present b n",
                                               "1 [ops] dismiss a timeout", "1 [alice] dismiss b timeout"])
    }

    @Test func textExplainAndHooksNameTheScreen() throws {
        let events = [#"{"at":0,"id":"a1","message":"hello","user":"alice"}"#]
        let text = try runBinary(["-e", "config{ screens = { by = 'user' } }"], stdin: events[0] + "\n")
        #expect(text.stdout == "        0  [alice]  ℹ hello  (info, a1)\n        3  [alice]    a1 dismissed: timeout after 3s\n")
        let hooks = try runBinary(["-e", "config{ screens = { by = 'user' } } on('present', function(t, info) log(info.screen) end)"],
                                  stdin: events[0] + "\n")
        #expect(hooks.stderr.contains("alice"), "\(hooks.stderr)")
        let explain = try runBinary(["--explain", "a1", "-e", "config{ screens = { by = 'user' } }"], stdin: events[0] + "\n")
        #expect(explain.stdout.contains("0  [alice]  host: presented"), "\(explain.stdout)")
    }

    @Test func diffAndTheHTMLPageNameTheScreen() throws {
        // Ten screens: the page draws lanes for the first eight and says it leaves two out.
        let events = (0..<10).map { #"{"at":\#($0),"id":"a","message":"Saved","user":"u\#($0)"}"# }
            + [#"{"at":20,"id":"a","message":"Saved","user":"u0"}"#, #"{"at":21,"id":"b","message":"Saved","user":"u0"}"#]
        let page = try runBinary(["--format", "html", "-e", "config{ screens = { by = 'user' } }"],
                                 stdin: events.joined(separator: "\n") + "\n")
        #expect(page.stdout.contains(">[u0] top 1</text>") && page.stdout.contains(">[u7] top 1</text>"))
        #expect(!page.stdout.contains(">[u8] top 1</text>"))
        #expect(page.stdout.contains("10 screens: the first 8 to appear have lanes here; the toasts of the other 2 are left out"))
        // The same id on two screens is two toasts; diff names the screen of each it lists.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("screens-diff-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "config{ screens = { by = 'user' } }".write(toFile: directory + "/on.lua", atomically: true, encoding: .utf8)
        try "config{ screens = { by = 'user' }, dedup = { window = 30 } }".write(toFile: directory + "/long.lua",
                                                                                atomically: true, encoding: .utf8)
        let diff = try runBinary(["diff", directory + "/on.lua", directory + "/long.lua"], stdin: events.joined(separator: "\n") + "\n")
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("  [u0] a  \"Saved\"  was: shown 20 s → 23 s (timeout); now: dropped by dedup (duplicate) at 20 s\n"),
                "\(diff.stdout)")
    }

    /// Random streams of shows and interactions over a few screens (repeated ids, stack and
    /// replace, delays, held toasts, summaries, rules that move toasts, the limit): the run
    /// ends well, and on every screen each toast ends once (as many dismisses as presents for
    /// an id, never a dismiss before its present).
    @Test(arguments: 0..<12)
    func everyToastEndsOnceOnItsScreen(seed: UInt64) throws {
        var generator = SplitMix(seed: seed)
        let users = [#""a""#, #""b""#, #""c""#, "7", "7.0", #""7""#, "null", #""""#]
        let types = ["show", "show", "show", "show", "tap", "dismiss", "dismiss_all", "swipe", "long_press", "tick"]
        var time = 0.0
        var lines: [String] = []
        for _ in 0..<300 {
            time += [0, 0, 0.1, 0.5, 1, 3][Int(generator.next() % 6)]
            let type = types[Int(generator.next() % UInt64(types.count))]
            var fields = [#""at":\#(time)"#, #""type":"\#(type)""#]
            if generator.next() % 10 < 9 { fields.append(#""user":\#(users[Int(generator.next() % UInt64(users.count))])"#) }
            let id = ["x", "y", "z"][Int(generator.next() % 3)] + "\(generator.next() % 3)"
            if type == "show" {
                fields.append(#""message":"m\#(generator.next() % 3)","role":"\#(["info", "error", "warning"][Int(generator.next() % 3)])""#)
                if generator.next() % 2 == 0 { fields.append(#""id":"\#(id)""#) }
                if generator.next() % 4 == 0 { fields.append(#""duration":\#(generator.next() % 3)"#) }
                if generator.next() % 5 == 0 { fields.append(#""policy":"\#(generator.next() % 2 == 0 ? "stack" : "replace")""#) }
                if generator.next() % 6 == 0 { fields.append(#""after":1"#) }
                if generator.next() % 3 == 0 { fields.append(#""source":"s\#(generator.next() % 2)""#) }
            } else if type == "dismiss" || type == "tap", generator.next() % 2 == 0 {
                fields.append(#""id":"\#(id)""#)
            }
            lines.append("{" + fields.joined(separator: ",") + "}")
        }
        let script = [
            "config{ screens = { by = 'user', limit = 3 }, debounce = { window = 1 }, digest = { window = 2 }, "
                + "rate_limit = { limit = 2, key = 'source', summary = true } }",
            "config{ screens = { by = 'user', limit = 2 }, dedup = { window = 0 } } "
                + "rule(function(t) if t.message == 'm2' then t.user = 'ops' end end)",
            "config{ screens = { by = 'source' }, digest = { window = 1, leading = false, key = 'role' } }",
        ][Int(seed % 3)]
        let result = try runBinary(["--format", "json", "-e", script] + (seed % 2 == 0 ? [] : ["--no-drain"]),
                                   stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        var open: [String: Int] = [:]
        var problems: [String] = []
        for record in try jsonRecords(result.stdout) {
            let key = "\(record["screen"] ?? "none") \(record["id"] ?? "")"
            switch record["event"] as? String {
            case "present": open[key, default: 0] += 1
            case "dismiss":
                open[key, default: 0] -= 1
                if open[key, default: 0] < 0 { problems.append("\(key): a dismiss before its present") }
            default: break
            }
        }
        problems += open.filter { $0.value != 0 }.map { "\($0.key): \($0.value) presents without a dismiss" }
        #expect(problems == [])
        #expect(!result.stdout.isEmpty)
    }

    @Test func settingsMistakesAreReportedAtTheConfigCall() throws {
        for (script, message) in [
            ("config{ screens = true }", "screens must be a table with by (the field that names a screen), not a boolean"),
            ("config{ screens = {} }", "screens needs by, the field that names a screen"),
            ("config{ screens = { by = 'user', limit = 0 } }", "screens.limit must be a whole number ≥ 1, not 0"),
            ("config{ screens = { by = 'user', limt = 3 } }", "unknown setting screens.limt"),
        ] {
            let result = try runBinary(["-e", script], stdin: "")
            #expect(result.status == 65 || result.status == 2 || result.status == 1, "\(script)")
            #expect(result.stderr.contains(message), "\(script): \(result.stderr)")
        }
    }
}
