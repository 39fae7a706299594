import CLuaBridge
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The stack operations of Lua's C API and of the bridge's C, one method each, so that this
/// file and `LuaState.swift` are the only Swift that calls C: the rest of the bridge says
/// what it does to the stack in Swift's words, and a newcomer finds every C call here.
///
/// Indices are Lua's (negative from the top, `LuaState.registryIndex` for the registry).
/// Each method does what its C function does, no more: the stack discipline (leave it as
/// found) is the caller's, as with the C API.
///
/// Safe to use as the C API is: an index names a slot the caller made room for (`reserve`),
/// and a call that may raise a Lua error runs in protected mode (`clua_pcall`, or inside the
/// trampoline), so no `longjmp` crosses a Swift frame.
extension LuaState {
    /// The pseudo-index of the registry.
    static var registryIndex: LuaIndex { LuaIndex(raw: clua_registryindex()) }

    // MARK: The stack

    /// `index` as an index from the bottom (it stays valid while the stack grows).
    @inline(__always) func absoluteIndex(_ index: LuaIndex) -> LuaIndex { LuaIndex(raw: lua_absindex(L, index.raw)) }

    /// Room for `slots` more values; false when Lua cannot grow the stack.
    @inline(__always) func reserve(_ slots: Int) -> Bool { lua_checkstack(L, Int32(clamping: slots)) != 0 }

    /// Moves the top value into `index`, shifting the values above it up.
    @inline(__always) func insert(at index: LuaIndex) { clua_insert(L, index.raw) }

    /// Copies the value at `from` into `to`, which keeps its place.
    @inline(__always) func copy(_ from: LuaIndex, to: LuaIndex) { lua_copy(L, from.raw, to.raw) }

    /// Whether the values at `a` and `b` are the same value (no metamethods).
    @inline(__always) func rawEqual(_ a: LuaIndex, _ b: LuaIndex) -> Bool { lua_rawequal(L, a.raw, b.raw) != 0 }

    // MARK: Pushing values

    @inline(__always) func push(_ flag: Bool) { lua_pushboolean(L, flag ? 1 : 0) }

    @inline(__always) func push(_ integer: Int64) { lua_pushinteger(L, lua_Integer(integer)) }

    /// Pushes a string of `count` bytes at `bytes` (Lua copies them).
    @inline(__always) func push(bytes: UnsafeRawPointer?, count: Int) {
        _ = lua_pushlstring(L, bytes?.assumingMemoryBound(to: CChar.self), count)
    }

    /// Pushes a string with these bytes (Lua copies them).
    func push(bytes: UnsafeRawBufferPointer) {
        push(bytes: bytes.baseAddress, count: bytes.count)
    }

    // MARK: Reading values

    /// The bytes of the string at `index`, valid while it is on the stack; nil for anything
    /// that is not a string or a number.
    @inline(__always) func stringBytes(at index: LuaIndex) -> UnsafeRawBufferPointer? {
        var count = 0
        guard let bytes = clua_tolstring(L, index.raw, &count) else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: count)
    }

    /// Whether the value at `index` is a string with exactly `bytes`.
    func stringEquals(at index: LuaIndex, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard type(at: index) == .string, let string = stringBytes(at: index), string.count == bytes.count else { return false }
        guard let base = bytes.baseAddress, let start = string.baseAddress else { return true }
        return memcmp(start, base, string.count) == 0
    }

    /// The address that identifies the table, function or interned string at `index`.
    @inline(__always) func pointer(at index: LuaIndex) -> UnsafeRawPointer? { lua_topointer(L, index.raw) }

    /// Whether the number at `index` is an integer.
    @inline(__always) func isInteger(at index: LuaIndex) -> Bool { lua_isinteger(L, index.raw) != 0 }

    /// The integer at `index` (0 for anything that is not one, nor a string or a float with
    /// an integer's value).
    @inline(__always) func integer(at index: LuaIndex) -> Int64 { Int64(clua_tointeger(L, index.raw, nil)) }

    /// The integer at `index`: nil for anything that is not one (nor a string or a float with
    /// an integer's value).
    @inline(__always) func exactInteger(at index: LuaIndex) -> Int64? {
        var isInteger: Int32 = 0
        let value = clua_tointeger(L, index.raw, &isInteger)
        return isInteger != 0 ? Int64(value) : nil
    }

    /// The bytes of the string or number at `index` (a number is turned into a string in place).
    @inline(__always) func stringBytes(at index: LuaIndex, count: inout Int) -> UnsafePointer<CChar>? {
        clua_tolstring(L, index.raw, &count)
    }

    // MARK: Tables

    /// Pushes a new table with room for `arrayCount` elements and `fieldCount` named fields.
    @inline(__always) func pushTable(arrayCount: Int, fieldCount: Int) {
        lua_createtable(L, Int32(clamping: arrayCount), Int32(clamping: fieldCount))
    }

    /// `t[k] = v` for the table `t` at `index`, k and v the two values at the top (popped);
    /// no metamethods.
    @inline(__always) func rawSet(tableAt index: LuaIndex) { lua_rawset(L, index.raw) }

    /// Pushes `t[k]` for the table at `index`, k at the top (replaced); no metamethods.
    @discardableResult
    @inline(__always) func rawGet(tableAt index: LuaIndex) -> LuaType { LuaType(c: lua_rawget(L, index.raw)) }

    /// `t[position] = v`, v at the top (popped); no metamethods.
    @inline(__always) func rawSet(element position: some BinaryInteger, ofTableAt index: LuaIndex) {
        lua_rawseti(L, index.raw, lua_Integer(position))
    }

    /// `t.name = v` for the table at `index`, v at the top (popped).
    @inline(__always) func setField(_ name: String, ofTableAt index: LuaIndex) { lua_setfield(L, index.raw, name) }

    /// The table at `index`'s next key and value after the key at the top (popped); pushes
    /// both, or nothing and false at the end.
    @inline(__always) func next(ofTableAt index: LuaIndex) -> Bool { lua_next(L, index.raw) != 0 }

    /// Sets the metatable of the value at `index` to the table at the top (popped).
    @inline(__always) func setMetatable(ofValueAt index: LuaIndex) { _ = lua_setmetatable(L, index.raw) }

    /// Pushes global `name`; returns its type.
    @discardableResult
    func pushGlobal(_ name: String) -> LuaType { LuaType(c: lua_getglobal(L, name)) }

    // MARK: Chunks

    /// Loads the text chunk `source` named `name` ("=NAME" for a name as it is) and pushes
    /// it; on failure the message is pushed instead.
    func load(_ source: String, name: String) -> LuaLoadStatus {
        source.withCString { luaL_loadbufferx(L, $0, source.utf8.count, name, "t") } == LUA_OK ? .loaded : .failed
    }

    /// Lua's release ("Lua 5.4.6").
    static var release: String { String(cString: clua_release()) }

    /// Switches the collector to generational mode.
    func collectGenerationally() { clua_gc_generational(L) }

    // MARK: The bridge's C

    /// Pushes the rules' `__index`, with the Swift reader at the top as its upvalue.
    func pushRuleIndex() { clua_pushruleindex(L) }

    /// Whether the Lua function at `index` can never keep its first argument (the toast
    /// table): `clua_leavesfirstargument` reads its compiled code.
    func leavesFirstArgument(functionAt index: LuaIndex) -> Bool { clua_leavesfirstargument(L, index.raw) != 0 }

    /// Names field `position` of the view by the interned Lua string `key`.
    func setViewFieldKey(_ position: Int, key: UnsafeRawPointer) {
        clua_view_setfieldkey(context, Int32(position), key)
    }

    /// The view starts over for a toast: every value unknown.
    @inline(__always) func beginView() { clua_view_begin(context) }

    /// The view's text for field `position` (left unknown when it does not fit).
    @inline(__always) func setViewText(_ position: Int, _ bytes: UnsafeRawBufferPointer) {
        clua_view_settext(context, Int32(position), bytes.baseAddress, bytes.count)
    }

    /// The view's value for field `position`: `kind` a CLUA_VALUE_ kind other than STRING.
    @inline(__always) func setViewValue(_ position: Int, _ kind: Int, number: Double = 0, integer: Int64 = 0) {
        clua_view_setvalue(context, Int32(position), Int32(kind), number, lua_Integer(integer))
    }

    /// The view's extra fields: none (`bytes` nil), or their JSON object's text.
    @inline(__always) func setViewExtra(_ bytes: UnsafeRawBufferPointer?) {
        if let bytes {
            clua_view_setextra(context, Int32(CLUA_VALUE_STRING), bytes.baseAddress, bytes.count)
        } else {
            clua_view_setextra(context, Int32(CLUA_VALUE_NIL), nil, 0)
        }
    }

    /// The reads C answered for field `position` (-1: extra fields) since the last call.
    @inline(__always) func takeViewReads(_ position: Int) -> Int { Int(clua_view_takereads(context, Int32(position))) }

    /// Whether a value read for `name` (an interned Lua string) is remembered for the toast.
    @inline(__always) func remembersValue(ofName name: UnsafeRawPointer) -> Bool { shortcuts.isOn && clua_remembers(context, name) != 0 }
}

/// A Lua value's type, as `lua_type` gives it: the rest of the bridge speaks of types in these
/// words, never in the C library's integers (`LUA_TSTRING`).
enum LuaType: Int32 {
    /// No value: an index past the top (`LUA_TNONE`).
    case noValue = -1
    case nilValue = 0, boolean, lightUserdata, number, string, table, function, userdata, thread

    /// The type `lua_type` answered with; `noValue` for a number Lua does not name.
    init(c value: Int32) {
        self = LuaType(rawValue: value) ?? .noValue
    }

    /// Whether the raw values are Lua's (lua.h fixes them); a state asserts it when made.
    static var matchesLua: Bool {
        [LUA_TNONE, LUA_TNIL, LUA_TBOOLEAN, LUA_TLIGHTUSERDATA, LUA_TNUMBER, LUA_TSTRING, LUA_TTABLE, LUA_TFUNCTION,
         LUA_TUSERDATA, LUA_TTHREAD] == [noValue, nilValue, boolean, lightUserdata, number, string, table, function,
                                          userdata, thread].map(\.rawValue)
    }
}

/// What loading a chunk of Lua gave (`lua_load`'s status in Swift's words).
enum LuaLoadStatus: Equatable {
    case loaded
    /// It did not compile; its message is on the stack.
    case failed
}

/// A slot of the Lua stack as the C API names it: from the bottom (1, 2, …), from the top
/// (-1 is the top) or a pseudo-index (`LuaState.registryIndex`). A literal is an index, so
/// `type(at: -1)` reads as the C API does; arithmetic moves it by a count of slots.
struct LuaIndex: Hashable, Comparable, ExpressibleByIntegerLiteral {
    let raw: Int32

    init(raw: Int32) { self.raw = raw }
    init(integerLiteral value: Int32) { raw = value }

    static func < (a: LuaIndex, b: LuaIndex) -> Bool { a.raw < b.raw }
    static func + (index: LuaIndex, slots: Int32) -> LuaIndex { LuaIndex(raw: index.raw + slots) }
    static func - (index: LuaIndex, slots: Int32) -> LuaIndex { LuaIndex(raw: index.raw - slots) }
    static func - (above: LuaIndex, below: LuaIndex) -> Int32 { above.raw - below.raw }
}

/// A value kept in Lua's registry (`luaL_ref`): the bridge holds functions and tables by it.
/// `LuaState.noReference` names none.
struct LuaReference: Hashable {
    let raw: Int32
}

/// What a Swift function called from Lua hands back to the trampoline (`clua_SwiftFunction`):
/// how many results it pushed, or `raiseWithPlace` to raise the error it left at the top.
struct LuaResults: ExpressibleByIntegerLiteral {
    let raw: Int32

    init(integerLiteral value: Int32) { raw = value }
    private init(raw: Int32) { self.raw = raw }

    /// Raise the error value at the top, with the caller's place (`CLUA_RAISE_WHERE`).
    static let raiseWithPlace = LuaResults(raw: Int32(CLUA_RAISE_WHERE))
}

/// Why a protected call failed (`lua_pcall`'s status in Swift's words).
enum LuaFailure: Equatable {
    /// The scripts' memory cap was reached (`LUA_ERRMEM`): the error value carries no place.
    case memory
    /// Any other error: a runtime error, the budget, an error in the message handler.
    case error

    init(status: Int32) { self = status == LUA_ERRMEM ? .memory : .error }
}

extension LuaState {
    /// No value in the registry (`LUA_NOREF`).
    static let noReference = LuaReference(raw: LUA_NOREF)

    /// The kinds of value the rule view holds, besides text (`clua_view_setvalue`).
    enum ViewValue {
        case nothing
        case boolean(Bool)
        case integer(Int64)
        case number(Double)
    }

    /// The rule view's value for field `position`.
    @inline(__always) func setView(_ position: Int, _ value: ViewValue) {
        switch value {
        case .nothing: setViewValue(position, Int(CLUA_VALUE_NIL))
        case .boolean(let flag): setViewValue(position, Int(CLUA_VALUE_BOOLEAN), integer: flag ? 1 : 0)
        case .integer(let integer): setViewValue(position, Int(CLUA_VALUE_INTEGER), integer: integer)
        case .number(let number): setViewValue(position, Int(CLUA_VALUE_NUMBER), number: number)
        }
    }

    /// How many fields the rule view can hold (`CLUA_VIEW_FIELDS`).
    static let viewFieldCapacity = Int(CLUA_VIEW_FIELDS)
}

