import ToastCore

/// Lua values ↔ Swift values, each ambiguity decided once:
/// - integers stay integers, floats stay floats (`2.0` is written `2` on output anyway);
/// - a table whose keys are exactly 1…n is a list/array; an empty table is an object;
///   any other table is an object whose number keys become strings;
/// - nesting is limited (as deep as JSON input may nest), so a cyclic table is an error, not
///   a hang; every level makes room on the Lua stack first, as Lua checks none of it.
extension LuaState {
    static let maxNesting = JSONScanner.maxDepth

    /// The value at `index` as a setting; functions become `ScriptFunction`s via `function`.
    func configValue(at index: LuaIndex, path: String, depth: Int = 0,
                     function: (LuaIndex) -> ScriptFunction) throws -> ConfigValue {
        let index = absoluteIndex(index)
        switch type(at: index) {
        case .boolean: return .bool(isTrue(at: index))
        case .number:
            if isInteger(at: index), let integer = exactInteger(at: index) { return .integer(integer) }
            return .number(number(at: index))
        case .string: return .string(string(at: index) ?? "")
        case .function: return .function(function(index))
        case .table:
            guard depth < LuaState.maxNesting, reserve(3) else {
                throw ConfigError("\(path) is nested too deeply (or refers to itself)")
            }
            var table = ConfigTable()
            var listed: [Int: ConfigValue] = [:]
            let top = self.top
            defer { setTop(top) }
            pushNil()
            while next(ofTableAt: index) {
                switch type(at: -2) {
                case .string:
                    let name = string(at: -2) ?? ""
                    table.fields[name] = try configValue(at: -1, path: LuaState.path(path, ".\(name)", depth: depth),
                                                         depth: depth + 1, function: function)
                case .number where isInteger(at: -2):
                    let key = Int(integer(at: -2))
                    listed[key] = try configValue(at: -1, path: LuaState.path(path, "[\(key)]", depth: depth),
                                                  depth: depth + 1, function: function)
                default:
                    throw ConfigError("\(path) has a key of type \(typeName(at: -2)); use names or a list")
                }
                pop(1)
            }
            if !listed.isEmpty {
                guard listed.keys.min() == 1, listed.keys.max() == listed.count else {
                    throw ConfigError("\(path) has a list with holes")
                }
                table.list = (1...listed.count).map { listed[$0]! }
            }
            return .table(table)
        default:
            throw ConfigError("\(path) cannot be \(typeName(at: index))")
        }
    }

    /// The path of a nested setting for messages; past a few levels it stops growing, so a
    /// table that refers to itself gives `queue.me.me.me.…`, not 256 names.
    static func path(_ parent: String, _ step: String, depth: Int) -> String {
        switch depth {
        case ..<3: return parent + step
        case 3: return parent + ".…"
        default: return parent
        }
    }

    /// The value at `index` as JSON; throws a message for functions and other values JSON
    /// cannot hold.
    /// `stringKeysOnly` (`json.encode`): a table that is not a list must have string keys
    /// (else integer keys become names, as a field's value does).
    func jsonValue(at index: LuaIndex, path: String, depth: Int = 0, stringKeysOnly: Bool = false) throws -> JSONValue {
        let index = absoluteIndex(index)
        switch type(at: index) {
        case .nilValue: return .null
        case .boolean: return .bool(isTrue(at: index))
        case .number:
            if isInteger(at: index) { return .integer(Int64(integer(at: index))) }
            let number = number(at: index)
            guard number.isFinite else { throw LuaBridgeError("field '\(path)' is not a finite number") }
            return .number(number)
        case .string: return .string(string(at: index) ?? "")
        case .table:
            guard depth < LuaState.maxNesting, reserve(3) else {
                throw LuaBridgeError("field '\(path)' is nested too deeply (or refers to itself)")
            }
            if proxy(at: index) != nil {
                // A toast's table inside another: its fields, as `pairs` shows them.
                let top = self.top
                defer { setTop(top) }
                pushMaterialized(proxyAt: index)
                return try jsonValue(at: -1, path: path, depth: depth + 1, stringKeysOnly: stringKeysOnly)
            }
            var members: [JSONMember] = []
            var listed: [Int64: JSONValue] = [:]
            var onlyIntegerKeys = true
            let top = self.top
            defer { setTop(top) }
            pushNil()
            while next(ofTableAt: index) {
                let value = try jsonValue(at: -1, path: path, depth: depth + 1, stringKeysOnly: stringKeysOnly)
                switch type(at: -2) {
                case .string:
                    onlyIntegerKeys = false
                    members.append(JSONMember(string(at: -2) ?? "", value))
                case .number where isInteger(at: -2):
                    let key = Int64(integer(at: -2))
                    listed[key] = value
                    members.append(JSONMember(String(key), value))
                default:
                    throw LuaBridgeError("field '\(path)' has a key of type \(typeName(at: -2))")
                }
                pop(1)
            }
            if onlyIntegerKeys && !listed.isEmpty && listed.keys.min() == 1 && listed.keys.max() == Int64(listed.count) {
                return .array((1...Int64(listed.count)).map { listed[$0]! })
            }
            if stringKeysOnly && !listed.isEmpty {
                throw LuaBridgeError("field '\(path)' is a table with number keys that are not 1 to n: "
                                     + "only a list or a table with string keys is JSON")
            }
            members.sort { $0.name < $1.name }
            return .object(members)
        default:
            throw LuaBridgeError("field '\(path)' cannot hold a \(typeName(at: index))")
        }
    }

    /// Pushes a JSON value (null as nil). The caller makes room for it; a table's members are
    /// left out if Lua cannot make room for them (out of memory).
    func push(_ value: JSONValue) {
        switch value {
        case .null: pushNil()
        case .bool(let flag): push(flag)
        case .integer(let number): push(Int64(number))
        case .number(let number): push(Double(number))
        case .string(let text): push(text)
        case .array(let elements):
            pushTable(arrayCount: elements.count, fieldCount: 0)
            guard reserve(2) else { return }
            for (offset, element) in elements.enumerated() {
                push(element)
                rawSet(element: offset + 1, ofTableAt: -2)
            }
        case .object(let members):
            pushTable(arrayCount: 0, fieldCount: members.count)
            guard reserve(2) else { return }
            for member in members {
                push(member.value)
                setField(member.name, ofTableAt: -2)
            }
        }
    }

    func push(_ text: String) {
        text.withUTF8Bytes { push(bytes: $0) }
    }

}

/// A Lua value that cannot become what Swift needs; the message names the field.
struct LuaBridgeError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
