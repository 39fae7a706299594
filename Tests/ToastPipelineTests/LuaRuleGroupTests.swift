import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// The Lua rules of a script run as one group, one call into Lua a toast: each rule must still
/// behave exactly as if it ran alone (docs/lua.md, "rule(fn)"): its own budget, an error that
/// skips only that rule, the drop named by the rule that made it, Swift rules in between in
/// their place.
@Suite struct LuaRuleGroupTests {
    private let show = lines(#"{"message":"M"}"#)

    @Test func eachRuleOfAGroupHasTheWholeBudget() {
        // One loop fits the budget alone; three rules' loops together would not, and the fourth
        // rule's two loops do not fit it on their own.
        let loop = "for i = 1, 1000 do end"
        let script = """
            rule('a', function(t) \(loop) end)
            rule('b', function(t) \(loop) end)
            rule('c', function(t) \(loop); t.subtitle = 'c ran' end)
            rule('d', function(t) \(loop); \(loop); t.subtitle = 'd ran' end)
            rule('e', function(t) log(t.subtitle) end)
            """
        let result = runCLI(["--format", "json", "--lua-budget", "1500"], input: show, scripts: [script])
        #expect(result.stderr == [#"toastscript: rule "d": rules.lua:4: instruction budget exceeded (input line 1)"#, "c ran",
                                  scriptCallsFailed(1)])
        #expect(result.status == 65)
        #expect(result.lines.first == present("0", "t1", "M", subtitle: "c ran"))
    }

    @Test func aRuleThatFailsAmongOthersLeavesTheToastAsTheRuleBeforeItLeftIt() {
        let script = """
            rule('one', function(t) t.subtitle = 'one' end)
            rule('two', function(t) t.message = 'two'; t.subtitle = nil; error('broken') end)
            rule('three', function(t) log(t.message, t.subtitle) end)
            rule('four', function(t) return t end)
            """
        let result = runCLI(["--format", "json"], input: show, scripts: [script])
        #expect(result.stderr == [#"toastscript: rule "two": rules.lua:2: broken (input line 1)"#, "M\tone", scriptCallsFailed(1)])
        #expect(result.lines.first == present("0", "t1", "M", subtitle: "one"))
    }

    @Test func theRuleThatDropsIsNamedWhereverItStandsAndNoLaterRuleRuns() {
        let script = """
            rule('a', function(t) end)
            rule('b', function(t) if t.message == 'M' then return false, 'why' end end)
            rule('c', function(t) log('c saw', t.id) end)
            """
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"M"}"#, #"{"message":"N"}"#), scripts: [script])
        #expect(result.stderr == ["c saw\tt2"])
        #expect(result.lines.first == drop("0", "t1", "M", stage: "rule", "rule", rule: "b", note: "why"))
        #expect(result.lines.dropFirst().first == present("0", "t2", "N"))
    }

    @Test func aRuleThatReplacesTheToastHandsTheNextRuleTheReplacement() {
        let script = """
            rule('a', function(t) return { message = 'replaced', source = 'a' } end)
            rule('b', function(t) log(t.message, t.source, t.id) end)
            """
        let result = runCLI(["--format", "json"], input: show, scripts: [script])
        #expect(result.stderr == ["replaced\ta\tt1"])
        #expect(result.lines.first == present("0", "t1", "replaced", source: "a"))
    }

    /// A Swift rule between Lua rules splits them into two groups; every rule runs in its place.
    @Test func aSwiftRuleBetweenLuaRulesRunsInItsPlace() throws {
        let runtime = try LuaRuntime()
        try runtime.load(source: """
            rule('first', function(t) t.message = t.message .. ' first' end)
            rule('third', function(t) t.message = t.message .. ' third' end)
            rule('fourth', function(t) if t.message:find('swift') then return false, 'seen' end end)
            """, name: "rules.lua")
        let luaRules = runtime.rules
        let stage = RulesStage(rules: [luaRules[0], AppendRule(name: "second", text: " swift"), luaRules[1], luaRules[2]])
        let harness = StageHarness(stages: [("rules", stage)])
        harness.show(Toast(id: "a", message: "M"), at: .zero)
        harness.finish()
        #expect(harness.lines == [#"t=0 drop id=a message="M first swift third" role=info stage=rule reason=rule rule="fourth" note="seen""#])

        let kept = StageHarness(stages: [("rules", RulesStage(rules: [luaRules[0], AppendRule(name: "second", text: " s"),
                                                                      luaRules[1]]))])
        kept.show(Toast(id: "b", message: "M"), at: .zero)
        kept.finish()
        #expect(kept.records.first?.message == "M first s third")
    }
}

/// A Swift rule that appends to the message.
private struct AppendRule: ToastRule {
    let name: String
    let text: String

    func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome {
        toast.message += text
        return .keep
    }
}
