@testable import ToastLua
import Testing

/// `store` read out of one Lua state and written into the next, as a reload does.
@Suite struct LuaStoreTests {
    @Test func whatAScriptKeepsComesBackAsItWas() throws {
        let old = try LuaRuntime()
        try old.load(source: """
            store.count = 3
            store.ratio = 0.5
            store.on = true
            store.names = { "a", "b" }
            store.bySource = { net = { since = 12, count = 2 } }
            """, name: "old.lua")
        let kept = old.keptStore()
        guard case .table(let entries) = kept else { Issue.record("not a table: \(kept)"); return }
        let byName = Dictionary(uniqueKeysWithValues: entries.compactMap { entry -> (String, StoredValue)? in
            if case .string(let name) = entry.key { return (name, entry.value) } else { return nil }
        })
        #expect(byName["count"] == .integer(3))
        #expect(byName["ratio"] == .number(0.5))
        #expect(byName["on"] == .boolean(true))
        #expect(byName["names"] == .table([StoredEntry(.integer(1), .string("a")), StoredEntry(.integer(2), .string("b"))]))

        var logged: [String] = []
        let new = try LuaRuntime(writeLog: { logged.append($0) })
        new.restoreStore(kept)
        try new.load(source: """
            log(store.count, math.type(store.count), store.ratio, store.on, #store.names, store.names[2],
                store.bySource.net.since, store.bySource.net.count)
            """, name: "new.lua")
        #expect(logged == ["3\tinteger\t0.5\ttrue\t2\tb\t12\t2"])
    }

    @Test func whatCannotBeKeptIsLeftOutAndNamedByItsPath() throws {
        var errors: [String] = []
        let runtime = try LuaRuntime(reportError: { errors.append($0.description) })
        try runtime.load(source: """
            store.fine = 1
            store.list = { 1, print, 3 }
            store[2.5] = "a float key"
            store.deep = {}
            local level = store.deep
            for i = 1, 150 do level.next = {}; level = level.next end
            store.loop = { }
            store.loop.back = store.loop
            """, name: "keep.lua")
        let kept = runtime.keptStore()
        #expect(errors.sorted() == [
            "store has a key of type number; keys are strings or integers (reload)",
            "store.deep" + String(repeating: ".next", count: 99)
                + " nests tables deeper than 100 levels, which cannot be kept (reload)",
            "store.list[2] is a function, which cannot be kept (reload)",
            "store.loop.back holds the table it is in (a cycle), which cannot be kept (reload)",
        ])
        guard case .table(let entries) = kept else { Issue.record("not a table"); return }
        #expect(entries.contains(StoredEntry(.string("fine"), .integer(1))))
        #expect(entries.contains(StoredEntry(.string("list"), .table([StoredEntry(.integer(1), .integer(1)),
                                                                      StoredEntry(.integer(3), .integer(3))]))))
    }

    @Test func aStoreThatIsNotATableIsKeptEmpty() throws {
        var errors: [String] = []
        let runtime = try LuaRuntime(reportError: { errors.append($0.description) })
        try runtime.load(source: "store = 42", name: "replace.lua")
        #expect(runtime.keptStore() == .table([]))
        #expect(errors == ["store is a number, not a table; it is kept as an empty table (reload)"])
    }
}
