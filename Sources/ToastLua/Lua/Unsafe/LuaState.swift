import CLuaBridge
import ToastCore

/// One `lua_State`, owned: this file and `LuaStack.swift` are the only Swift that calls Lua's
/// C API or the bridge's C (`CLuaBridge`); the rest of the bridge goes through their methods.
/// The state is closed when the value goes away.
///
/// Methods that touch the stack leave it as they found it unless they say they push.
///
/// Safe to use: the state lives exactly as long as this object (closed in `deinit`), its memory
/// is capped by the bridge's allocator, and every call that may raise runs in protected mode,
/// so a script's error never unwinds through Swift.
final class LuaState {
    let L: OpaquePointer
    /// The C side's bookkeeping: the memory cap, the rules' hand-back flag, and the view of
    /// the rules' toast that `clua_ruleindex` reads (see `RuleToastView.swift`).
    let context: UnsafeMutablePointer<clua_context>
    /// The toast table's field names as Lua strings, by identity: Lua interns short strings,
    /// so a key is one of these names exactly when it is this object. Kept alive in the
    /// registry, so the identities never change. A short list: comparing eighteen addresses
    /// is cheaper than hashing one.
    private var fieldKeys: [(key: UnsafeRawPointer, field: ToastField)] = []
    /// The field a key names, given the address of the Lua string.
    func field(forKey key: UnsafeRawPointer) -> ToastField? {
        fieldPosition(forKey: key).map { fieldKeys[$0].field }
    }

    /// The position in `ToastField.allCases` of the field a key names.
    func fieldPosition(forKey key: UnsafeRawPointer) -> Int? {
        fieldKeys.firstIndex { $0.key == key }
    }

    /// Live toast proxies by their table's address (see `ToastProxy`). No Lua code runs while
    /// this or the other state here is accessed, so a `__gc` cannot reach in during an access.
    var proxies = ProxyTable()
    /// The metatable proxies share and the base library's `next`, in the registry.
    var proxyMetatable = LuaState.noReference
    var nextFunction = LuaState.noReference
    /// What the bridge keeps between calls to spare work on the rules' table.
    var shortcuts = RuleTableShortcuts()
    /// What the rules' table holds between toasts when no rule can have kept it.
    let noToast = Toast(id: "", message: "")
    /// `LuaRuntime.runRules` calls under way. Rules do not run inside a rule today (`emit`
    /// queues its toast), but the shared table goes to the next toast only when no rule holds
    /// it, whatever may call back into the pipeline.
    var ruleRunsActive = 0

    /// A new state whose allocations are capped at `memoryLimit` bytes while scripts run
    /// (0: no cap).
    init?(memoryLimit: Int) {
        assert(LuaType.matchesLua, "LuaType's raw values are not lua.h's")
        guard let context = clua_newcontext(max(0, memoryLimit)) else { return nil }
        guard let state = clua_newstate(context) else {
            clua_freecontext(context)
            return nil
        }
        self.context = context
        L = state
        internFieldNames()
    }

    private func internFieldNames() {
        lua_createtable(L, Int32(ToastField.allCases.count), 0)
        for (position, field) in ToastField.allCases.enumerated() {
            push(field.name)
            if let key = lua_topointer(L, -1) {
                fieldKeys.append((key, field))
                clua_view_setfieldkey(context, Int32(position), key)
            }
            lua_rawseti(L, -2, lua_Integer(position + 1))
        }
        _ = makeReference()
    }

    deinit {
        lua_close(L)
        clua_freecontext(context)
    }

    /// The object that Swift functions called from Lua find through the state.
    /// Kept without a reference count: the runtime owns the state, and sets this to nil
    /// before it goes (the state's `__gc` calls must not reach it then).
    var owner: LuaRuntime? {
        get { context.pointee.owner.map { Unmanaged<LuaRuntime>.fromOpaque($0).takeUnretainedValue() } }
        set { context.pointee.owner = newValue.map { Unmanaged.passUnretained($0).toOpaque() } }
    }


    var top: LuaIndex { LuaIndex(raw: lua_gettop(L)) }

    // MARK: Libraries

    /// The sandbox of docs/lua.md: the base library without `dofile`, `loadfile` and binary
    /// chunks, plus `string`, `table`, `math`, `utf8`, and `os.time`, `os.date`, `os.clock`.
    func openSandboxedLibraries() {
        isSandboxed = true
        for name in ["_G", "string", "table", "math", "utf8", "os"] { clua_openlib(L, name) }
        let top = self.top
        defer { setTop(top) }
        clua_getglobaltable(L)
        for name in ["dofile", "loadfile"] {
            lua_pushnil(L)
            lua_setfield(L, -2, name)
        }
        // os: only the clock and date functions.
        lua_createtable(L, 0, 3)
        _ = lua_getfield(L, -2, "os")
        for name in ["time", "date", "clock"] {
            _ = lua_getfield(L, -1, name)
            lua_setfield(L, -3, name)
        }
        lua_settop(L, -2)
        lua_setfield(L, -2, "os")
        // load: text chunks only.
        let wrapper = """
            local load = load
            return function(chunk, name, mode, env) return load(chunk, name, "t", env) end
            """
        if luaL_loadstring(L, wrapper) == LUA_OK, clua_pcall(L, 0, 1, 0) == LUA_OK {
            lua_setfield(L, -2, "load")
        }
    }

    /// Runs a chunk of the project's own Lua (not a script's) in protected mode: whether it ran.
    @discardableResult
    func runBuiltInChunk(_ source: String, name: String) -> Bool {
        let top = self.top
        defer { setTop(top) }
        return luaL_loadbufferx(L, source, source.utf8.count, "=" + name, "t") == LUA_OK && clua_pcall(L, 0, 0, 0) == LUA_OK
    }

    /// All of Lua's standard libraries (`--unsafe-lua`).
    func openAllLibraries() {
        luaL_openlibs(L)
    }

    // MARK: Globals

    /// Sets global `name` to a Swift function.
    func setGlobalFunction(_ name: String, _ function: clua_SwiftFunction) {
        clua_pushswiftfunction(L, function, 0)
        lua_setglobal(L, name)
    }

    /// Sets global `name` to the value at the top; pops it.
    func setGlobal(_ name: String) {
        lua_setglobal(L, name)
    }

    // MARK: Tables and functions

    /// Pushes a new table with room for `fieldCount` named fields.
    func pushTable(fieldCount: Int) {
        lua_createtable(L, 0, Int32(clamping: fieldCount))
    }

    /// Sets field `name` of the table just below the top to the value at the top; pops it.
    func setField(_ name: String) {
        lua_setfield(L, -2, name)
    }

    /// Pushes a Swift function whose upvalues are the `upvalueCount` values at the top (which
    /// it pops).
    func pushFunction(_ function: clua_SwiftFunction, upvalueCount: Int = 0) {
        clua_pushswiftfunction(L, function, Int32(upvalueCount))
    }

    /// Pushes a copy of the value at `index`.
    func pushCopy(of index: LuaIndex) {
        lua_pushvalue(L, index.raw)
    }

    func pushNil() { lua_pushnil(L) }

    func push(_ integer: Int) { lua_pushinteger(L, lua_Integer(integer)) }

    func push(_ number: Double) { lua_pushnumber(L, number) }

    /// Drops the stack back to `top` values.
    func setTop(_ top: LuaIndex) { lua_settop(L, top.raw) }

    func pop(_ count: Int = 1) { clua_pop(L, Int32(count)) }

    /// Pushes element `position` of the table at `index` (no metamethods); returns its type.
    func pushElement(_ position: Int, ofTableAt index: LuaIndex) -> LuaType {
        LuaType(c: lua_rawgeti(L, index.raw, lua_Integer(position)))
    }

    /// The length of the table at `index` (no metamethods).
    func length(ofTableAt index: LuaIndex) -> Int { Int(lua_rawlen(L, index.raw)) }

    // MARK: Calls

    /// Loads a script file (text only unless `allowBinary`) and pushes the chunk;
    /// on failure returns the message and pushes nothing.
    func loadFile(_ path: String, allowBinary: Bool) -> String? {
        let status = luaL_loadfilex(L, path, allowBinary ? "bt" : "t")
        guard status != LUA_OK else { return nil }
        let message = string(at: -1) ?? "cannot load \(path)"
        clua_pop(L, 1)
        return message
    }

    /// Calls the function below `argumentCount` arguments on the stack, within `budget`
    /// instructions and the memory cap. Pops function and arguments; pushes `resultCount`
    /// results on success, nothing on failure.
    /// `place` (`FILE:LINE` of the function) names errors that carry no place of their own,
    /// such as running out of memory.
    func call(argumentCount: Int, resultCount: Int, budget: Int, place: String) -> LuaCallResult {
        let functionIndex = lua_gettop(L) - Int32(argumentCount)
        clua_pushmsghandler(L)
        clua_insert(L, functionIndex)
        clua_begincall(L, Int32(clamping: budget))
        let status = clua_pcall(L, Int32(argumentCount), Int32(resultCount), functionIndex)
        clua_endcall(L)
        if status == LUA_OK {
            clua_remove(L, functionIndex)
            return .success
        }
        let message = failureMessage(LuaFailure(status: status), place: place)
        lua_settop(L, functionIndex - 1)
        return .failure(message)
    }

    /// The message of a failed protected call, whose error value is at the top: `place` names
    /// a memory error, which carries no place of its own.
    func failureMessage(_ failure: LuaFailure, place: String) -> String {
        if failure == .memory { return "\(place): not enough memory (the scripts' memory cap was reached)" }
        let message = string(at: -1) ?? "(error object is not a string)"
        return isSandboxed ? Self.withSandboxHint(message) : message
    }

    /// Whether the libraries are the sandbox's (not `--unsafe-lua`).
    private(set) var isSandboxed = false

    /// What the sandbox leaves out: globals, and the functions of `os`.
    static let sandboxedGlobals = ["io", "debug", "package", "require", "dofile", "loadfile"]
    static let sandboxedOSFunctions = ["execute", "getenv", "exit", "rename", "remove", "tmpname", "setlocale"]

    /// `message`, with a word on the sandbox when it is Lua's complaint about indexing or
    /// calling a global (or an `os` function) the sandbox leaves out.
    static func withSandboxHint(_ message: String) -> String {
        guard message.contains("attempt to index a nil value") || message.contains("attempt to call a nil value") else {
            return message
        }
        for name in sandboxedGlobals where message.hasSuffix("(global '\(name)')") {
            return message + ": \(name) is not available in the sandbox (--unsafe-lua opens every library)"
        }
        for name in sandboxedOSFunctions where message.hasSuffix("(field '\(name)')") {
            return message + ": os.\(name) is not available in the sandbox (--unsafe-lua opens every library)"
        }
        return message
    }

    /// Runs the rules whose functions are in the registry at `references[first...]` on the
    /// toast table at `table`, one protected call each within `budget`, for as long as each
    /// keeps the toast untouched (see `clua_runrules`); says where it stopped.
    func runRules(_ references: [LuaReference], from first: Int, table: LuaIndex, handler: LuaIndex,
                  budget: Int) -> RuleRunStop {
        var stop: Int32 = 0
        var status: Int32 = 0
        // A LuaReference is its Int32 and nothing else, so the array's storage is C's `int[]`.
        let position = references.withUnsafeBufferPointer { references in
            references.withMemoryRebound(to: Int32.self) { raw in
                clua_runrules(L, raw.baseAddress, Int32(first), Int32(raw.count), table.raw, handler.raw, Int32(clamping: budget),
                              &stop, &status)
            }
        }
        switch stop {
        case Int32(CLUA_RULE_RETURNED): return .returned(at: Int(position))
        case Int32(CLUA_RULE_FAILED): return .failed(at: Int(position), LuaFailure(status: status))
        default: return .allKept
        }
    }

    /// What the rules' table shows may have changed: another toast, a write to a toast
    /// table, a table-valued extra field moved into one, a role change, the table retired.
    /// The one rule for what the bridge caches about the table (`clua_context` in
    /// `CLuaBridge.h`): each cached value carries the generation it was filled at and is used
    /// only at that generation — the C view of the toast, the names read once, a rule's run
    /// (`clua_runrules` hands its results to Swift when the generation moved) — and the values
    /// Lua reads without asking (`shortcuts.values`) are emptied here.
    func tableChanged() {
        context.pointee.generation &+= 1
        if ruleValuesFilled { emptyRuleValues() }
    }

    /// Pushes the message handler that `runRules` takes; returns its index.
    func pushMessageHandler() -> LuaIndex {
        clua_pushmsghandler(L)
        return top
    }

    // MARK: Reading values

    /// The string at `index` (not converting numbers); nil for other types.
    func string(at index: LuaIndex) -> String? {
        guard lua_type(L, index.raw) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = clua_tolstring(L, index.raw, &length) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }

    func type(at index: LuaIndex) -> LuaType { LuaType(c: lua_type(L, index.raw)) }

    /// Whether the value at `index` is anything but nil and false.
    func isTrue(at index: LuaIndex) -> Bool { lua_toboolean(L, index.raw) != 0 }

    /// The number at `index` (0 for anything that is not one).
    func number(at index: LuaIndex) -> Double { clua_tonumber(L, index.raw, nil) }

    /// The integer in upvalue `upvalue` of the running Swift function (0 for anything that is
    /// not one); upvalue 1 is the function itself (see `clua_trampoline`).
    func integer(inUpvalue upvalue: Int) -> Int {
        Int(clua_tointeger(L, clua_registryindex() - Int32(upvalue), nil))
    }

    /// The bytes of the string at `index`, valid while it is on the stack; nil for other
    /// types.
    func bytes(at index: LuaIndex) -> UnsafeBufferPointer<UInt8>? {
        guard lua_type(L, index.raw) == LUA_TSTRING else { return nil }
        var length = 0
        let pointer = clua_tolstring(L, index.raw, &length)
        return UnsafeBufferPointer(start: UnsafeRawPointer(pointer)?.assumingMemoryBound(to: UInt8.self), count: length)
    }

    func typeName(at index: LuaIndex) -> String {
        String(cString: lua_typename(L, lua_type(L, index.raw)))
    }

    /// `FILE:LINE` of the Lua function at `index`.
    func definitionPlace(ofFunctionAt index: LuaIndex) -> String {
        var debug = lua_Debug()
        lua_pushvalue(L, index.raw)
        guard lua_getinfo(L, ">S", &debug) != 0 else { return "?" }
        let source = withUnsafeBytes(of: &debug.short_src) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        return "\(source):\(debug.linedefined)"
    }

    /// Stores the value at the top in the registry; pops it.
    func makeReference() -> LuaReference {
        LuaReference(raw: luaL_ref(L, clua_registryindex()))
    }

    /// Lets go of a reference `makeReference` made.
    func release(_ reference: LuaReference) {
        luaL_unref(L, clua_registryindex(), reference.raw)
    }

    /// `FILE:LINE` of the Lua code that called the running function (`after`'s caller).
    func callerPlace() -> String {
        luaL_where(L, 1)
        defer { clua_pop(L, 1) }
        var place = string(at: -1) ?? ""
        if place.hasSuffix(": ") { place.removeLast(2) }
        return place.isEmpty ? "?" : place
    }

    func pushReference(_ reference: LuaReference) {
        _ = lua_rawgeti(L, clua_registryindex(), lua_Integer(reference.raw))
    }
}

/// Where a run of rules stopped (`LuaState.runRules`).
enum RuleRunStop: Equatable {
    /// Every rule kept the toast without writing to it.
    case allKept
    /// The rule at this position returned something else or wrote; its two results are on
    /// the stack above the table.
    case returned(at: Int)
    /// The rule at this position raised an error; the error value is above the table.
    case failed(at: Int, LuaFailure)
}

enum LuaCallResult: Equatable {
    case success
    /// The error message, with its place where Lua knew one.
    case failure(String)
}

extension LuaRuntime {
    /// The runtime whose state `L` is, for a Swift function Lua calls (`clua_SwiftFunction`).
    static func from(_ L: OpaquePointer?) -> LuaRuntime? {
        guard let L, let owner = clua_getcontext(L).pointee.owner else { return nil }
        return Unmanaged<LuaRuntime>.fromOpaque(owner).takeUnretainedValue()
    }
}

/// The bridge's shortcuts for the table the rules get, kept together so that one switch turns
/// them all off and one rule says when each is valid.
///
/// The rule: a generation counts what the rules' table shows (`LuaState.tableChanged` moves it:
/// another toast, a write, a role change, the table retired). The C view answers only at the
/// generation it was filled at, a run of rules in C hands back to Swift when it moved, and the
/// remembered values are emptied when it moves; the shared table is reset for each toast.
/// Off (`TOASTSCRIPT_LUA_FAST_PATH=off`), every toast gets a table of its own, the view is never
/// filled and no value is remembered: the plain path, whose records the tests compare.
///
/// Safe to keep: the references are the registry's, released only through `LuaState`; the
/// table's address is compared, never followed.
struct RuleTableShortcuts {
    /// Whether the shortcuts are taken (`LuaOptions.fastPath`).
    var isOn = true {
        didSet { if !isOn { rulesMayKeepTheirTable = true } }
    }
    /// Whether a registered rule may keep the table it gets (see `clua_leavesfirstargument`);
    /// until one may, the rules' table is one table for every toast (`pushRuleProxy`). Off, the
    /// plain path acts as if one may.
    var rulesMayKeepTheirTable = false
    /// The proxy the last rule got, in the registry, and its Swift side with its table's
    /// address.
    var proxyReference = LuaState.noReference
    var proxy: (proxy: ToastProxy, table: UnsafeRawPointer?)? = nil
    /// The metatable of the rules' current proxy, whose `__index` is `values`: a table of the
    /// fields the rules of this toast already read, so a second read of a field is a plain
    /// table lookup in Lua, not a call into Swift (see `pushRuleProxy`).
    var metatable = LuaState.noReference
    var values = LuaState.noReference
    /// What the C view of the rules' toast holds (see `RuleToastView.swift`).
    var view = RuleViewSelection()
}
