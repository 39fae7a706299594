import CLua

/// A script's `parse` function in front of the decoder (docs/lua.md "parse"): each non-blank
/// line goes to it, as a string (`--input text`) or as the table of its JSON object, and what
/// it returns comes back as events in JSON, for the decoder to check like any input line.
extension LuaRuntime: LineParser {
    public func parse(_ line: UnsafeBufferPointer<UInt8>, isText: Bool, number: Int) -> ParsedLine {
        guard let function = parseFunction else { return .rejected("no parse function") }
        let L = state.L
        let top = state.top
        defer { lua_settop(L, top) }
        state.pushReference(function.reference)
        if isText {
            guard isValidUTF8(line) else { return .rejected("not valid UTF-8") }
            let end = line.last == 0x0D ? line.count - 1 : line.count
            lua_pushlstring(L, UnsafeRawPointer(line.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) }, end)
        } else {
            switch Self.jsonObject(line) {
            case .success(let object): state.push(object)
            case .failure(let reason): return .rejected(reason.message)
            }
        }
        if case .failure(let message) = state.call(argumentCount: 1, resultCount: 1, budget: budget, place: function.place) {
            return .rejected("parse: \(message)")
        }
        do {
            return try events(returnedAt: top + 1)
        } catch let error as LuaBridgeError {
            return .rejected("parse: \(function.place): \(error.message)")
        } catch {
            return .rejected("parse: \(function.place): \(error)")
        }
    }

    /// nil or false: skip; a table with a first element: a list of events; another table: one event.
    private func events(returnedAt index: Int32) throws -> ParsedLine {
        let L = state.L
        switch lua_type(L, index) {
        case LUA_TNIL: return .skip
        case LUA_TBOOLEAN where lua_toboolean(L, index) == 0: return .skip
        case LUA_TTABLE: break
        default:
            throw LuaBridgeError("returned \(state.typeName(at: index)); expected an event table, a list of them, or nil")
        }
        guard lua_rawgeti(L, index, 1) != LUA_TNIL else {
            clua_pop(L, 1)
            return .events([try encodedEvent(at: index, path: "event")])
        }
        clua_pop(L, 1)
        var events: [[UInt8]] = []
        let count = Int(lua_rawlen(L, index))
        for position in 1...max(1, count) {
            guard lua_rawgeti(L, index, lua_Integer(position)) == LUA_TTABLE else {
                throw LuaBridgeError("element \(position) of the returned list is \(state.typeName(at: -1)), not an event table")
            }
            events.append(try encodedEvent(at: -1, path: "event \(position)"))
            clua_pop(L, 1)
        }
        return .events(events)
    }

    private func encodedEvent(at index: Int32, path: String) throws -> [UInt8] {
        let value = try state.jsonValue(at: index, path: path)
        var bytes: [UInt8] = []
        switch value {
        case .object(let members): JSONText.appendObject(members, to: &bytes)
        case .array([]): bytes = Array("{}".utf8)
        default: throw LuaBridgeError("\(path) is a list, not an event table")
        }
        return bytes
    }

    /// The JSON object of a line, with the decoder's messages for lines that are not one.
    private static func jsonObject(_ line: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, LuaBridgeError> {
        guard isValidUTF8(line) else { return .failure(LuaBridgeError("not valid UTF-8")) }
        var scanner = JSONScanner(line)
        do {
            let value = try scanner.parseValue()
            scanner.skipWhitespace()
            guard scanner.isAtEnd else { throw scanner.unexpected(expecting: "the end of the line") }
            if let column = scanner.outOfRangeColumn { return .failure(LuaBridgeError("number out of range at column \(column)")) }
            guard case .object = value else { return .failure(LuaBridgeError("not a JSON object")) }
            return .success(value)
        } catch let error as JSONSyntaxError {
            return .failure(LuaBridgeError(error.message))
        } catch {
            return .failure(LuaBridgeError("\(error)"))
        }
    }
}
