import ToastCore
import ToastIO

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
        state.pushTable(fieldCount: 2)
        state.pushFunction { L in LuaRuntime.from(L)?.jsonEncode().raw ?? 0 }
        state.setField("encode")
        state.pushFunction { L in LuaRuntime.from(L)?.jsonDecode().raw ?? 0 }
        state.setField("decode")
        state.setGlobal("json")
    }

    private func jsonEncode() -> LuaResults {
        guard state.top >= 1 else { return raise("json.encode expects a value") }
        do {
            let value = try state.jsonValue(at: 1, path: "value", stringKeysOnly: true)
            var out = ByteBuffer(capacity: 64)
            JSONText.appendValue(value, to: &out)
            out.withBytes { state.push(bytes: $0) }
            return 1
        } catch let error as LuaBridgeError {
            return raise("json.encode: \(error.message)")
        } catch {
            return raise("json.encode: \(error)")
        }
    }

    private func jsonDecode() -> LuaResults {
        guard let text = state.bytes(at: 1) else {
            return raise("json.decode expects a string, not \(state.typeName(at: 1))")
        }
        if let reason = state.pushJSON(text, end: "the end of the text") {
            state.pushNil()
            state.push(reason)
            return 2
        }
        return 1
    }
}
