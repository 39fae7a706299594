import ToastCore

/// What a script keeps in the global `store` (docs/lua.md, "Keeping values"): strings,
/// numbers, booleans and tables of them, read out of one Lua state and written into the next
/// when the scripts are loaded again (SIGHUP), so that a count or a list a script keeps is not
/// lost with the rest of the state.
package indirect enum StoredValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case boolean(Bool)
    /// A table's entries, in the order Lua's `next` gave them.
    case table([StoredEntry])
}

/// One entry of a kept table: a string or an integer key.
package struct StoredEntry: Equatable, Sendable {
    package var key: StoredKey
    package var value: StoredValue

    package init(_ key: StoredKey, _ value: StoredValue) {
        self.key = key
        self.value = value
    }
}

package enum StoredKey: Equatable, Sendable {
    case string(String)
    case integer(Int64)
}

extension LuaRuntime {
    /// Tables nested deeper than this are not kept (each level is a Swift call).
    static let storeNestingLimit = 100

    /// The global `store` as a value, with what could not be kept left out: each such value is
    /// reported as a script error that names its key path (`store.users["a b"][2]: a function
    /// cannot be kept`).
    /// `during` names the moment in the report (`reload`, `checkpoint`); at a checkpoint, a key
    /// path is reported once a run, not every second.
    package func keptStore(during: String = "reload") -> StoredValue {
        storeReportMoment = during
        let top = state.top
        defer { state.setTop(top) }
        state.pushGlobal("store")
        var path = "store"
        var open: [Int] = []
        switch storedValue(at: state.top, path: &path, open: &open) {
        case .table(let entries)?: return .table(entries)
        case nil: return .table([])
        case let other?:
            reportStoreProblem("store", "is a \(Self.storedKind(other)), not a table; it is kept as an empty table")
            return .table([])
        }
    }

    /// Sets the global `store` to `value` (a table; anything else gives an empty one).
    package func restoreStore(_ value: StoredValue) {
        if case .table = value { push(value) } else { state.pushTable(arrayCount: 0, fieldCount: 0) }
        state.setGlobal("store")
    }

    /// The value at `index` as a kept value; nil (after a report) for what cannot be kept.
    /// `open`: the tables being read, by their addresses, for finding a cycle.
    private func storedValue(at index: LuaIndex, path: inout String, open: inout [Int]) -> StoredValue? {
        switch state.type(at: index) {
        case .string: return .string(state.string(at: index) ?? "")
        case .boolean: return .boolean(state.isTrue(at: index))
        case .number:
            return state.isInteger(at: index) ? .integer(state.integer(at: index)) : .number(state.number(at: index))
        case .table:
            guard let table = state.pointer(at: index).map({ Int(bitPattern: $0) }) else { return nil }
            if open.contains(table) {
                reportStoreProblem(path, "holds the table it is in (a cycle), which cannot be kept")
                return nil
            }
            guard open.count < Self.storeNestingLimit, state.reserve(4) else {
                reportStoreProblem(path, "nests tables deeper than \(Self.storeNestingLimit) levels, which cannot be kept")
                return nil
            }
            open.append(table)
            defer { open.removeLast() }
            let index = state.absoluteIndex(index)
            var entries: [StoredEntry] = []
            state.pushNil()
            while state.next(ofTableAt: index) {
                let key: StoredKey?
                switch state.type(at: -2) {
                case .string: key = .string(state.string(at: -2) ?? "")
                case .number where state.isInteger(at: -2): key = .integer(state.integer(at: -2))
                default: key = nil
                }
                guard let key else {
                    reportStoreProblem(path, "has a key of type \(state.typeName(at: -2)); keys are strings or integers")
                    state.pop(1)
                    continue
                }
                let outer = path
                path += Self.pathStep(key)
                if let value = storedValue(at: state.top, path: &path, open: &open) {
                    entries.append(StoredEntry(key, value))
                }
                path = outer
                state.pop(1)
            }
            return .table(entries)
        default:
            reportStoreProblem(path, "is a \(state.typeName(at: index)), which cannot be kept")
            return nil
        }
    }

    /// Pushes `value` as Lua values.
    private func push(_ value: StoredValue) {
        switch value {
        case .string(let text): state.push(text)
        case .integer(let integer): state.push(integer)
        case .number(let number): state.push(number)
        case .boolean(let flag): state.push(flag)
        case .table(let entries):
            guard state.reserve(4) else { return state.pushNil() }
            state.pushTable(arrayCount: 0, fieldCount: entries.count)
            for entry in entries {
                switch entry.key {
                case .string(let name): state.push(name)
                case .integer(let integer): state.push(integer)
                }
                push(entry.value)
                state.rawSet(tableAt: -3)
            }
        }
    }

    /// `.name` for a key that reads as a Lua name, else `["key"]` or `[3]`.
    private static func pathStep(_ key: StoredKey) -> String {
        switch key {
        case .integer(let integer): return "[\(integer)]"
        case .string(let name):
            let isLetter = { (byte: UInt8) in byte == UInt8(ascii: "_") || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) }
            let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
            let isName = name.utf8.first.map(isLetter) == true && name.utf8.allSatisfy { isLetter($0) || isDigit($0) }
            return isName ? "." + name : "[" + JSONText.quoted(name) + "]"
        }
    }

    private static func storedKind(_ value: StoredValue) -> String {
        switch value {
        case .string: "string"
        case .integer, .number: "number"
        case .boolean: "boolean"
        case .table: "table"
        }
    }

    private func reportStoreProblem(_ path: String, _ problem: String) {
        if storeReportMoment == "checkpoint" {
            guard storeProblemsReported.insert(path).inserted else { return }
        }
        report("\(path) \(problem)", source: "store", during: storeReportMoment)
    }
}

/// A kept value in a saved run (`--state`): a string, an integer or `true`/`false` as itself,
/// a float as `{"float": N}` (`"inf"`, `"-inf"`, `"nan"` for those), so that 2.0 stays a float,
/// and a table as a list of `[key, value]` pairs, so that integer keys stay integers.
extension StoredValue: StateRepresentable {
    package var savedState: JSONValue {
        switch self {
        case .string(let text): return .string(text)
        case .integer(let integer): return .integer(integer)
        case .boolean(let flag): return .bool(flag)
        case .number(let number):
            let value: JSONValue = number.isNaN ? .string("nan") : number.isInfinite ? .string(number < 0 ? "-inf" : "inf") : .number(number)
            return .object([JSONMember("float", value)])
        case .table(let entries):
            return .array(entries.map { entry in
                let key: JSONValue = switch entry.key {
                case .string(let name): .string(name)
                case .integer(let integer): .integer(integer)
                }
                return .array([key, entry.value.savedState])
            })
        }
    }

    package init(savedState: JSONValue) throws {
        switch savedState {
        case .string(let text): self = .string(text)
        case .integer(let integer): self = .integer(integer)
        case .bool(let flag): self = .boolean(flag)
        case .object(let members) where members.count == 1 && members[0].name == "float":
            switch members[0].value {
            case .number(let number): self = .number(number)
            case .integer(let integer): self = .number(Double(integer))
            case .string("inf"): self = .number(.infinity)
            case .string("-inf"): self = .number(-.infinity)
            case .string("nan"): self = .number(.nan)
            default: throw SavedStateError("not a float")
            }
        case .array(let pairs):
            self = .table(try pairs.map { pair in
                guard case .array(let parts) = pair, parts.count == 2 else { throw SavedStateError("not a [key, value] pair") }
                let key: StoredKey
                switch parts[0] {
                case .string(let name): key = .string(name)
                case .integer(let integer): key = .integer(integer)
                default: throw SavedStateError("a key that is neither a string nor an integer")
                }
                return StoredEntry(key, try StoredValue(savedState: parts[1]))
            })
        default:
            throw SavedStateError("not a kept value")
        }
    }
}
