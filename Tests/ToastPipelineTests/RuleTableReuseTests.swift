import Foundation
import Testing
@testable import ToastCore
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// When no rule can keep the table it gets (read from the rules' compiled code when they are
/// registered), one table serves every toast; a rule that could keep it gets a table of its
/// own for each toast, as before. Either way a rule sees exactly its toast.
@Suite struct RuleTableReuseTests {
    /// Whether a script of rules registered these as rules that may keep their table.
    private func mayKeep(_ source: String, options: LuaOptions = .withFastPath) throws -> Bool {
        let runtime = try LuaRuntime(options: options)
        try runtime.load(source: source, name: "rules.lua")
        return runtime.state.shortcuts.rulesMayKeepTheirTable
    }

    @Test(arguments: [
        #"rule(function(t) if t.level == "debug" then return false end end)"#,
        #"rule(function(t) if t.role == "error" then t.message = t.message:upper() end end)"#,
        #"rule(function(t) return t end)"#,
        #"rule(function(t) if not t or #t > 0 then return false, "odd" end; t[1] = nil; return { message = t.message } end)"#,
        #"rule(function(t) for i = 1, 3 do t["n" .. i] = i * 2 end; t.sum = (t.n1 or 0) + 1 end)"#,
        #"rule(function(t) local k = "source"; if t[k] == nil or t.priority > 3 or t.at >= 10 then t[k] = "x" end end)"#,
        #"rule(function() return false end)"#,
        #"local seen = {}; rule(function(t) seen[t.source or "?"] = (seen[t.source or "?"] or 0) + 1; if seen[t.source or "?"] > 3 then return false end end)"#,
        #"rule(function(t) if utf8.len(t.message) > 40 then t.message = t.message:sub(1, utf8.offset(t.message, 40) - 1) .. "…" end end)"#,
    ])
    func rulesThatOnlyReadAndWriteTheirToastKeepNoTable(source: String) throws {
        #expect(try !mayKeep(source))
    }

    @Test(arguments: [
        #"rule(function(t) kept = t end)"#,
        #"rule(function(t) local u = t; u.message = "x" end)"#,
        #"rule(function(t) log(t) end)"#,
        #"rule(function(t) emit(t) end)"#,
        #"rule(function(t) later = function() return t.message end end)"#,
        #"rule(function(t) t = { message = "x" }; return t end)"#,
        #"rule(function(t) if t == other then return false end end)"#,
        #"rule(function(t) t:method() end)"#,
        #"cache = {}; rule(function(t) cache[t] = true end)"#,
        #"list = {}; rule(function(t) list[#list + 1] = t end)"#,
        #"rule(function(t) local x = setmetatable({}, { __index = t }) end)"#,
        #"rule(function(t) for k in pairs(t) do end end)"#,
        #"rule(function(t) return nil, t end)"#,
        #"rule(function(...) local t = ...; kept = t end)"#,
        #"rule(function(t) local x = t + 1 end)"#,
        #"rule(print)"#,
        #"rule(function(t) end); rule(function(t) kept = t end)"#,
    ])
    func rulesThatCouldKeepTheirTableAreSeen(source: String) throws {
        #expect(try mayKeep(source))
    }

    /// The rules people write take the shared table: every example's and the bench's.
    @Test(arguments: ["examples/app-session.lua", "examples/app-session-calm.lua", "examples/ci-log.lua",
                      "examples/critical-role.lua", "examples/escalate-warnings.lua", "examples/journal.lua",
                      "examples/mask-emails.lua", "examples/mute-noisy-source.lua", "examples/quiet-hours.lua",
                      "examples/syslog.lua", "bench/rules.lua", "bench/rules-five.lua"])
    func theExamplesRulesKeepNoTable(path: String) throws {
        let runtime = try LuaRuntime(options: .withFastPath)
        try runtime.load(scriptAt: packageRoot.appendingPathComponent(path).path)
        #expect(!runtime.state.shortcuts.rulesMayKeepTheirTable)
    }

    @Test func withAllLibrariesOpenAnyRuleMayKeepItsTable() throws {
        #expect(try mayKeep(#"rule(function(t) return false end)"#, options: .withFastPath(unsafe: true)))
    }

    /// One table for every toast: what a rule wrote to it for one toast (a field, an extra
    /// field, a removal, even on a toast it then dropped) is gone for the next.
    @Test func theSharedTableShowsEachToastAsItIs() {
        let script = """
            rule(function(t)
              if t.message == "drop" then t.mark = "dropped"; t.subtitle = nil; return false end
              if t.message == "a" then t.extra_x = 1; t.subtitle = nil end
            end)
            rule(function(t) log(t.message, tostring(t.subtitle), tostring(t.extra_x), tostring(t.mark)) end)
            """
        let input = lines(#"{"message":"a","subtitle":"s1"}"#, #"{"message":"drop","subtitle":"s2"}"#,
                          #"{"message":"b","subtitle":"s3"}"#, #"{"message":"c"}"#)
        let result = runCLI(["--format", "json"], input: input, scripts: [script])
        #expect(result.stderr == ["a\tnil\t1\tnil", "b\ts3\tnil\tnil", "c\tnil\tnil\tnil"])
        #expect(result.status == 0)
    }

    @Test func rulesThatKeepNoTableUseOneTableForEveryToast() throws {
        let runtime = try LuaRuntime(options: .withFastPath)
        try runtime.load(source: "rule(function(t) if t.message == 'x' then return false end end)", name: "rules.lua")
        let pipeline = try Pipeline(scripts: runtime.loaded, output: RecordLog())
        for index in 0..<2_000 {
            pipeline.handle(Event(.show(Toast(id: "t\(index)", message: "m\(index)")), at: Int64(index) * 1_000_000))
        }
        #expect(runtime.state.proxies.count == 1)
    }

    /// An emitted toast goes through the rules after the toast whose rule emitted it, which
    /// keeps its own table to the end.
    @Test func aRuleThatEmitsKeepsSeeingItsOwnToast() {
        let script = """
            rule(function(t) if t.message == "a" then emit({ message = "b" }) end; log("one", t.message) end)
            rule(function(t) log("two", t.message) end)
            """
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"a"}"#, #"{"message":"c"}"#), scripts: [script])
        #expect(result.stderr == ["one\ta", "two\ta", "one\tb", "two\tb", "one\tc", "two\tc"])
    }
}
