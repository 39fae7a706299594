import Testing
@testable import ToastCore
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// The toast table is a proxy (docs/lua.md "The toast table"): what a script can do with it,
/// and that Lua lets go of the proxies it no longer needs.
@Suite struct LuaProxyTests {
    private let show = lines(#"{"message":"M","subtitle":"S","source":"net","level":"debug","n":{"a":[1,2]}}"#)

    @Test func readsSeeWritesAndRemovals() {
        let script = """
            rule(function(t)
              t.message = 'New'
              t.subtitle = nil
              t.level = nil
              log(t.message, tostring(t.subtitle), tostring(t.level), t.source, t.n.a[2], tostring(t.nope))
            end)
            """
        let result = runCLI(["--format", "json"], input: show, scripts: [script])
        #expect(result.stderr == ["New\tnil\tnil\tnet\t2\tnil"])
        #expect(result.lines.first == present("0", "t1", "New", source: "net", extra: #"{"n":{"a":[1,2]}}"#))
    }

    @Test func pairsShowsTheToastWithWhatWasWritten() {
        let script = """
            rule(function(t)
              t.subtitle = nil
              t.team = 'sync'
              local names = {}
              for name, value in pairs(t) do names[#names + 1] = name end
              table.sort(names)
              log(table.concat(names, ' '))
            end)
            """
        let result = runCLI([], input: show, scripts: [script])
        #expect(result.stderr == ["after at dismiss_on_long_press dismiss_on_tap duration id level message n placement policy priority role source swipe team type"])
    }

    @Test func aKeptTableStillShowsItsToastLaterAndCanBeEmitted() {
        let script = """
            local first
            rule(function(t)
              if not first then first = t; t.subtitle = 'seen' return end
              if t.message == 'again' then
                log(first.message, first.subtitle, first.source)
                first.message = 'First again'
                emit(first)
              end
            end)
            """
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"One","source":"net","duration":1}"#,
                                                               #"{"message":"again","at":5,"duration":1}"#), scripts: [script])
        #expect(result.stderr == ["One\tseen\tnet"])
        #expect(result.lines.contains(present("6", "t1", "First again", waited: "1", duration: "1", subtitle: "seen", source: "net")))
    }

    @Test func returningTheToastItselfKeepsItWithItsChanges() {
        let records = jsonRecords(show, scripts: ["rule(function(t) t.message = 'Changed'; return t end)"])
        #expect(records.first == present("0", "t1", "Changed", subtitle: "S", source: "net", extra: #"{"level":"debug","n":{"a":[1,2]}}"#))
    }

    @Test func whatATableCannotDoWithAProxy() {
        let script = """
            rule(function(t)
              log(getmetatable(t), #t, tostring(next(t)), tostring(rawget(t, 'message')))
              log(pcall(setmetatable, t, {}))
              t[1] = 'x'
            end)
            """
        let result = runCLI(["--format", "json"], input: show, scripts: [script])
        #expect(result.stderr == [
            "toast\t0\tnil\tnil",
            "false\tcannot change a protected metatable",
            "toastscript: rules.lua:1: rule: the toast table has a key of type number; fields need names (input line 1)",
            scriptCallsFailed(1),
        ])
        #expect(result.lines.first == present("0", "t1", "M", subtitle: "S", source: "net", extra: #"{"level":"debug","n":{"a":[1,2]}}"#))
        let nilKey = runCLI([], input: show, scripts: ["rule(function(t)\n  t[nil] = 1\nend)"])
        #expect(nilKey.stderr == ["toastscript: rules.lua:2: index is nil (input line 1)", scriptCallsFailed(1)])
    }

    @Test func theRulesOfOneToastShareOneTableShowingWhatTheRulesBeforeLeft() {
        let script = """
            local seen, first
            rule(function(t) seen = t; first = first or t; t.message = t.message .. '+1' end)
            rule(function(t)
              t.message = 'partial'; t.subtitle = nil; t[1] = 'x'
              error('boom')
            end)
            rule(function(t) log(t == seen, t == first, t.message, tostring(t.subtitle), tostring(rawget(t, 1)), tostring(next(t))) end)
            rule(function(t) return {message = 'Replaced', team = 'sync'} end)
            rule(function(t) log(t == seen, t.message, tostring(t.subtitle), t.team, t.id) end)
            """
        let result = runCLI(["--format", "json"], input: show + lines(#"{"message":"Next"}"#), scripts: [script])
        #expect(result.stderr == [
            "toastscript: rules.lua:5: boom (input line 1)",
            "true\ttrue\tM+1\tS\tnil\tnil",
            "true\tReplaced\tnil\tsync\tt1",
            "toastscript: rules.lua:5: boom (input line 2)",
            "true\tfalse\tNext+1\tnil\tnil\tnil",
            "true\tReplaced\tnil\tsync\tt2",
            scriptCallsFailed(2),
        ])
        #expect(result.lines.first == present("0", "t1", "Replaced", extra: #"{"team":"sync"}"#))
    }

    /// What the last rule writes is the toast's, not the table's: the next toast's rules get a
    /// table with nothing written, whether or not the last rule's writes were taken back out of
    /// the one table the rules share (they are, only when a rule may have kept it).
    @Test func theLastRulesWritesStayWithTheirToast() {
        let script = """
            rule(function(t) log(tostring(next(t)), tostring(rawget(t, 'message')), t.message, tostring(t.note)) end)
            rule(function(t) t.message = t.message .. '!'; t.note = 'x' end)
            """
        let result = runCLI(["--format", "json"], input: show + lines(#"{"message":"Next"}"#), scripts: [script])
        #expect(result.stderr == ["nil\tnil\tM\tnil", "nil\tnil\tNext\tnil"])
        #expect(result.lines.first == present("0", "t1", "M!", subtitle: "S", source: "net",
                                              extra: #"{"level":"debug","n":{"a":[1,2]},"note":"x"}"#))
    }

    /// A table a rule keeps shows its toast as the rules left it: what the last rule wrote is
    /// read through it as the toast's own field, not found in the table by `rawget` or `next`.
    @Test func aKeptTableShowsWhatTheLastRuleWroteAsTheToasts() {
        let script = """
            local kept
            rule(function(t)
              if kept then log(tostring(rawget(kept, 'message')), tostring(next(kept)), kept.message, kept.note) end
              kept = t
            end)
            rule(function(t) t.message = t.message .. '!'; t.note = 'x' end)
            """
        let result = runCLI(["--format", "json"], input: show + lines(#"{"message":"Next"}"#), scripts: [script])
        #expect(result.stderr == ["nil\tnil\tM!\tx"])
    }

    /// The rules of one toast remember what they read (a second read is a table lookup in
    /// Lua); what a rule removes or changes must not show through from there.
    @Test func aValueReadByAnEarlierRuleDoesNotShowThroughARemovalOrChange() {
        let script = """
            rule(function(t) log(t.subtitle, t.message, t.level) end)
            rule(function(t) log(t.subtitle, t.message, t.level); t.subtitle = nil; t.level = nil; log(tostring(t.subtitle), tostring(t.level)) end)
            rule(function(t) log(tostring(t.subtitle), t.message, tostring(t.level)); t.message = 'Changed' end)
            rule(function(t) log(t.message) end)
            """
        let result = runCLI(["--format", "json"], input: show, scripts: [script])
        #expect(result.stderr == ["S\tM\tdebug", "S\tM\tdebug", "nil\tnil", "nil\tM\tnil", "Changed"])
        #expect(result.lines.first == present("0", "t1", "Changed", source: "net", extra: #"{"n":{"a":[1,2]}}"#))
    }

    /// A name is remembered from its second read of a toast on, and from its first read of
    /// every later toast once that happened: what a rule removes or changes must still not show
    /// through, whichever read remembered it.
    @Test func aValueRememberedFromAnEarlierToastDoesNotShowThroughARemoval() {
        let script = """
            rule(function(t) log(t.subtitle, t.subtitle) end)
            rule(function(t) t.subtitle = nil; log(tostring(t.subtitle)) end)
            rule(function(t) log(tostring(t.subtitle), t.message); t.message = t.message .. '!' end)
            rule(function(t) log(t.message) end)
            """
        let input = lines(#"{"message":"A","subtitle":"one"}"#, #"{"message":"B","subtitle":"two","at":5}"#)
        let result = runCLI(["--format", "json"], input: input, scripts: [script])
        #expect(result.stderr == ["one\tone", "nil", "nil\tA", "A!", "two\ttwo", "nil", "nil\tB", "B!"])
        #expect(result.status == 0)
    }

    @Test func aRoleChangedByARuleShowsInTheNextRulesTable() {
        let script = """
            rule(function(t) log(t.priority); role('info', { priority = 5 }) end)
            rule(function(t) log(t.priority) end)
            """
        let result = runCLI([], input: lines(#"{"message":"M"}"#), scripts: [script])
        #expect(result.stderr == ["0", "5"])
    }

    @Test func luaCollectsTheProxiesOfPastToasts() throws {
        let runtime = try LuaRuntime()
        try runtime.load(source: "kept = {}\nrule(function(t) if t.message == 'keep' then kept[#kept + 1] = t end end)", name: "rules.lua")
        let pipeline = try Pipeline(scripts: runtime.loaded, output: RecordLog())
        for index in 0..<20_000 {
            let message = index % 1_000 == 0 ? "keep" : "m\(index)"
            pipeline.handle(Event(.show(Toast(id: "t\(index)", message: message)), at: Int64(index) * 1_000_000))
        }
        #expect(runtime.state.proxies.count < 2_000, "proxies of toasts no script keeps are collected")
        #expect(runtime.state.proxies.count >= 20, "the 20 kept ones stay")
    }
}

/// The table of live proxies by address: inserts, lookups and removals held to a dictionary
/// through many growths and removals inside long probe runs (it fails when the removal's
/// shift is broken).
@Suite struct ProxyTableTests {
    @Test func theTableAgreesWithADictionaryThroughInsertsAndRemovals() {
        var table = ProxyTable()
        var model: [UInt: ToastProxy] = [:]
        let proxies = (0..<8).map { ToastProxy(toast: Toast(id: "t\($0)", message: "M"), roles: .builtIn) }
        var random = InvariantTests.SeededGenerator(state: 5)
        // Addresses 16 bytes apart, as the allocator hands out tables, from a range small enough
        // that runs form and break apart.
        func address(_ number: UInt) -> UnsafeRawPointer { UnsafeRawPointer(bitPattern: 0x10_0000 + number * 16)! }
        for step in 0..<30_000 {
            let number = UInt.random(in: 0..<(step < 15_000 ? 600 : 90), using: &random)
            if Bool.random(using: &random) {
                let proxy = proxies[Int(number % 8)]
                table[address(number)] = proxy
                model[number] = proxy
            } else {
                table[address(number)] = nil
                model[number] = nil
            }
        }
        #expect(table.count == model.count)
        for number in 0..<600 as Range<UInt> {
            #expect(table[address(number)] === model[number], "address \(number)")
        }
    }
}
