import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// docs/lua.md: rules, roles, hooks, emit, now, log, the sandbox and the limits.
@Suite struct LuaRuleTests {
    let show = lines(#"{"message":"Saved","role":"success","level":"debug","n":{"a":[1,2]}}"#)

    @Test func rulesRunInRegistrationOrderAcrossScripts() {
        let records = jsonRecords(show, scripts: [
            "rule('first', function(t) t.message = t.message .. ' 1' end)",
            "rule(function(t) t.message = t.message .. ' 2' end)\nrule('third', function(t) t.message = t.message .. ' 3' end)",
        ])
        #expect(records[0].contains(#""message":"Saved 1 2 3""#))
    }

    @Test func returnFormsKeepOrDrop() {
        let cases: [(String, String)] = [
            ("return", "present"), ("return true", "present"), ("return nil", "present"),
            ("return false", drop("0", "t1", "Saved", role: "success", stage: "rule", "rule", rule: "r")),
            ("return false, 'too noisy'", drop("0", "t1", "Saved", role: "success", stage: "rule", "rule", rule: "r", note: "too noisy")),
        ]
        for (body, expected) in cases {
            let records = jsonRecords(show, scripts: ["rule('r', function(t) t.subtitle = 'changed'; \(body) end)"])
            if expected == "present" {
                #expect(records[0].contains(#""subtitle":"changed""#), "\(body)")
            } else {
                #expect(records == [expected], "\(body)")
            }
        }
    }

    @Test func anUnnamedRuleIsNamedByItsPlace() {
        let records = jsonRecords(show, scripts: ["\n\nrule(function(t)\n  return false\nend)"])
        #expect(records == [drop("0", "t1", "Saved", role: "success", stage: "rule", "rule", rule: "rules.lua:3")])
    }

    @Test func aDroppedToastReachesNoLaterRule() {
        let result = runCLI(["--format", "json"], input: show, scripts: [
            "rule('a', function(t) return false end)\nrule('b', function(t) log('b saw', t.id) end)",
        ])
        #expect(result.stderr.isEmpty)
    }

    @Test func aReturnedTableReplacesTheToastAndKeepsItsId() {
        let records = jsonRecords(show, scripts: ["rule(function(t) return { message = 'New', role = 'error', tag = 7 } end)"])
        #expect(records[0] == present("0", "t1", "New", role: "error", extra: #"{"tag":7}"#))
        let renamed = jsonRecords(show, scripts: ["rule(function(t) return { id = 'mine', message = 'New' } end)"])
        #expect(renamed[0] == present("0", "mine", "New"))
    }

    @Test func theToastTableHoldsEveryField() {
        let input = lines(#"{"at":2.5,"id":"x","message":"M","subtitle":"S","role":"warning","duration":4,"after":0,"placement":"center","policy":"stack","source":"net","key":"k","dismiss_on_tap":false,"dismiss_on_long_press":true,"swipe":false,"level":"debug"}"#)
        let script = """
            rule(function(t)
              local names = {}
              for name in pairs(t) do names[#names + 1] = name end
              table.sort(names)
              local parts = {}
              for _, name in ipairs(names) do parts[#parts + 1] = name .. "=" .. tostring(t[name]) end
              log(table.concat(parts, " "))
            end)
            """
        let result = runCLI([], input: input, scripts: [script])
        #expect(result.stderr == [
            "after=0.0 at=2.5 dismiss_on_long_press=true dismiss_on_tap=false duration=4.0 id=x key=k level=debug message=M placement=center policy=stack priority=1 role=warning source=net subtitle=S swipe=false type=show"
        ])
    }

    @Test func extraFieldsComeBackOutNestedAndAddedOnes() {
        let records = jsonRecords(show, scripts: ["rule(function(t) t.n.a[3] = 3; t.added = { ok = true }; t.level = nil end)"])
        #expect(records[0].hasSuffix(#""extra":{"n":{"a":[1,2,3]},"added":{"ok":true}}}"#))
    }

    @Test func changesTakeEffectDownstream() {
        let script = """
            rule(function(t)
              t.role = 'error'; t.priority = 4; t.duration = 10; t.placement = 'bottom'; t.policy = 'stack'
              t.source = 'rules'; t.subtitle = 'Details'
            end)
            """
        let records = jsonRecords(show, scripts: [script])
        #expect(records[0] == present("0", "t1", "Saved", role: "error", duration: "10", policy: "stack", priority: 4,
                                      placement: "bottom", subtitle: "Details", source: "rules",
                                      extra: #"{"level":"debug","n":{"a":[1,2]}}"#))
        #expect(records[1] == dismiss("10", "t1", "timeout", shown: "10"))
    }

    @Test func removingTheDurationMeansNoTimeoutAndChangingTheKeyFeedsDedup() {
        let records = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"B","at":1}"#),
                                  scripts: ["rule(function(t) t.duration = nil; t.key = 'same' end)"])
        #expect(records == [
            present("0", "t1", "A", duration: "null"),
            drop("1", "t2", "B", stage: "dedup", "duplicate", of: "t1"),
            dismiss("1", "t1", "host_removed", shown: "1"),
        ])
    }

    @Test func aRoleChangeBringsTheNewRolesPriority() {
        let records = jsonRecords(show, scripts: ["config{ roles = { error = { priority = 3 } } }\nrule(function(t) t.role = 'error' end)"])
        #expect(records[0].contains(#""priority":3"#))
    }

    @Test func wrongTypesAndOddReturnsAreScriptErrorsThatLeaveTheToastAsItWas() {
        let cases: [(String, String)] = [
            ("t.message = 5", "rule \"r\": rules.lua:1: field 'message' must be a string, not number"),
            ("t.role = 'nope'", "rule \"r\": rules.lua:1: unknown role \"nope\" (known: error, info, success, warning)"),
            ("t.priority = 1.5", "rule \"r\": rules.lua:1: field 'priority' must be an integer"),
            ("t.placement = 'left'", "rule \"r\": rules.lua:1: field 'placement' must be \"top\", \"center\" or \"bottom\""),
            ("t.swipe = 'no'", "rule \"r\": rules.lua:1: field 'swipe' must be true or false, not string"),
            ("t.duration = -1", "rule \"r\": rules.lua:1: field 'duration' must be a number of seconds ≥ 0, \"short\" or \"long\""),
            ("t.message = ''", "rule \"r\": rules.lua:1: field 'message' must be a non-empty string"),
            ("t.extra = print", "rule \"r\": rules.lua:1: field 'extra' cannot hold a function"),
            ("return 42", "rule \"r\": rules.lua:1: rule returned number; expected nothing, true, false (and a reason) or a table"),
            ("return 'yes'", "rule \"r\": rules.lua:1: rule returned string; expected nothing, true, false (and a reason) or a table"),
            ("return false, 3", "rule \"r\": rules.lua:1: a rule that returns false may add a string, not number"),
        ]
        for (body, message) in cases {
            let result = runCLI(["--format", "json"], input: show, scripts: ["rule('r', function(t) t.subtitle = 'x'; \(body) end)"])
            #expect(result.status == 65, "\(body)")
            #expect(result.stderr == ["toastscript: \(message) (input line 1)", scriptCallsFailed(1)], "\(body)")
            #expect(result.lines.first == present("0", "t1", "Saved", role: "success", extra: #"{"level":"debug","n":{"a":[1,2]}}"#), "\(body)")
        }
    }
}

@Suite struct LuaErrorTests {
    @Test func aFailingRuleIsSkippedForThatEventAndTheRunEndsWith65() {
        let script = "rule('boom', function(t)\n  if t.message == 'B' then error('cannot handle ' .. t.message) end\n  t.subtitle = 'seen'\nend)"
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"A"}"#, #"{"message":"B","at":5}"#), scripts: [script])
        #expect(result.status == 65)
        #expect(result.stderr == [#"toastscript: rule "boom": rules.lua:2: cannot handle B (input line 2)"#, scriptCallsFailed(1)])
        #expect(result.lines[0] == present("0", "t1", "A", subtitle: "seen"))
        #expect(result.lines[2] == present("5", "t2", "B"))
    }

    @Test func errorValuesThatAreNotStringsStillHaveAPlace() {
        let result = runCLI([], input: lines(#"{"message":"A"}"#), scripts: ["rule(function(t)\n  error({ code = 1 })\nend)"])
        #expect(result.stderr == ["toastscript: rules.lua:2: (error object is a table value) (input line 1)", scriptCallsFailed(1)])
        let meta = runCLI([], input: lines(#"{"message":"A"}"#), scripts: [
            "rule(function(t) error(setmetatable({}, { __tostring = function() return 'custom' end })) end)"])
        #expect(meta.stderr == ["toastscript: rules.lua:1: custom (input line 1)", scriptCallsFailed(1)])
        let broken = runCLI([], input: lines(#"{"message":"A"}"#), scripts: [
            "rule(function(t) error(setmetatable({}, { __tostring = function() error('worse') end })) end)"])
        #expect(broken.status == 65)
        #expect(broken.stderr.count == 2)
        #expect(broken.stderr.last == scriptCallsFailed(1))
    }

    @Test func strictStopsAtTheFirstScriptError() {
        let result = runCLI(["--format", "json", "--strict"], input: lines(#"{"message":"A"}"#, #"{"message":"B","at":1}"#),
                            scripts: ["rule(function(t) error('no') end)"])
        #expect(result.status == 65)
        #expect(result.stderr == ["toastscript: rules.lua:1: no (input line 1)",
                                  "toastscript: stopped by --strict at the first failed script call; the rest of the input was not read",
                                  scriptCallsFailed(1)])
        #expect(result.lines == [present("0", "t1", "A"), dismiss("0", "t1", "host_removed", shown: "0")])
    }

    @Test func aRunawayRuleRunsOutOfBudgetAndTheNextEventsFlow() {
        let script = """
            rule(function(t)
              if t.message == 'loop' then
                while true do pcall(function() while true do end end) end
              end
            end)
            """
        let result = runCLI(["--format", "json", "--lua-budget", "100000"],
                            input: lines(#"{"message":"loop"}"#, #"{"message":"next","at":5}"#), scripts: [script])
        #expect(result.status == 65)
        #expect(result.stderr.count == 2)
        #expect(result.stderr.last == scriptCallsFailed(1))
        #expect(result.stderr.first?.hasSuffix("instruction budget exceeded (input line 1)") == true)
        #expect(result.stderr.first?.hasPrefix("toastscript: rules.lua:3: ") == true)
        #expect(result.lines.contains(present("5", "t2", "next")))
    }

    @Test func runawayAllocationHitsTheMemoryCapAndTheNextEventsFlow() {
        let script = """
            rule(function(t)
              if t.message == 'hog' then
                local hoard = {}
                for i = 1, 1e9 do hoard[i] = string.rep('x', 1000) .. i end
              end
            end)
            """
        let result = runCLI(["--format", "json", "--lua-memory", "8", "--lua-budget", "0"],
                            input: lines(#"{"message":"hog"}"#, #"{"message":"next","at":5}"#), scripts: [script])
        #expect(result.status == 65)
        // The place is the line that allocated, not the rule's.
        #expect(result.stderr == ["toastscript: rules.lua:4: not enough memory (the scripts' memory cap was reached) (input line 1)",
                                  scriptCallsFailed(1)])
        #expect(result.lines.contains(present("5", "t2", "next")))
    }

    @Test func unboundedRecursionIsAnErrorNotACrash() {
        let result = runCLI(["--lua-budget", "0"], input: lines(#"{"message":"A"}"#),
                            scripts: ["local function f(n) return 1 + f(n + 1) end\nrule(function(t) f(1) end)"])
        #expect(result.status == 65)
        #expect(result.stderr.first?.contains("stack overflow") == true)
    }

    @Test func aLoadTimeLoopIsStoppedByTheBudgetToo() {
        let result = runCLI(["--lua-budget", "1000"], input: "", scripts: ["while true do end"])
        #expect(result.status == 1)
        #expect(result.stderr == [loadError("rules.lua:1: instruction budget exceeded", source: "while true do end")])
    }
}

@Suite struct LuaRoleHookEmitTests {
    @Test func roleDefinesANewRoleFromInfoAndChangesABuiltInOne() {
        let script = """
            role('critical', { glyph = '‼', label = 'Critical', priority = 9 })
            role('success', { label = 'Done' })
            """
        let records = jsonRecords(lines(#"{"message":"Fire","role":"critical"}"#, #"{"message":"Ok","role":"success","at":9}"#), scripts: [script])
        #expect(records[0] == #"{"event":"present","t":0,"id":"t1","message":"Fire","role":"critical","placement":"top","policy":"enqueue","priority":9,"duration":3,"symbol":"info.circle.fill","glyph":"‼","color":"blue","announcement":"Critical: Fire","waited":0}"#)
        #expect(records[2].contains(#""symbol":"checkmark.circle.fill","glyph":"✔","color":"green","announcement":"Done: Ok""#))
    }

    @Test func announceTemplatesAndFunctions() {
        let script = """
            role('error', { announce = '{label} from {source}: {message} ({missing})' })
            role('warning', { announce = function(t) return 'Heads up. ' .. t.message:lower() end })
            role('success', { announce = function(t) return 42 end })
            """
        let result = runCLI(["--format", "speech"], input: lines(
            #"{"message":"Disk full","role":"error","source":"backup"}"#, #"{"message":"Low BATTERY","role":"warning","at":9}"#,
            #"{"message":"Saved","role":"success","at":19}"#), scripts: [script])
        #expect(result.stdout == "Error from backup: Disk full ()\nHeads up. low battery\nSuccess: Saved\n")
        #expect(result.stderr.count == 2)
        #expect(result.stderr.last == scriptCallsFailed(1))
        #expect(result.stderr.first?.contains("announce function at rules.lua:3 returned number, not a string (input line 3)") == true)
        #expect(result.status == 65)
    }

    @Test func badRoleSpecsAreLoadErrors() {
        let result = runCLI([], input: "", scripts: ["role('x', { colour = 'red' })"])
        #expect(result.status == 1)
        #expect(result.stderr == [loadError("rules.lua:1: role: unknown setting roles.x.colour; did you mean \"color\"?",
                                            source: "role('x', { colour = 'red' })")])
        #expect(runCLI([], input: "", scripts: ["role('x')"]).stderr == [loadError("rules.lua:1: role expects (name, table)", source: "role('x')")])
    }

    @Test func aStageWithoutSettingsNamedInConfigSaysItTakesNone() {
        let source = "config{ priority = { when = { source = 'metrics' } } }"
        let result = runCLI([], input: "", scripts: [source])
        #expect(result.status == 1)
        #expect(result.stderr == [loadError("rules.lua:1: config: the priority stage takes no settings, nor a when or spare "
                                            + "(the stages that do: dedup, rate_limit, debounce, digest; the host's settings "
                                            + "are under queue)", source: source)])
    }

    @Test func hooksSeeTheRecordAfterItIsWritten() {
        let script = """
            on('present', function(t, info) log('present', t.id, info.t, info.waited, info.announcement) end)
            on('dismiss', function(t, info) log('dismiss', t.id, info.reason, info.shown) end)
            on('drop', function(t, info) log('drop', t.id, info.stage, info.reason, info.of, t.message) end)
            """
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"A","role":"error"}"#, #"{"message":"A","role":"error","at":1}"#), scripts: [script])
        #expect(result.stderr == [
            "present\tt1\t0\t0\tError: A",
            "drop\tt2\tdedup\tduplicate\tt1\tA",
            "dismiss\tt1\ttimeout\t3",
        ])
    }

    @Test func emitBringsInToastsThatGoThroughTheWholePipeline() {
        let script = """
            rule('tag', function(t) t.subtitle = (t.subtitle or '') .. '+' end)
            on('dismiss', function(t, info)
              if t.id == 't1' then
                local id = emit{ message = 'Follow-up for ' .. t.id, role = 'success' }
                log('emitted', id)
              end
            end)
            local early = emit{ message = 'Hello', id = 'hello' }
            log('early', early, now())
            """
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"A","at":1}"#), scripts: [script])
        #expect(result.stderr == ["early\thello\t0.0", "emitted\te1"])
        #expect(result.lines == [
            present("0", "hello", "Hello", subtitle: "+"),
            dismiss("3", "hello", "timeout", shown: "3"),
            present("3", "t1", "A", waited: "2", subtitle: "+"),
            dismiss("6", "t1", "timeout", shown: "3"),
            present("6", "e1", "Follow-up for t1", role: "success", subtitle: "+"),
            dismiss("9", "e1", "timeout", shown: "3"),
        ])
    }

    @Test func emitAndSummariesShareTheCounterAndBadTablesAreErrors() {
        let script = """
            config{ rate_limit = { limit = 1, window = 2, summary = true }, dedup = false }
            rule(function(t) if t.message == 'go' then emit{ message = 'from rule' } end end)
            """
        let records = jsonRecords(lines(#"{"message":"go"}"#, #"{"message":"x","at":0.5}"#), scripts: [script])
        // The emitted toast comes after "go" in the same group, so the limit drops it.
        #expect(records.contains(drop("0", "e1", "from rule", stage: "rate_limit", "rate_limited")))
        #expect(records.contains(present("3", "e2", "2 more notifications", waited: "1", extra: #"{"count":2,"ids":["e1","t2"]}"#)))
        let bad = runCLI([], input: lines(#"{"message":"go"}"#), scripts: ["rule(function(t) emit{ role = 'info' } end)"])
        #expect(bad.stderr == ["toastscript: rules.lua:1: emit: field 'message' must be a non-empty string (input line 1)",
                               scriptCallsFailed(1)])
    }

    @Test func aLogLineStaysOneLineAndCannotActOnTheTerminal() {
        let result = runCLI([], input: "", scripts: ["log('a\\nb', '\\27[2J')"])
        #expect(result.stderr == ["a\\nb\t\\u001b[2J"])
    }

    @Test func logConvertsWithTostringAndPrintGoesToStderrToo() {
        let result = runCLI([], input: "", scripts: ["log('a', 1, nil, true, 2.5)\nprint('to stderr')"])
        #expect(result.stderr == ["a\t1\tnil\ttrue\t2.5", "to stderr"])
        #expect(result.stdout.isEmpty)
    }

    @Test func stagesCanBeReorderedAndRemoved() {
        let script = """
            config{ stages = { 'dedup', 'rules', 'style', 'announce' } }
            rule(function(t) t.message = 'same' end)
            """
        // Dedup runs first, on the original messages, so both pass it; the host sees a repeat.
        let records = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"B"}"#), scripts: [script])
        #expect(records.contains(drop("0", "t2", "same", stage: "host", "repeat")))
        #expect(!records.contains { $0.contains("duplicate") })
        // In the default order dedup sees what the rule made.
        let defaultOrder = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"B"}"#),
                                       scripts: ["rule(function(t) t.message = 'same' end)"])
        #expect(defaultOrder.contains(drop("0", "t2", "same", stage: "dedup", "duplicate", of: "t1")))
    }
}

@Suite struct LuaSandboxTests {
    @Test func onlyTheListedLibrariesAreThere() {
        let script = """
            local absent = { 'io', 'debug', 'package', 'require', 'dofile', 'loadfile', 'collectgarbage' }
            for _, name in ipairs(absent) do if _G[name] ~= nil then log('present: ' .. name) end end
            for _, name in ipairs({ 'getenv', 'exit', 'execute', 'remove', 'rename', 'tmpname', 'setlocale' }) do
              if os[name] ~= nil then log('present: os.' .. name) end
            end
            log(string.upper('ok'), table.concat({ 'a', 'b' }), math.max(1, 2), utf8.char(233), type(os.time()),
                os.date('!%Y', 0), type(os.clock()))
            local ok, err = pcall(load, string.dump(function() end))
            local chunk, message = load(string.dump(function() end))
            log(chunk == nil, message)
            log(load('return 1 + 1')())
            """
        let result = runCLI([], input: "", scripts: [script])
        #expect(result.stderr == [
            "present: collectgarbage",
            "OK\tab\t2\té\tnumber\t1970\tnumber",
            "true\tattempt to load a binary chunk (mode is 't')",
            "2",
        ])
    }

    @Test func unsafeLuaOpensEverything() {
        let result = runCLI(["--unsafe-lua"], input: "", scripts: ["log(type(io), type(os.getenv), type(require), type(debug))"])
        #expect(result.stderr == ["table\tfunction\tfunction\ttable"])
    }

    @Test func theStackStaysBalancedOverThousandsOfCalls() throws {
        let errors = ScriptErrorLog()
        let runtime = try LuaRuntime(reportError: errors.add)
        try runtime.load(source: """
            rule(function(t) if t.message == 'x3' then return false end end)
            rule(function(t) if t.message == 'x5' then error('bad') end end)
            rule(function(t) if t.message == 'x7' then return { message = 'new' } end end)
            rule(function(t) if t.message == 'x8' then return 5 end end)
            on('present', function(t, info) end)
            on('drop', function(t, info) if t.message == 'x3' then emit{ message = 'again' } end end)
            role('x', { announce = function(t) return t.message end })
            """, name: "balance")
        let pipeline = try Pipeline(scripts: runtime.loaded, output: RecordFanOut([]))
        for index in 0..<5_000 {
            let toast = Toast(id: "t\(index)", message: "x\(index % 10)", role: index % 2 == 0 ? "x" : "info")
            pipeline.handle(Event(.show(toast), at: Microseconds(index) * 100_000, line: index + 1))
        }
        pipeline.finish(drain: true)
        #expect(runtime.state.top == 0)
        #expect(errors.errors.count == 1_000)
        #expect(errors.errors.first?.message == "balance:2: bad" && errors.errors.first?.inputLine == 6)
        #expect(errors.errors.first?.place?.file == "balance" && errors.errors.first?.place?.line == 2)
    }
}
