import CLua

/// `json.encode(value)` and `json.decode(text)` in the sandbox, on the project's own strict
/// JSON code: what a rule sends on or logs is JSON any tool reads, and what it reads is
/// checked as the input is.
///
/// - `encode`: an empty table is `{}`, a table with exactly the keys 1..n an array, any other
///   table an object whose keys must be strings; NaN, infinities, functions and tables that
///   refer to themselves are errors. A toast's table encodes as the fields `pairs` shows.
/// - `decode`: any JSON value (`null` is nil); bad text gives `nil, "why"`.
extension LuaRuntime {
    func installJSONLibrary() {
        let L = state.L
        lua_createtable(L, 0, 2)
        clua_pushswiftfunction(L, { L in LuaRuntime.from(L)?.jsonEncode() ?? 0 }, 0)
        lua_setfield(L, -2, "encode")
        clua_pushswiftfunction(L, { L in LuaRuntime.from(L)?.jsonDecode() ?? 0 }, 0)
        lua_setfield(L, -2, "decode")
        lua_setglobal(L, "json")
    }

    private func jsonEncode() -> Int32 {
        guard state.top >= 1 else { return raise("json.encode expects a value") }
        do {
            let value = try state.jsonValue(at: 1, path: "value", stringKeysOnly: true)
            var out = ByteBuffer(capacity: 64)
            JSONText.appendValue(value, to: &out)
            _ = out.withBytes { lua_pushlstring(state.L, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
            return 1
        } catch let error as LuaBridgeError {
            return raise("json.encode: \(error.message)")
        } catch {
            return raise("json.encode: \(error)")
        }
    }

    private func jsonDecode() -> Int32 {
        let L = state.L
        guard state.type(at: 1) == LUA_TSTRING else {
            return raise("json.decode expects a string, not \(state.typeName(at: 1))")
        }
        var length = 0
        let bytes = clua_tolstring(L, 1, &length)
        let text = UnsafeBufferPointer(start: UnsafeRawPointer(bytes)?.assumingMemoryBound(to: UInt8.self), count: length)
        if let reason = state.pushJSON(text, end: "the end of the text") {
            lua_pushnil(L)
            state.push(reason)
            return 2
        }
        return 1
    }
}
