import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// Rules stated as tables, `rule(NAME, { when = MATCH, drop = NOTE })` and `set = {...}`
/// (docs/lua.md, "Rules without code"): the records of their Lua twins, checked once at load,
/// traced with their `when` as written, and never a call into Lua.
@Suite struct DeclaredRuleTests {
    private let stream = lines(
        #"{"message":"backup ok","source":"cron"}"#,
        #"{"message":"disk almost full","source":"df","level":"warning"}"#,
        #"{"message":"Connection refused by db","source":"app"}"#,
        #"{"message":"GET /health 200","source":"nginx","status":200}"#,
        #"{"message":"Café closed","source":"app","subtitle":"refused?"}"#,
        #"{"message":"Cafe\u0301 open","source":"app"}"#,
        #"{"message":"payment failed: card refused","source":"billing","priority":1}"#,
        #"{"type":"tap","id":"t3"}"#,
        #"{"message":"nightly job done","source":"cron-weekly"}"#
    )

    /// Each declared rule and the Lua rule it stands for.
    private let twins: [(declared: String, lua: String)] = [
        (#"rule("no cron", { when = { source = "cron" }, drop = "cron noise" })"#,
         #"rule("no cron", function(t) if t.source == "cron" then return false, "cron noise" end end)"#),
        (#"rule("refused", { when = { message = { contains = "refused" } }, set = { role = "error", team = "db", duration = "long" } })"#,
         #"rule("refused", function(t) if string.find(t.message, "refused", 1, true) then t.role = "error"; t.team = "db"; t.duration = "long" end end)"#),
        (#"rule("health", { when = { message = { starts_with = "GET /health" } }, drop = "probes" })"#,
         #"rule("health", function(t) if string.sub(t.message, 1, 11) == "GET /health" then return false, "probes" end end)"#),
        (#"rule("open", { when = { message = { ends_with = "́ open" } }, set = { subtitle = "decomposed", priority = 3 } })"#,
         #"rule("open", function(t) if string.sub(t.message, -7) == "́ open" then t.subtitle = "decomposed"; t.priority = 3 end end)"#),
        (#"rule("weekly", { when = { source = { starts_with = "cron-" }, priority = { below = 1 } }, set = { placement = "bottom", after = 0.5 } })"#,
         #"rule("weekly", function(t) if string.sub(t.source or "", 1, 5) == "cron-" and t.priority < 1 then t.placement = "bottom"; t.after = 0.5 end end)"#),
    ]

    @Test func declaredRulesWriteTheRecordsOfTheirLuaTwins() {
        let declared = jsonRecords(stream, scripts: [twins.map(\.declared).joined(separator: "\n")])
        let lua = jsonRecords(stream, scripts: [twins.map(\.lua).joined(separator: "\n")])
        #expect(declared == lua)
        #expect(declared.count == 12)
        #expect(declared.first == drop("0", "t1", "backup ok", stage: "rule", "rule", rule: "no cron", note: "cron noise"))
        #expect(declared.contains { $0.contains(#""id":"t3","message":"Connection refused by db","role":"error""#) && $0.contains(#""team":"db""#) })
        #expect(declared.contains { $0.contains(#""id":"t6""#) && $0.contains(#""subtitle":"decomposed""#) })
        // Bytes, not Swift's string comparison: "Café" written with a combining accent is not
        // "Café" with a precomposed é, and the subtitle that says "refused?" is not the message.
        #expect(!declared.contains { $0.contains(#""id":"t5""#) && $0.contains(#""role":"error""#) })
    }

    @Test func declaredRulesMatchTheLuaTwinsOnAnExampleStreamWithTheirDropNotes() throws {
        let events = try String(contentsOfFile: "examples/app-session.jsonl", encoding: .utf8)
        let declared = #"""
            rule("quiet cache", { when = { level = "debug", message = { contains = "cache" } }, drop = "debug only" })
            rule("retries warn", { when = { message = { ends_with = "…" }, source = "upload" }, set = { role = "warning" } })
            """#
        let lua = #"""
            rule("quiet cache", function(t) if t.level == "debug" and string.find(t.message, "cache", 1, true) then return false, "debug only" end end)
            rule("retries warn", function(t) if string.sub(t.message, -3) == "…" and t.source == "upload" then t.role = "warning" end end)
            """#
        let withDeclared = jsonRecords(events, scripts: [declared])
        #expect(withDeclared == jsonRecords(events, scripts: [lua]))
        #expect(withDeclared != jsonRecords(events))
    }

    @Test func aDeclaredRuleIsNoLuaRule() throws {
        let runtime = try LuaRuntime()
        try runtime.load(source: #"rule("a", { when = { source = "x" }, drop = "y" }) rule("b", function(t) end)"#, name: "rules.lua")
        #expect(runtime.rules.map { $0 is DeclaredRule } == [true, false])
        #expect(runtime.rules.map(\.name) == ["a", "b"])
    }

    @Test func theTraceShowsTheWhenAsWritten() {
        let script = #"rule("no cron", { when = { source = "cron" }, drop = "cron noise" })"#
        let traced = jsonRecords(lines(#"{"message":"a","source":"cron"}"#, #"{"message":"b"}"#), ["--trace"], scripts: [script])
            .filter { $0.contains(#""stage":"rules""#) }
        #expect(traced == [
            #"{"event":"trace","t":0,"id":"t1","stage":"rules","verdict":"drop","rule":"no cron","reason":"rule","note":"cron noise","because":"when { source = \"cron\" } matched"}"#,
            #"{"event":"trace","t":0,"id":"t2","stage":"rules","verdict":"pass","rule":"no cron","because":"when { source = \"cron\" } did not match"}"#,
        ])
    }

    @Test func matchOperatorsWorkInAStagesWhenAndSpareToo() {
        let script = #"""
            config { stages = { "rules", "dedup", "quiet", "host" },
                     quiet = { stage = "rate_limit", when = { source = { ends_with = "-batch" } }, limit = 1, window = 60,
                               spare = { message = { contains = "URGENT" } } } }
            """#
        let records = jsonRecords(lines(
            #"{"message":"one","source":"a-batch"}"#, #"{"message":"two","source":"a-batch"}"#,
            #"{"message":"URGENT three","source":"a-batch"}"#, #"{"message":"four","source":"web"}"#), scripts: [script])
        #expect(records.filter { $0.contains(#""event":"drop""#) }.map { $0.contains(#""id":"t2""#) } == [true])
        #expect(records.filter { $0.contains(#""event":"present""#) }.count == 3)
    }

    @Test func aTextTestTakesOnlyStrings() {
        let test = MatchTest.text(.contains, "2")
        #expect(test.matches(.string("x2y")))
        #expect(!test.matches(.integer(2)))
        #expect(!test.matches(nil))
        #expect(MatchTest.text(.contains, "").matches(.string("")))
        #expect(!MatchTest.text(.endsWith, "abc").matches(.string("bc")))
        #expect(MatchTest.text(.startsWith, "ab").matches(.string("abc")))
        #expect(MatchTest.text(.contains, "aab").matches(.string("aaab")))
        #expect(!MatchTest.text(.contains, "ERROR").matches(.string("error")))
    }

    @Test(arguments: [
        (#"rule("r", { when = { source = "x" }, dorp = "y" })"#, #"rule "r": unknown part "dorp"; did you mean "drop"?"#),
        (#"rule("r", { drop = "y" })"#, #"rule "r": needs a when (a match table: when = { source = "cron" })"#),
        (#"rule("r", { when = { source = "x" } })"#, #"rule "r": needs drop = "why" or set = { FIELD = VALUE, ... }"#),
        (#"rule("r", { when = { source = "x" }, drop = "y", set = { role = "error" } })"#,
         #"rule "r": drop and set do not go together (a dropped toast is not shown, whatever its fields)"#),
        (#"rule("r", { when = function(t) return true end, drop = "y" })"#,
         #"rule "r": when must be a match table; a rule that needs code is a function: rule(name, function(t) ... end)"#),
        (#"rule("r", { when = {}, set = { role = "eror" } })"#, #"rule "r": set.role: unknown role "eror"; did you mean "error"?"#),
        (#"rule("r", { when = {}, set = { at = 3 } })"#, #"rule "r": set.at: field "at" is read-only: it is when the toast came in"#),
        (#"rule("r", { when = {}, set = { id = "x" } })"#, #"rule "r": set.id: field "id" is read-only: interactions find the toast by it"#),
        (#"rule("r", { when = {}, set = { made_by = "x" } })"#,
         #"rule "r": set.made_by: field "made_by" is read-only: it names the stage that made the toast"#),
        (#"rule("r", { when = {}, set = { duration = -1 } })"#, #"rule "r": set.duration must be a number of seconds ≥ 0, "short" or "long""#),
        (#"rule("r", { when = {}, set = { placement = "middle" } })"#, #"rule "r": set.placement must be "top", "center" or "bottom""#),
        (#"rule("r", { when = {}, set = { team = { 1 } } })"#, #"rule "r": set.team must be a string, a number or a boolean, not a table"#),
        (#"rule("r", { when = { message = { contains = 3 } }, drop = "y" })"#, #"rule "r": when.message.contains must be a string, not a number"#),
        (#"rule("r", { when = { message = { contains = "a", below = 3 } }, drop = "y" })"#,
         #"rule "r": when.message: "contains" goes alone in its table"#),
        (#"rule("r", { when = { message = { contain = "a" } }, drop = "y" })"#,
         #"unknown match operator rule "r": when.message.contain; did you mean "contains"?"#),
        (#"rule("r", 3)"#, #"rule expects (function), (name, function) or (name, { when = MATCH, drop = "why" | set = { FIELD = VALUE } })"#),
    ])
    func aRuleThatCannotKeepItsPromiseDoesNotLoad(script: String, message: String) {
        let result = runCLI(input: "", scripts: [script])
        #expect(result.status == 1)
        #expect(result.stderr.first == loadError("rules.lua:1: " + message, source: script))
    }

    @Test func aWhenFieldCloseToAKnownOneIsWarnedAbout() {
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"a","source":"cron"}"#),
                            scripts: [#"rule("r", { when = { sorce = "cron" }, drop = "y" })"#])
        #expect(result.status == 0)
        #expect(result.stderr == [#"toastscript: rule "r": when: no field "sorce" (did you mean "source"?); an extra field of that name matches as written"#])
        #expect(result.lines.first?.hasPrefix(#"{"event":"present""#) == true)
    }

    @Test func aSetFieldCloseToAKnownOneIsWarnedAbout() {
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"a"}"#),
                            scripts: [#"rule("r", { when = {}, set = { rol = "error", team = "db" } })"#])
        #expect(result.status == 0)
        #expect(result.stderr == [#"toastscript: rule "r": set: no field "rol" (did you mean "role"?); an extra field of that name is set"#])
        #expect(result.lines.first?.contains(#""extra":{"rol":"error","team":"db"}"#) == true)
    }
}
