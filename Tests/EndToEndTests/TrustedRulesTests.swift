import Foundation
import Testing

/// What a rule writer leans on, run on the built binary: traces that tell a failing rule as a
/// failure, summaries through the rules, timers on the run's clock, `vars`, `json`, and errors
/// that point where the trouble is.
@Suite struct TrustedRulesTests {
    static let one = #"{"message":"mail jane@example.com"}"# + "\n"

    // MARK: Truthful traces

    @Test func aRuleThatFailsIsTracedAsAnErrorNeverAsPass() throws {
        let rules = [
            "-e", #"rule("spin", function(t) while true do end end)"#,
            "-e", #"rule("number", function(t) return 5 end)"#,
            "-e", #"rule("boom", function(t) error("cannot read " .. t.message) end)"#,
            "-e", #"rule("hog", function(t) local s = {} for i = 1, 1e9 do s[i] = string.rep("x", 100000) .. i end end)"#,
            "-e", #"rule("mask", function(t) t.message = t.message:gsub("%S+@%S+", "***") end)"#,
        ]
        let story = try runBinary(["--explain", "t1", "--lua-budget", "200000", "--lua-memory", "4"] + rules, stdin: Self.one)
        #expect(story.status == 65)
        let lines = story.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(7)) == [
            #"t1  "mail jane@example.com" (info), input line 1"#,
            #"    the rules made it "mail ***""#,
            #"           0  rule "spin": error: -e:1: instruction budget exceeded"#,
            #"           0  rule "number": error: -e#2:1: rule returned number; expected nothing, true, false (and a reason) or a table"#,
            #"           0  rule "boom": error: -e#3:1: cannot read mail jane@example.com"#,
            #"           0  rule "hog": error: -e#4:1: not enough memory (the scripts' memory cap was reached)"#,
            #"           0  rule "mask": change (message)"#,
        ], "\(story.stdout)")
        // The same as records: verdict "error", the message in "because".
        let trace = try runBinary(["--trace", "--format", "json", "--lua-budget", "200000"] + rules.prefix(6), stdin: Self.one)
        let errors = try jsonRecords(trace.stdout).filter { $0["verdict"] as? String == "error" }
        #expect(errors.map { $0["rule"] as? String } == ["spin", "number", "boom"])
        #expect(errors.first?["because"] as? String == "-e:1: instruction budget exceeded")
        #expect(errors.allSatisfy { $0["stage"] as? String == "rules" })
    }

    // MARK: Made toasts go through the rules

    @Test func quietHoursDropASummaryThatARuleSeesAsMadeByTheRateLimit() throws {
        let result = try runBinary(["--format", "json", "examples/quiet-hours.lua"], stdinFile: "examples/quiet-hours.jsonl")
        #expect(result.status == 0)
        #expect(result.stdout.contains(#"{"event":"drop","t":1764367220,"id":"e1","message":"2 more from social","role":"info","stage":"rule","reason":"rule","rule":"quiet hours","note":"quiet hours (a summary from rate_limit, 22:00 UTC)"}"#))
        // Hooks see made_by too; it is not a field, so no record carries it.
        let hooked = try runBinary(["--format", "json", "-e", "config{ rate_limit = { limit = 1, summary = true } }",
                                    "-e", #"on("present", function(t) log(t.id, tostring(t.made_by)) end)"#],
                                   stdin: #"{"message":"a","source":"s"}"# + "\n" + #"{"message":"b","source":"s","at":1}"# + "\n")
        #expect(hooked.stderr == "t1\tnil\ne1\trate_limit\n")
        #expect(!hooked.stdout.contains("made_by"))
        // A rule may change a summary like any toast; made_by stays whatever it returns.
        let changed = try runBinary(["--format", "json", "-e", "config{ rate_limit = { limit = 1, summary = true } }",
                                     "-e", #"rule(function(t) if t.made_by then return { message = "Hidden: " .. t.message } end end)"#,
                                     "-e", #"rule(function(t) if t.made_by then t.subtitle = t.made_by end end)"#],
                                    stdin: #"{"message":"a"}"# + "\n" + #"{"message":"b","at":1}"# + "\n")
        #expect(changed.stdout.contains(#""id":"e1","message":"Hidden: 1 more notifications","subtitle":"rate_limit","#), "\(changed.stdout)")
        // It cannot be set.
        let set = try runBinary(["--format", "json", "-e", #"rule("set", function(t) t.made_by = "me" end)"#], stdin: Self.one)
        #expect(set.stderr.hasPrefix(#"toastscript: rule "set": -e:1: field "made_by" is read-only: it names the stage that made the toast (input line 1)"#))
    }

    @Test func aSummarysStoryNamesTheStageThatMadeIt() throws {
        let story = try runBinary(["--explain", "e1", "-e", "config{ rate_limit = { limit = 1, summary = true } }"],
                                  stdin: #"{"message":"a","source":"sync"}"# + "\n" + #"{"message":"b","source":"sync","at":1}"# + "\n"
                                    + #"{"type":"tick","at":20}"# + "\n")
        #expect(story.stdout.hasPrefix(#"e1  "1 more from sync" (info, from sync), made by rate_limit during input line 3"# + "\n"))
    }

    // MARK: Timers and the end

    @Test func timersRunOnTheStreamClockAndTheDrainRunsThePendingOnes() throws {
        let result = try runBinary(["--format", "json", "examples/recovery.lua"], stdinFile: "examples/recovery.jsonl")
        let made = try jsonRecords(result.stdout).filter { ($0["id"] as? String)?.hasPrefix("e") == true && $0["event"] as? String == "present" }
        // Five minutes after each source's last error; the last one by the drain, after the input.
        #expect(made.map { "\($0["t"] ?? "")=\($0["message"] ?? "")" } == ["500=upload recovered", "630=sync recovered", "900=upload recovered"])
        #expect(result.stderr == "watching at the end of input:\t[\"sync\",\"upload\"]\n")
        // --no-drain drops the pending timers; the end hook still runs.
        let cut = try runBinary(["--format", "json", "--no-drain", "examples/recovery.lua"], stdinFile: "examples/recovery.jsonl")
        #expect(!cut.stdout.contains("630") && !cut.stdout.contains(#""t":900"#))
        #expect(cut.stderr == result.stderr)
        // --var changes the silence. A timer due when an event comes fires first: sync has
        // recovered at 60 s just before its next error comes in.
        let short = try runBinary(["--format", "json", "--var", "silence=60", "examples/recovery.lua"], stdinFile: "examples/recovery.jsonl")
        #expect(short.stdout.contains(#"{"event":"present","t":60,"id":"e1","message":"sync recovered","subtitle":"no errors for 60 s""#))
    }

    @Test func timersFireInTheOrderTheyWereSetAndCancelTwiceDoesNothing() throws {
        let script = """
            after(2, function() log("b", now()) end)
            after(1, function() log("a", now()) end)
            after(2, function() log("c", now()) end)
            local h = after(1.5, function() log("never") end)
            h:cancel(); h:cancel()
            on("end", function() log("end", now()) end)
            on("end", function() log("end again") end)
            after(3, function() error("late") end)
            """
        let result = try runBinary(["--format", "json", "-e", script], stdin: #"{"type":"tick","at":10}"# + "\n")
        #expect(result.stderr == "a\t1.0\nb\t2.0\nc\t2.0\ntoastscript: -e:8: late (timer)\nend\t10.0\nend again\n"
                + "toastscript: 1 script call failed (--stats counts them by rule, hook and timer)\n")
        #expect(result.status == 65)
        let bad = try runBinary(["-e", "after(0, print)"], stdin: "")
        #expect(bad.stderr == "toastscript: -e:1: after needs a number of seconds > 0, not 0.0\n    1 | after(0, print)\n")
    }

    // MARK: vars and json

    @Test func varsComeFromTheCommandLineAndCannotBeWritten() throws {
        let read = try runBinary(["--var", "limit=3", "--var", "empty=", "--var", "a=b=c", "-e",
                                  "log(vars.limit, vars.empty == '', vars.a, vars.unset)"], stdin: "")
        #expect(read.stderr == "3\ttrue\tb=c\tnil\n")
        let write = try runBinary(["-e", "rule(function(t) vars.limit = 4 end)"], stdin: Self.one)
        #expect(write.stderr.hasPrefix("toastscript: -e:1: vars cannot be written: its values come from --var NAME=VALUE (input line 1)"))
        let replace = try runBinary(["-e", "vars = {}"], stdin: "")
        #expect(replace.status == 1)
        let usage = try runBinary(["--var", "limit"], stdin: "")
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("toastscript: --var takes NAME=VALUE, not 'limit'\n"))
    }

    @Test func jsonEncodesAndDecodesStrictlyAndLogWritesTablesAsJSON() throws {
        let script = """
            log(json.encode({}), json.encode({ 1, "two", { x = true } }), json.encode({ b = 1, a = 2.5 }))
            log(json.decode('{"a":[1,null,"x"]}').a[3], json.decode("null"), json.decode("[1,"))
            log(pcall(json.encode, { [3] = "gap" }))
            log(pcall(json.encode, { f = print }))
            local cycle = {}; cycle.self = cycle
            log(select(2, pcall(json.encode, cycle)))
            log(pcall(json.encode, 0/0))
            log({ source = "sync", count = 3 }, { print })
            rule(function(t) log(t) end)
            """
        let result = try runBinary(["--format", "json", "-e", script], stdin: #"{"message":"M","level":"debug"}"# + "\n")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines[0] == #"{}\#t[1,"two",{"x":true}]\#t{"a":2.5,"b":1}"#)
        #expect(lines[1] == "x\tnil\tnil\tinvalid JSON: unexpected end of line, expected a value" || lines[1].hasPrefix("x\tnil\tnil\tinvalid JSON"),
                "\(lines[1])")
        // Called straight from pcall (a C function): no line of Lua to name.
        #expect(lines[2] == "false\tjson.encode: field 'value' is a table with number keys that are not 1 to n: only a list or a table with string keys is JSON")
        #expect(lines[3] == "false\tjson.encode: field 'value' cannot hold a function")
        #expect(lines[4] == "json.encode: field 'value' is nested too deeply (or refers to itself)")
        #expect(lines[5] == "false\tjson.encode: field 'value' is not a finite number")
        #expect(lines[6].hasPrefix(#"{"count":3,"source":"sync"}\#ttable: 0x"#))
        #expect(lines[7].hasPrefix(#"{"after":0,"at":0,"#) && lines[7].contains(#""level":"debug""#) && lines[7].contains(#""message":"M""#))
    }

    // MARK: Errors that point where the trouble is

    @Test func reachingOutOfTheSandboxSaysSoAndNamesUnsafeLua() throws {
        let result = try runBinary(["--format", "json", "-e", #"rule("read", function(t) io.open("/etc/passwd") end)"#,
                                    "-e", #"rule("run", function(t) os.execute("ls") end)"#], stdin: Self.one)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines[0] == #"toastscript: rule "read": -e:1: attempt to index a nil value (global 'io'): io is not available in the sandbox (--unsafe-lua opens every library) (input line 1)"#)
        #expect(lines[1] == #"toastscript: rule "run": -e#2:1: attempt to call a nil value (field 'execute'): os.execute is not available in the sandbox (--unsafe-lua opens every library) (input line 1)"#)
        let inside = try runBinary(["--unsafe-lua", "-e", "log(io ~= nil)"], stdin: "")
        #expect(inside.stderr == "true\n")
    }

    @Test func aScriptsPcallCannotCatchTheBudgetOrTheMemoryCapAndTheirPlaceIsTheScripts() throws {
        let script = """
            rule("spin", function(t)
              if t.message == "spin" then
                pcall(function()
                  while true do end
                end)
                t.message = "escaped"
              end
            end)
            rule("hog", function(t)
              if t.message == "hog" then
                local ok = pcall(function() local s = {} for i = 1, 1e9 do s[i] = string.rep("x", 100000) .. i end end)
                t.message = "escaped"
              end
            end)
            """
        let input = #"{"message":"spin"}"# + "\n" + #"{"message":"hog","at":1}"# + "\n"
        let result = try runBinary(["--format", "json", "--lua-budget", "100000", "--lua-memory", "8", "-e", script], stdin: input)
        #expect(result.stderr.split(separator: "\n").prefix(2) == [
            #"toastscript: rule "spin": -e:4: instruction budget exceeded (input line 1)"#,
            #"toastscript: rule "hog": -e:11: not enough memory (the scripts' memory cap was reached) (input line 2)"#,
        ])
        #expect(!result.stdout.contains("escaped"))
    }

    @Test func aHooksErrorNamesTheInputLineOfItsToast() throws {
        // t1 is shown at 0 and dismissed at 3, while line 3 is read: its hook names line 1.
        let input = #"{"message":"a"}"# + "\n" + #"{"message":"b","at":1}"# + "\n" + #"{"type":"tick","at":5}"# + "\n"
        let result = try runBinary(["--format", "json", "-e", #"on("dismiss", function(t) error("no " .. t.id) end)"#], stdin: input)
        #expect(result.stderr.split(separator: "\n").prefix(2) == ["toastscript: -e:1: no t1 (input line 1)", "toastscript: -e:1: no t2 (input line 2)"])
    }

    @Test func statsCountScriptErrorsByRuleHookTimerAndParse() throws {
        let script = """
            rule("quiet debug", function(t) if t.message == "x" then error("bad") end end)
            rule(function(t) if t.message == "y" then error("worse") end end)
            on("present", function(t) if t.message == "y" then error("hook") end end)
            after(1, function() error("timer") end)
            parse(function(line) if line == "broken" then error("parse") end return { message = line } end)
            """
        let result = try runBinary(["--input", "text", "--clock", "stream", "--stats", "-e", script], stdin: "x\ny\nbroken\nx\n")
        let row = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("  script errors") })
        // In the order each first failed (the hook of y ran when y was shown, after the timer).
        #expect(row == #"  script errors     6 (rule "quiet debug" 2, rule -e:2 1, parse 1, timer -e:4 1, on present 1)"#, "\(result.stderr)")
    }

    /// A role's `announce` function or a digest's `message` function that fails: the toast
    /// takes the standard text, and the trace and the story say so, as an error; `--stats`
    /// counts it.
    @Test func failingAnnounceAndDigestFunctionsAreTracedAsErrorsWithTheirFallback() throws {
        let announce = try runBinary(["--trace", "--format", "json", "--stats", "-e",
                                      #"role("success", { announce = function(t) error("no voice") end })"#],
                                     stdin: #"{"message":"Saved","role":"success"}"# + "\n")
        #expect(announce.status == 65)
        #expect(announce.stdout.contains(#"{"event":"trace","t":0,"id":"t1","stage":"announce","verdict":"error","fields":["announcement"],"#
                                         + #""because":"-e:1: no voice; the standard announcement was used"}"#), "\(announce.stdout)")
        #expect(announce.stdout.contains(#""announcement":"Success: Saved""#))
        #expect(announce.stderr.contains("  script errors     1 (announce -e:1 1)"))
        let events = [#"{"at":0,"message":"a","source":"ci"}"#, #"{"at":1,"message":"b","source":"ci"}"#,
                      #"{"at":2,"message":"c","source":"ci"}"#].joined(separator: "\n") + "\n"
        let digest = try runBinary(["--explain", "e1", "-e", "config{ digest = { window = 5, message = function(list) return 42 end } }"],
                                   stdin: events)
        #expect(digest.stdout.hasPrefix(#"e1  "2 more from ci" (info, from ci), made by digest during input line 3"#), "\(digest.stdout)")
        #expect(digest.stdout.contains("  digest: error (message): message function: -e:1: digest message returned number; "
                                       + "expected a non-empty string or a table; the default message was used\n"))
    }
}
