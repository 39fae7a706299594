import ToastCore

/// The toast table a rule, hook or `announce` function gets is a proxy: an empty Lua table
/// whose metatable answers from the Swift toast. A call then costs what the script touches,
/// not a table of every field built before it and read back after it.
///
/// - Reading a field (`t.message`) pushes the toast's value, unless the script wrote it.
/// - Writing stores the value in the table itself and remembers the name; after the call only
///   the names written are read back (nil removes a field).
/// - An extra field holding a table is stored in the proxy when first read, so changes made
///   inside it (`t.n.a[3] = 3`) are read back too.
/// - `pairs(t)` walks a full copy; `next(t)` and `rawget(t, k)` see only what was written.
///   The metatable is protected (`getmetatable(t)` is `"toast"`).
/// - A proxy keeps its toast until Lua collects it (`__gc`), so a script may keep one.
///
/// What is reused, and when it is stale, follows one rule (`LuaState.tableChanged`; measured
/// in docs/performance.md, "What the Lua bridge keeps between calls"): a generation counts
/// what the rules' table shows, and a cached value is used only at the generation it was
/// filled at.
///
/// - When no rule can keep its table (`leavesFirstArgument` reads each rule's code), the
///   rules' proxy is one table for every toast: reset for the next toast instead of made anew,
///   and holding no toast between toasts (`releaseRuleToast`).
/// - The rules of one toast share one proxy (the Lua API's promise): after each rule it is
///   reset to show the toast as that rule left it. While it is the rules' current proxy, its
///   first read of a field is answered in C from a view of the toast (`RuleToastView.swift`),
///   and a value of a name the rules read more than once is kept in a table behind it
///   (`shortcuts.values`, its metatable's `__index`; see `clua_remembers`), so the next read of it
///   costs Lua a table lookup; when the next toast comes, the proxy gets the plain metatable
///   back.
final class ToastProxy {
    // Only the proxy callbacks touch it, one at a time, and no Lua code runs during an access
    // (pushing a value may collect garbage, whose `__gc` touches only `LuaState.proxies`).
    private var state: State
    /// The roles of the run, for the priority a toast takes from its role.
    let roles: RoleTable

    private struct State {
        var toast: Toast
        var touched: [TouchedName] = []
        var hasOtherKey = false
    }

    init(toast: Toast, roles: RoleTable) {
        self.state = State(toast: toast)
        self.roles = roles
    }

    /// The toast the table shows.
    var toast: Toast {
        _read { yield state.toast }
        _modify { yield &state.toast }
    }
    /// Names the script wrote, or table-valued extras it read, in order, with the field each
    /// names (nil for an extra field), found once by the key's identity.
    var touched: [TouchedName] {
        _read { yield state.touched }
        _modify { yield &state.touched }
    }
    /// A key that is not a string was written (an error when the toast is read back).
    var hasOtherKey: Bool {
        _read { yield state.hasOtherKey }
        _modify { yield &state.hasOtherKey }
    }

    /// Nothing was written since it was made or reset.
    var isUnwritten: Bool { touched.isEmpty && !hasOtherKey }
}

/// A name a script wrote to a toast table.
struct TouchedName {
    let name: String
    /// The field it names; nil for an extra field.
    let field: ToastField?
}

extension LuaState {
    /// Pushes a proxy for `toast`; returns its Swift side.
    @discardableResult
    func pushProxy(_ toast: Toast, roles: RoleTable, metatable: LuaReference? = nil) -> ToastProxy {
        pushTable(arrayCount: 0, fieldCount: 0)
        pushReference(metatable ?? proxyMetatable)
        setMetatable(ofValueAt: -2)
        let proxy = ToastProxy(toast: toast, roles: roles)
        if let pointer = pointer(at: -1) { proxies[pointer] = proxy }
        return proxy
    }

    /// Pushes the proxy for a rule's call on `toast`: the one the previous rule got, when it
    /// shows this very toast and nothing was written to it since its reset; else a new one.
    /// Returns its Swift side.
    func pushRuleProxy(_ toast: Toast, roles: RoleTable) -> ToastProxy {
        if let proxy = shortcuts.proxy?.proxy, proxy.isUnwritten, proxy.toast.sharesStorage(with: toast) {
            pushReference(shortcuts.proxyReference)
            if !ruleViewIsCurrent { fillRuleView(proxy) }
            return proxy
        }
        if let proxy = shortcuts.proxy?.proxy, shortcuts.proxyReference != LuaState.noReference, !shortcuts.rulesMayKeepTheirTable, ruleRunsActive == 1 {
            // No rule can have kept the table, and no rule holds it now: the next toast gets it.
            pushReference(shortcuts.proxyReference)
            reset(proxy, at: -1, showing: toast)
            return proxy
        }
        retireRuleProxy()
        let proxy = pushProxy(toast, roles: roles, metatable: shortcuts.metatable)
        fillRuleView(proxy)
        shortcuts.proxy = (proxy, pointer(at: -1))
        pushCopy(of: -1)
        if shortcuts.proxyReference == LuaState.noReference {
            shortcuts.proxyReference = makeReference()
        } else {
            rawSet(element: shortcuts.proxyReference.raw, ofTableAt: LuaState.registryIndex)
        }
        return proxy
    }

    /// The rules are done with the toast their table shows: when no rule can have kept the
    /// table, it holds no toast until the next (which it then shows, see `pushRuleProxy`), so
    /// that the toast's storage has one owner again and the next stage's change to it is made
    /// in place rather than on a copy.
    func releaseRuleToast() {
        guard !shortcuts.rulesMayKeepTheirTable, let proxy = shortcuts.proxy?.proxy else { return }
        tableChanged()
        proxy.toast = noToast
    }

    /// The next rule makes a new proxy (the roles a proxy holds may have changed).
    func forgetRuleProxy() {
        guard shortcuts.proxyReference != LuaState.noReference else { return }
        retireRuleProxy()
        release(shortcuts.proxyReference)
        shortcuts.proxyReference = LuaState.noReference
        shortcuts.proxy = nil
    }

    /// The current rule proxy (a script may have kept it) gets the plain metatable, and the
    /// values read for it are forgotten.
    private func retireRuleProxy() {
        guard shortcuts.proxy != nil, shortcuts.proxyReference != LuaState.noReference else { return }
        tableChanged()
        pushReference(shortcuts.proxyReference)
        pushReference(proxyMetatable)
        setMetatable(ofValueAt: -2)
        pop(1)
    }

    /// Empties `shortcuts.values`: only `tableChanged` does, when what the table shows changed.
    func emptyRuleValues() {
        ruleValuesFilled = false
        pushReference(shortcuts.values)
        pushNil()
        while next(ofTableAt: -2) {
            pop(1)
            pushCopy(of: -1)
            pushNil()
            rawSet(tableAt: -4)
        }
        pop(1)
    }

    /// Makes `proxy`, the table at `index`, show `toast` with nothing written, as a new one
    /// would.
    func reset(_ proxy: ToastProxy, at index: LuaIndex, showing toast: Toast) {
        let index = absoluteIndex(index)
        if proxy.hasOtherKey {
            pushNil()
            while next(ofTableAt: index) {
                pop(1)
                pushCopy(of: -1)
                pushNil()
                rawSet(tableAt: index)
            }
        } else {
            for touched in proxy.touched {
                push(touched.name)
                pushNil()
                rawSet(tableAt: index)
            }
        }
        if !proxy.isUnwritten || !proxy.toast.sharesStorage(with: toast) { tableChanged() }
        // One at a time: `removeAll(keepingCapacity:)` goes through the array's generic
        // `replaceSubrange`, which costs more than the few names a rule touches.
        while proxy.touched.popLast() != nil {}
        proxy.hasOtherKey = false
        proxy.toast = toast
        if proxy === shortcuts.proxy?.proxy && !ruleViewIsCurrent { fillRuleView(proxy) }
    }

    /// The Swift side of the proxy table at `pointer` (the table's address, as an identity:
    /// never read through), the current rule's looked at first.
    func proxy(forTable pointer: UnsafeRawPointer) -> ToastProxy? {
        if let cached = shortcuts.proxy, cached.table == pointer { return cached.proxy }
        return proxies[pointer]
    }

    /// The proxy's state, when the value at `index` is a live proxy.
    func proxy(at index: LuaIndex) -> ToastProxy? {
        guard type(at: index) == .table, let pointer = pointer(at: index) else { return nil }
        return proxy(forTable: pointer)
    }

    /// Pushes a plain table with every field the proxy at `index` shows: its toast's, then
    /// what the script wrote over them.
    func pushMaterialized(proxyAt index: LuaIndex) {
        let index = absoluteIndex(index)
        guard let proxy = proxy(at: index) else {
            pushTable(arrayCount: 0, fieldCount: 0)
            return
        }
        pushToast(proxy.toast, roles: proxy.roles)
        guard reserve(4) else { return }
        for touched in proxy.touched {
            push(touched.name)
            pushNil()
            rawSet(tableAt: -3)
        }
        pushNil()
        while next(ofTableAt: index) {
            pushCopy(of: -2)
            insert(at: -2)
            rawSet(tableAt: -4)
        }
    }

    /// The toast after a call that kept it: the original with what the script touched in
    /// `proxy`, the table at `index`, read back over it. `defaults` gives the value of a
    /// removed field (built only then).
    func toast(from proxy: ToastProxy, at index: LuaIndex, original: Toast, defaults: @autoclosure () -> Toast,
               roles: RoleTable) throws -> Toast {
        let index = absoluteIndex(index)
        guard !proxy.isUnwritten else { return original }
        let top = self.top
        defer { setTop(top) }
        if proxy.hasOtherKey {
            pushNil()
            while next(ofTableAt: index) {
                if type(at: -2) != .string {
                    throw LuaBridgeError("the toast table has a key of type \(typeName(at: -2)); fields need names")
                }
                pop(1)
            }
        }
        var toast = original
        var added: [JSONMember] = []
        for touched in proxy.touched {
            let name = touched.name
            push(name)
            let type = rawGet(tableAt: index)
            defer { pop(1) }
            if let field = touched.field {
                if type == .nilValue {
                    toast.removeField(field, defaults: defaults())
                } else {
                    try readField(field, into: &toast, original: original, roles: roles)
                }
            } else if let position = toast.extra.firstIndex(where: { $0.name == name }) {
                if type == .nilValue {
                    toast.extra.remove(at: position)
                } else {
                    toast.extra[position].value = try jsonValue(at: -1, path: name)
                }
            } else if type != .nilValue {
                added.append(JSONMember(name, try jsonValue(at: -1, path: name)))
            }
        }
        // Extra fields a script adds follow the toast's own, by name. (Without any, the
        // toast's extra fields stay as they are, stored text included.)
        if !added.isEmpty { toast.extra += added.sorted { $0.name < $1.name } }
        guard toast.hasMessage else { throw LuaBridgeError("field 'message' must be a non-empty string") }
        return toast
    }
}

extension LuaRuntime {
    /// Creates the metatable every proxy shares.
    func installProxyMetatable() {
        state.pushTable(arrayCount: 0, fieldCount: 5)
        state.pushFunction({ L in LuaRuntime.from(L)?.proxyIndex().raw ?? 0 }, upvalueCount: 0)
        state.setField("__index", ofTableAt: -2)
        state.pushFunction({ L in LuaRuntime.from(L)?.proxyNewIndex().raw ?? 0 }, upvalueCount: 0)
        state.setField("__newindex", ofTableAt: -2)
        state.pushFunction({ L in LuaRuntime.from(L)?.proxyPairs().raw ?? 0 }, upvalueCount: 0)
        state.setField("__pairs", ofTableAt: -2)
        state.pushFunction({ L in LuaRuntime.from(L)?.proxyCollected().raw ?? 0 }, upvalueCount: 0)
        state.setField("__gc", ofTableAt: -2)
        state.push("toast")
        state.setField("__metatable", ofTableAt: -2)
        state.proxyMetatable = state.makeReference()
        // The rules' current proxy: `shortcuts.values` as `__index`, a table that asks C for what it
        // lacks (`clua_ruleindex`: the view of the toast, else the Swift reader), the rest as
        // the plain metatable has it.
        state.pushTable(arrayCount: 0, fieldCount: 0)
        state.pushTable(arrayCount: 0, fieldCount: 1)
        state.pushFunction({ L in LuaRuntime.from(L)?.ruleValueIndex().raw ?? 0 }, upvalueCount: 0)
        state.pushRuleIndex()
        state.setField("__index", ofTableAt: -2)
        state.setMetatable(ofValueAt: -2)
        state.shortcuts.values = state.makeReference()
        state.pushTable(arrayCount: 0, fieldCount: 5)
        state.pushReference(state.proxyMetatable)
        state.pushNil()
        while state.next(ofTableAt: -2) {
            state.pushCopy(of: -2)
            state.insert(at: -2)
            state.rawSet(tableAt: -5)
        }
        state.pop(1)
        state.pushReference(state.shortcuts.values)
        state.setField("__index", ofTableAt: -2)
        state.shortcuts.metatable = state.makeReference()
        // `pairs(t)` hands out the base library's `next`, whatever a script does to the global.
        _ = state.pushGlobal("next")
        state.nextFunction = state.makeReference()
    }

    /// `t[k]`: the toast's value, unless the script wrote the field (then it is in the table
    /// itself, and this runs only if it was removed).
    private func proxyIndex() -> LuaResults {
        state.setTop(2)
        guard let pointer = state.pointer(at: 1), let proxy = state.proxy(forTable: pointer) else {
            state.pushNil()
            return 1
        }
        _ = pushValue(of: proxy, table: 1, key: 2)
        return 1
    }

    /// `shortcuts.values[k]`, a field the rules' current proxy `t` did not read yet and the C view
    /// cannot answer: what `t[k]` shows, remembered in `shortcuts.values` (at 1) unless it is nil
    /// or a table (a table-valued extra field is kept in `t` itself, see `pushValue`).
    private func ruleValueIndex() -> LuaResults {
        state.setTop(2)
        guard let proxy = state.shortcuts.proxy?.proxy, state.shortcuts.proxyReference != LuaState.noReference else {
            state.pushNil()
            return 1
        }
        if state.type(at: 2) == .string, let key = state.pointer(at: 2) { state.noteRuleRead(key: key) }
        // 1: shortcuts.values, 2: k; the table `t` itself is fetched only for a table-valued extra.
        if pushValue(of: proxy, table: nil, key: 2), let name = state.pointer(at: 2), state.remembersValue(ofName: name) {
            state.pushCopy(of: 2)
            state.pushCopy(of: 3)
            state.rawSet(tableAt: 1)
            state.ruleValuesFilled = true
        }
        return 1
    }

    /// Pushes what the proxy `table` shows for the key at `key`: the toast's value, or nil for
    /// a field the script removed, or for anything else. A table-valued extra field is also
    /// stored in the table, so changes made inside it are read back (`table` nil: the rules'
    /// current proxy, fetched then). Returns whether the value stays what `table` shows until
    /// the script writes to it (neither nil nor a table).
    private func pushValue(of proxy: ToastProxy, table: LuaIndex?, key: LuaIndex) -> Bool {
        guard state.type(at: key) == .string, let pointer = state.pointer(at: key), state.reserve(3) else {
            state.pushNil()
            return false
        }
        if let field = state.field(forKey: pointer) {
            if !proxy.touched.isEmpty && proxy.touched.contains(where: { $0.field == field }) {
                state.pushNil()
                return false
            }
            state.pushField(field, of: proxy.toast, roles: proxy.roles)
            return state.type(at: -1) != .nilValue
        }
        guard let name = state.stringBytes(at: key) else {
            state.pushNil()
            return false
        }
        if name.elementsEqual(LuaState.madeByName.utf8) {
            // Not a field: the name of the stage that made the toast, read only.
            if let madeBy = proxy.toast.madeBy { state.push(madeBy) } else { state.pushNil() }
            return false
        }
        if !proxy.touched.isEmpty && proxy.touched.contains(where: { $0.field == nil && $0.name.utf8.elementsEqual(name) }) {
            state.pushNil()
            return false
        }
        let isTable: Bool? = proxy.toast.withExtraValue(named: name) { value in
            switch value {
            case .text(let text):
                state.push(bytes: text)
                return false
            case .value(let value):
                state.push(value)
                if case .array = value { return true }
                if case .object = value { return true }
                return false
            }
        }
        guard let isTable else {
            state.pushNil()
            return false
        }
        if isTable {
            if let table {
                state.pushCopy(of: key)
                state.pushCopy(of: -2)
                state.rawSet(tableAt: table)
            } else {
                state.pushReference(state.shortcuts.proxyReference)
                state.pushCopy(of: key)
                state.pushCopy(of: -3)
                state.rawSet(tableAt: -3)
                state.pop(1)
            }
            proxy.touched.append(TouchedName(name: String(decoding: name, as: UTF8.self), field: nil))
            state.tableChanged()
            return false
        }
        return true
    }

    /// `t[k] = v`: stored in the table, and the name remembered for reading back.
    private func proxyNewIndex() -> LuaResults {
        state.setTop(3)
        guard let pointer = state.pointer(at: 1) else { return 0 }
        switch state.type(at: 2) {
        case .nilValue:
            return raise("index is nil")
        case .number where state.number(at: 2).isNaN:
            return raise("index is NaN")
        case .string:
            let name = state.string(at: 2) ?? ""
            let field = state.pointer(at: 2).flatMap(state.field(forKey:))
            if let reason = readOnlyReason(field, name) { return raise("field \(quoted(name)) is read-only: \(reason)") }
            if let proxy = state.proxy(forTable: pointer), !proxy.touched.contains(where: { $0.name == name }) {
                proxy.touched.append(TouchedName(name: name, field: field))
            }
        default:
            state.proxy(forTable: pointer)?.hasOtherKey = true
        }
        // Before the write: a value remembered for the name must not show through once the
        // script removes the field.
        state.tableChanged()
        state.rawSet(tableAt: 1)
        return 0
    }

    /// Why a script may not write the field `name`, or nil when it may: the fields that say
    /// where a toast came from (docs/lua.md, "The toast table"). A table a rule returns may
    /// still set `id`, and the field `screens.by` names stays writable.
    /// `field`: the show field `name` is, found by the key's pointer (most writes are of show
    /// fields, told apart without comparing strings).
    private func readOnlyReason(_ field: ToastField?, _ name: String) -> String? {
        switch field {
        case .at?: return "it is when the toast came in"
        case .type?: return "a toast is a show"
        case .id?: return "interactions find the toast by it (a table a rule returns may set it)"
        case _?: return nil
        case nil:
            if name == LuaState.madeByName { return "it names the stage that made the toast" }
            guard name == "screen", let by = settings.screens?.by, by != "screen" else { return nil }
            return "screens are keyed by the field \(quoted(by)); set that field instead"
        }
    }

    /// `pairs(t)`: `next` over a full copy.
    private func proxyPairs() -> LuaResults {
        state.setTop(1)
        state.pushReference(state.nextFunction)
        state.pushMaterialized(proxyAt: 1)
        state.pushNil()
        return 3
    }

    /// `__gc`: Lua collected the proxy; its toast goes too.
    private func proxyCollected() -> LuaResults {
        if let pointer = state.pointer(at: 1) { state.proxies[pointer] = nil }
        return 0
    }
}
