import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// A rule's reads of its toast are answered in C from a view of the toast once the rules
/// have read a field for a few toasts (`RuleToastView.swift`). Whatever answers, a rule must
/// see exactly what the toast holds: the same values, of the same Lua types, as the Swift
/// side gives (which `pairs(t)` still builds a whole copy from).
@Suite struct LuaRuleViewTests {
    /// Every name a rule below reads: the fields of docs/events.md ("`show`") and extra fields of
    /// every kind.
    static let names = ["id", "message", "subtitle", "role", "duration", "after", "placement", "policy", "priority",
                        "source", "key", "dismiss_on_tap", "dismiss_on_long_press", "swipe", "at", "type",
                        "level", "count", "ratio", "flag", "off", "none", "nested", "list", "escaped", "twice",
                        "spaced", "absent"]

    /// One rule a name: the value read from the toast, then the same name in a copy that
    /// `pairs` makes; a difference is logged. (One rule a name, so that a table-valued extra
    /// field, which the table then holds itself, does not keep the other names from the view.)
    static let script: String = {
        var lines = ["""
            config{ dedup = false, rate_limit = false,
                    queue = { policy = "stack", max_visible = 100000, limit = 100000, drop_repeats = false } }
            local function show(v)
              if type(v) ~= "table" then return type(v) .. ":" .. tostring(v) .. ":" .. tostring(math.type(v)) end
              local keys = {}
              for k in pairs(v) do keys[#keys + 1] = tostring(k) end
              table.sort(keys)
              local parts = {}
              for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. show(v[tonumber(k) or k]) end
              return "{" .. table.concat(parts, ",") .. "}"
            end
            """]
        for name in names {
            lines.append("""
                rule(function(t)
                  local read = show(t["\(name)"])
                  local copy = {}
                  for k, v in pairs(t) do copy[k] = v end
                  local expected = show(copy["\(name)"])
                  if read ~= expected then log("differs", t.id, "\(name)", read, expected) end
                end)
                """)
        }
        return lines.joined(separator: "\n")
    }()

    /// Show lines with every field in every form: text plain, escaped, non-ASCII and longer
    /// than the view holds; extra fields as strings, escaped strings, numbers, booleans,
    /// null, objects, arrays, a name written with an escape, a repeated name, spaces.
    static func randomLines(count: Int, seed: UInt64) -> String {
        var random = InvariantTests.SeededGenerator(state: seed)
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        let messages = [#""Saved""#, #""Sync \"failed\"\n again""#, #""保存に失敗 🔋""#,
                        "\"" + String(repeating: "long ", count: 300) + "\"", #""tab\tand \u00e9""#]
        var text = ""
        for index in 0..<count {
            var members = [#""message":\#(pick(messages))"#]
            if Bool.random(using: &random) { members.append(#""id":"n\#(index)""#) }
            if Bool.random(using: &random) { members.append(#""subtitle":\#(pick([#""sub""#, #""""#, "null", #""a\/b""#]))"#) }
            members.append(#""role":"\#(pick(["info", "success", "warning", "error"]))""#)
            if Bool.random(using: &random) { members.append(#""duration":\#(pick(["2", "0.25", #""short""#, "null", "0"]))"#) }
            if Bool.random(using: &random) { members.append(#""after":\#(pick(["0", "1.5"]))"#) }
            if Bool.random(using: &random) { members.append(#""placement":"\#(pick(["top", "center", "bottom"]))""#) }
            if Bool.random(using: &random) { members.append(#""policy":"\#(pick(["enqueue", "replace", "stack"]))""#) }
            if Bool.random(using: &random) { members.append(#""priority":\#(pick(["-2", "0", "7"]))"#) }
            if Bool.random(using: &random) { members.append(#""source":\#(pick([#""mail""#, #""""#, "null"]))"#) }
            if Bool.random(using: &random) { members.append(#""key":"k\#(index % 3)""#) }
            if Bool.random(using: &random) { members.append(#""dismiss_on_tap":\#(pick(["true", "false"]))"#) }
            if Bool.random(using: &random) { members.append(#""swipe":false"#) }
            if Bool.random(using: &random) { members.append(#""level":\#(pick([#""debug""#, #""normal""#, #""x\"y""#]))"#) }
            if Bool.random(using: &random) { members.append(#""count":\#(pick(["3", "-0", "1e3", "2.5", "12345678901234567890"]))"#) }
            if Bool.random(using: &random) { members.append(#""ratio":0.5"#) }
            if Bool.random(using: &random) { members.append(#""flag":true"#) }
            if Bool.random(using: &random) { members.append(#""off":false"#) }
            if Bool.random(using: &random) { members.append(#""none":null"#) }
            if Bool.random(using: &random) { members.append(#""nested":{"a":[1,{"b":"}"}],"c":"]"}"#) }
            if Bool.random(using: &random) { members.append(#""list":[1,"two",[3]]"#) }
            if Bool.random(using: &random) { members.append(#""esc\u0061ped":"by name""#) }
            if Bool.random(using: &random) { members.append(#""twice":"first","twice":"second""#) }
            members.shuffle(using: &random)
            let separator = Bool.random(using: &random) ? "," : " ,\t"
            let spaced = Bool.random(using: &random) ? #", "spaced" : "s" "# : ""
            text += "{" + members.joined(separator: separator) + spaced + "}\n"
        }
        return text
    }

    @Test func aRuleReadsWhatTheToastHoldsWhicheverSideAnswers() {
        let result = runCLI(["--format", "json"], input: Self.randomLines(count: 600, seed: 41), scripts: [Self.script])
        #expect(result.status == 0)
        #expect(result.stderr.filter { $0.hasPrefix("differs") }.prefix(10) == [])
        // Every toast went through the rules (toasts without a timeout hold the line for those
        // after them, which the end of the input drops).
        #expect(result.lines.filter { $0.contains(#""event":"present""#) || $0.contains(#""event":"drop""#) }.count == 600)
    }

    /// After a rule writes, removes or restyles, the next read (in the same rule or the next)
    /// sees the toast as it is then, not the view of the toast as it came in.
    @Test func readsAfterAWriteSeeTheWrite() {
        let script = """
            rule("write", function(t)
              if t.message == "change" then
                t.role = "error"; t.subtitle = nil; t.level = "loud"; t.message = "changed"
                log("same rule", t.role, tostring(t.subtitle), t.level, t.message)
              end
            end)
            rule("restyle", function(t)
              if t.message == "boost" then
                role("info", { priority = 7 })
              end
            end)
            rule("read", function(t) log(t.id, t.role, tostring(t.subtitle), tostring(t.level), t.message, t.priority) end)
            """
        var input = ""
        for index in 1...40 { input += #"{"id":"w\#(index)","message":"plain","subtitle":"s","level":"quiet"}"# + "\n" }
        input += #"{"id":"c","message":"change","subtitle":"s","level":"quiet"}"# + "\n"
        input += #"{"id":"b","message":"boost","level":"quiet"}"# + "\n"
        input += #"{"id":"after","message":"plain","level":"quiet"}"# + "\n"
        let result = runCLI(["--format", "json"], input: input, scripts: [script])
        #expect(result.status == 0)
        #expect(result.stderr.suffix(4) == [
            "same rule\terror\tnil\tloud\tchanged",
            "c\terror\tnil\tloud\tchanged\t2",
            "b\tinfo\tnil\tquiet\tboost\t7",
            "after\tinfo\tnil\tquiet\tplain\t7",
        ])
        #expect(result.stderr.first == "w1\tinfo\ts\tquiet\tplain\t0")
    }

    /// C takes a name that is not a field's for an extra field's: every field needs its place.
    @Test func theViewHasAPlaceForEveryField() {
        #expect(LuaState.viewNamesEveryField)
    }

    /// The view holds what the rules read for some toasts, and leaves out what they never
    /// read (copying it for every toast would cost for nothing).
    @Test func theViewHoldsTheFieldsTheRulesRead() throws {
        let runtime = try LuaRuntime(options: .withFastPath)
        try runtime.load(source: """
            rule(function(t) if t.level == "debug" then return false end end)
            rule(function(t) if t.role == "error" then t.message = t.message:upper() end end)
            """, name: "rules.lua")
        let harness = StageHarness(stages: [("rules", RulesStage(rules: runtime.rules))])
        var decoder = EventDecoder()
        for index in 0..<300 {
            let line = Array(#"{"message":"m","role":"\#(index % 5 == 0 ? "error" : "info")","level":"normal"}"#.utf8)
            guard case .success(let event) = line.withUnsafeBufferPointer({ decoder.decodeJSON($0, number: index + 1) }),
                  case .show(let toast) = event.kind else {
                Issue.record("line \(index + 1) did not decode")
                return
            }
            harness.show(toast, at: .zero)
        }
        _ = harness.finish()
        #expect(runtime.state.shortcuts.view.fields.map(\.field) == [.message, .role])
        #expect(runtime.state.shortcuts.view.holdsExtra)
    }
}
