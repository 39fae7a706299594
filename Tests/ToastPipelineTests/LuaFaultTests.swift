import Testing
@testable import ToastCore
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// Scripts that fail in the nastiest ways a rule can (issue 6): each is one script error with
/// its place, the toast goes on unchanged, the next events flow, and the process lives.
@Suite struct LuaFaultTests {
    private let twoShows = lines(#"{"message":"A"}"#, #"{"message":"B","at":5}"#)

    private func expectOneErrorPerShow(_ script: String, message: String, budget: String = "100000") {
        let result = runCLI(["--format", "json", "--lua-budget", budget], input: twoShows, scripts: [script])
        #expect(result.status == 65)
        #expect(result.stderr == ["toastscript: \(message) (input line 1)", "toastscript: \(message) (input line 2)",
                                  scriptCallsFailed(2)])
        #expect(result.lines == [
            present("0", "t1", "A"), dismiss("3", "t1", "timeout", shown: "3"),
            present("5", "t2", "B"), dismiss("8", "t2", "timeout", shown: "3"),
        ])
    }

    @Test func anErrorInsideTheScriptsOwnErrorHandlerIsCaughtByLua() {
        let script = "rule(function(t)\n  local ok = xpcall(error, function() error('in handler') end)\n  if not ok then t.subtitle = 'handled' end\nend)"
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"A"}"#), scripts: [script])
        #expect(result.status == 0)
        #expect(result.lines.first == present("0", "t1", "A", subtitle: "handled"))
    }

    @Test func anErrorValueWhoseTostringFails() {
        expectOneErrorPerShow("rule(function(t)\n  error(setmetatable({}, { __tostring = function() error('tostring broke') end }))\nend)",
                              message: "rules.lua:2: tostring broke")
    }

    @Test func anErrorValueWhoseTostringNeverReturns() {
        expectOneErrorPerShow("rule(function(t)\n  error(setmetatable({}, { __tostring = function() while true do end end }))\nend)",
                              message: "rules.lua:2: instruction budget exceeded")
    }

    @Test(arguments: [("error(nil)", "nil"), ("error(false)", "boolean"), ("error(12, 0)", "number"),
                      ("error(setmetatable({}, { __tostring = function() return 42 end }))", "table")])
    func errorValuesOfEveryType(_ call: String, type: String) {
        let result = runCLI([], input: lines(#"{"message":"A"}"#), scripts: ["rule(function(t)\n  \(call)\nend)"])
        #expect(result.status == 65)
        let expected = type == "number" ? "toastscript: rules.lua:2: 12 (input line 1)" : "toastscript: rules.lua:2: (error object is a \(type) value) (input line 1)"
        #expect(result.stderr == [expected, scriptCallsFailed(1)])
    }

    /// Regression: reading such a table back overflowed Lua's stack and crashed the process.
    @Test(arguments: [
        ("local a = {}; a.self = a; t.x = a", "field 'x' is nested too deeply (or refers to itself)"),
        ("local a = {}; local c = a; for i = 1, 100000 do c.n = {}; c = c.n end; t.x = a",
         "field 'x' is nested too deeply (or refers to itself)"),
        ("local a = {}; a[1] = a; return { message = 'M', list = a }", "field 'list' is nested too deeply (or refers to itself)"),
    ])
    func tablesThatReferToThemselvesOrNestWithoutEnd(_ body: String, message: String) {
        expectOneErrorPerShow("rule(function(t)\n  \(body)\nend)", message: "rules.lua:1: rule: \(message)", budget: "10000000")
    }

    @Test func aCyclicTableInConfigOrEmitIsAnError() {
        let load = runCLI([], input: "", scripts: ["local a = {}; a.me = a\nconfig{ queue = a }"])
        #expect(load.status == 1)
        #expect(load.stderr == [loadError("rules.lua:2: config: config.queue.me.me.… is nested too deeply (or refers to itself)",
                                          source: "local a = {}; a.me = a\nconfig{ queue = a }")])
        let emit = runCLI([], input: lines(#"{"message":"A"}"#),
                          scripts: ["rule(function(t)\n  local a = {}; a[1] = a\n  emit({ message = 'x', a = a })\nend)"])
        #expect(emit.status == 65)
        #expect(emit.stderr.count == 2)
        #expect(emit.stderr.last == scriptCallsFailed(1))
        #expect(emit.stderr.first?.contains("nested too deeply") == true)
    }

    /// Regression: pushing an extra field nested 250 deep into Lua overflowed its stack.
    @Test func deeplyNestedExtraFieldsGoToRulesAndComeBackWhole() {
        let nested = String(repeating: "[", count: 250) + "1" + String(repeating: "]", count: 250)
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"A","deep":\#(nested)}"#),
                            scripts: ["rule(function(t) t.seen = true end)"])
        #expect(result.status == 0)
        #expect(result.lines.first == present("0", "t1", "A", extra: #"{"deep":\#(nested),"seen":true}"#))
    }
}
