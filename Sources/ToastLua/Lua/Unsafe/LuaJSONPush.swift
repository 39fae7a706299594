import ToastCore
import ToastIO

// Safe to use as `LuaState` is: names and strings are read from the Lua stack while their
// values sit on it (Lua keeps them alive there) and copied before they are popped.
extension LuaState {
    /// The fields of the event table at `index` (a `parse` function's result), read without
    /// building a name for each known field; extras in name order (a table has no order).
    func eventFields(at index: LuaIndex, path: String) throws -> EventFields {
        let index = absoluteIndex(index)
        guard proxy(at: index) == nil else {
            // A toast's own table: its fields, as `pairs` shows them.
            let top = self.top
            defer { setTop(top) }
            pushMaterialized(proxyAt: index)
            return try eventFields(at: -1, path: path)
        }
        var fields = EventFields()
        var extras: [JSONMember] = []
        let top = self.top
        defer { setTop(top) }
        guard reserve(3) else { throw LuaBridgeError("\(path) is nested too deeply") }
        pushNil()
        while next(ofTableAt: index) {
            guard type(at: -2) == .string else {
                throw LuaBridgeError("\(path) has a key of type \(typeName(at: -2)); fields need names")
            }
            var length = 0
            let name = stringBytes(at: -2, count: &length)
            let known = name.flatMap { EventFieldName(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: length)) }
            if let known {
                fields.set(known, try jsonValue(at: -1, path: known.name, depth: 1))
            } else if let name = string(at: -2) {
                extras.append(JSONMember(name, try jsonValue(at: -1, path: name, depth: 1)))
            }
            pop(1)
        }
        extras.sort { $0.name < $1.name }
        for extra in extras { fields.addExtra(extra.name, extra.value) }
        return fields
    }

    /// Pushes the one JSON value that `text` holds (strict JSON, as the input is read), or
    /// pushes nothing and returns why not; `end` names the end in messages.
    func pushJSON(_ text: UnsafeBufferPointer<UInt8>, end: String) -> String? {
        guard isValidUTF8(text) else { return "not valid UTF-8" }
        let top = self.top
        var scanner = JSONScanner(text)
        do {
            try pushJSONValue(&scanner)
            scanner.skipWhitespace()
            guard scanner.isAtEnd else { throw scanner.unexpected(expecting: end) }
            if let column = scanner.outOfRangeColumn { throw JSONSyntaxError(message: "number out of range at column \(column)") }
            return nil
        } catch {
            setTop(top)
            return (error as? JSONSyntaxError)?.message ?? "\(error)"
        }
    }

    /// Pushes the JSON value at the scanner's place straight into Lua, as `push(JSONValue)`
    /// would (null as nil, a later duplicate member winning), without building Swift values
    /// first: a `parse` function gets every input line this way.
    func pushJSONValue(_ scanner: inout JSONScanner, depth: Int = 0) throws {
        guard reserve(3) else { throw JSONSyntaxError(message: "invalid JSON: nested too deeply") }
        scanner.skipWhitespace()
        guard let byte = scanner.current else { throw scanner.unexpected(expecting: "a value") }
        switch byte {
        case UInt8(ascii: "\""):
            try pushJSONString(&scanner)
        case UInt8(ascii: "{"):
            pushTable(arrayCount: 0, fieldCount: 8)
            guard try enterContainer(&scanner, closing: UInt8(ascii: "}"), depth: depth) else { return }
            while true {
                scanner.skipWhitespace()
                guard scanner.current == UInt8(ascii: "\"") else { throw scanner.unexpected(expecting: "a member name") }
                try pushJSONString(&scanner)
                try scanner.expect(UInt8(ascii: ":"), "':'")
                try pushJSONValue(&scanner, depth: depth + 1)
                rawSet(tableAt: -3)
                guard try scanner.endOfMember(closing: UInt8(ascii: "}")) else { return }
            }
        case UInt8(ascii: "["):
            pushTable(arrayCount: 4, fieldCount: 0)
            guard try enterContainer(&scanner, closing: UInt8(ascii: "]"), depth: depth) else { return }
            var position: Int64 = 1
            while true {
                try pushJSONValue(&scanner, depth: depth + 1)
                rawSet(element: position, ofTableAt: -2)
                position += 1
                guard try scanner.endOfMember(closing: UInt8(ascii: "]")) else { return }
            }
        default:
            push(try scanner.parseValue(depth: depth))   // a number, true, false or null: no allocation
        }
    }

    /// Steps over the `{` or `[` at the scanner's place (its table already pushed): false when
    /// the container is empty and already closed.
    private func enterContainer(_ scanner: inout JSONScanner, closing: UInt8, depth: Int) throws -> Bool {
        guard depth < JSONScanner.maxDepth else {
            throw JSONSyntaxError(message: "invalid JSON: nested deeper than \(JSONScanner.maxDepth) levels")
        }
        scanner.index += 1
        scanner.skipWhitespace()
        guard scanner.current == closing else { return true }
        scanner.index += 1
        return false
    }

    /// A JSON string: its bytes as they are when it has no escapes, else decoded.
    private func pushJSONString(_ scanner: inout JSONScanner) throws {
        let string = try scanner.parseName()
        if let raw = string.raw {
            raw.withMemoryRebound(to: CChar.self) { push(bytes: $0.baseAddress, count: $0.count) }
        } else {
            push(string.decoded ?? "")
        }
    }
}
