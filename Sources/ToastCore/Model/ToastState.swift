/// A toast as a saved run keeps it (SPEC 11.4, `--state`): every field of the schema, the extra
/// fields, and what the pipeline and the stages added (its time, input line, style,
/// announcement, the stage that made it, its screen), so that the toast made again from it is
/// the same toast to every stage, record and script.
///
/// The saved form is a JSON object: `fields` holds each schema field that is not a constant,
/// tagged by kind (`{"text": "…"}`, `{"time": µs}`, `{"integer": n}`, `{"flag": b}`, or `null`
/// for no value), so that reading it back never guesses a kind.
extension Toast: StateRepresentable {
    /// The toast as a JSON value that `init(savedState:)` reads back.
    public var savedState: JSONValue {
        var fields: [JSONMember] = []
        for field in ToastField.allCases {
            if case .constant = field.storage { continue }
            fields.append(JSONMember(field.name, Self.saved(value(of: field))))
        }
        var members: [JSONMember] = [
            JSONMember("fields", .object(fields)),
            JSONMember("extra", .object(extra)),
            JSONMember("at", .integer(atMicros)),
            JSONMember("input_line", .integer(Int64(inputLine))),
        ]
        if let style = self.style {
            members.append(JSONMember("style", .object([
                JSONMember("symbol", .string(style.symbol)), JSONMember("glyph", .string(style.glyph)),
                JSONMember("color", .string(style.color)),
            ])))
        }
        switch storage.fields.announcement {
        case .text(let text)?: members.append(JSONMember("announcement", .string(text)))
        case .standard(let label)?: members.append(JSONMember("announcement_label", .string(label)))
        case nil: break
        }
        if let madeBy { members.append(JSONMember("made_by", .string(madeBy))) }
        switch storage.fields.screenKey {
        case .text(let text)?: members.append(JSONMember("screen", .string(text)))
        case .integer(let integer)?: members.append(JSONMember("screen", .integer(integer)))
        case nil: break
        }
        return .object(members)
    }

    /// The toast `savedState` gave; throws `SavedStateError` naming what is wrong.
    public init(savedState: JSONValue) throws {
        let saved = try SavedObject(savedState, path: "toast")
        let fieldsObject = try SavedObject(saved.required("fields"), path: "toast.fields")
        self.init(id: "", message: " ")
        for field in ToastField.allCases {
            if case .constant = field.storage { continue }
            guard let value = fieldsObject.optional(field.name) else {
                throw SavedStateError("toast.fields has no \(field.name)")
            }
            let path = "toast.fields.\(field.name)"
            let fieldValue = try Self.fieldValue(value, path: path)
            guard Self.holds(field, fieldValue) else { throw SavedStateError("\(path) is not a value this field holds") }
            uniqueFields.set(field, to: fieldValue)
        }
        guard case .object(let extra) = try saved.required("extra") else { throw SavedStateError("toast.extra is not an object") }
        self.extra = extra
        atMicros = try saved.integer("at")
        inputLine = Int(try saved.integer("input_line"))
        if let style = saved.optional("style") {
            let look = try SavedObject(style, path: "toast.style")
            self.style = AppliedStyle(symbol: try look.string("symbol"), glyph: try look.string("glyph"),
                                        color: try look.string("color"))
        }
        if let text = saved.optional("announcement") {
            guard case .string(let text) = text else { throw SavedStateError("toast.announcement is not a string") }
            uniqueFields.announcement = .text(text)
        } else if let label = saved.optional("announcement_label") {
            guard case .string(let label) = label else { throw SavedStateError("toast.announcement_label is not a string") }
            uniqueFields.announcement = .standard(label: label)
        }
        if let madeBy = saved.optional("made_by") {
            guard case .string(let madeBy) = madeBy else { throw SavedStateError("toast.made_by is not a string") }
            uniqueFields.madeBy = madeBy
        }
        switch saved.optional("screen") {
        case .string(let text)?: uniqueFields.screenKey = .text(text)
        case .integer(let integer)?: uniqueFields.screenKey = .integer(integer)
        case nil: break
        default: throw SavedStateError("toast.screen is neither a string nor an integer")
        }
    }

    /// Whether `field` can hold `value`: a value of its kind, or none where it may have none.
    private static func holds(_ field: ToastField, _ value: FieldValue) -> Bool {
        switch (field.storage, value) {
        case (.message, .text), (.subtitle, .text), (.subtitle, .absent), (.text, .text), (.optionalText, .text),
             (.optionalText, .absent), (.time, .time), (.optionalTime, .time), (.optionalTime, .absent),
             (.optionalInteger, .integer), (.optionalInteger, .absent), (.flag, .flag):
            return true
        case (.generic(let defaultValue, _), _):
            switch (defaultValue, value) {
            case (_, .absent), (.absent, _), (.text, .text), (.time, .time), (.integer, .integer), (.flag, .flag): return true
            default: return false
            }
        default:
            return false
        }
    }

    private static func saved(_ value: FieldValue) -> JSONValue {
        switch value {
        case .absent: .null
        case .text(let text): .object([JSONMember("text", .string(text))])
        case .time(let time): .object([JSONMember("time", .integer(time))])
        case .integer(let integer): .object([JSONMember("integer", .integer(Int64(integer)))])
        case .flag(let flag): .object([JSONMember("flag", .bool(flag))])
        }
    }

    private static func fieldValue(_ saved: JSONValue, path: String) throws -> FieldValue {
        switch saved {
        case .null: return .absent
        case .object(let members) where members.count == 1:
            switch (members[0].name, members[0].value) {
            case ("text", .string(let text)): return .text(text)
            case ("time", .integer(let time)): return .time(time)
            case ("integer", .integer(let integer)): return .integer(Int(integer))
            case ("flag", .bool(let flag)): return .flag(flag)
            default: break
            }
        default: break
        }
        throw SavedStateError("\(path) is not a saved field value")
    }
}

/// Bytes in a saved state (a dedup key, a rate-limit group), as lowercase hexadecimal text.
package enum SavedBytes {
    package static func text(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(hexDigit(byte >> 4))
            text.append(hexDigit(byte & 0xF))
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    package static func bytes(_ value: JSONValue, path: String) throws -> [UInt8] {
        guard case .string(let text) = value, text.utf8.count % 2 == 0 else {
            throw SavedStateError("\(path) is not hexadecimal bytes")
        }
        func nibble(_ digit: UInt8) throws -> UInt8 {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            default: throw SavedStateError("\(path) is not hexadecimal bytes")
            }
        }
        let digits = Array(text.utf8)
        return try stride(from: 0, to: digits.count, by: 2).map { try nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
    }
}

/// A saved JSON object read by member name, with errors that name the path.
package struct SavedObject {
    private let members: [JSONMember]
    private let path: String

    package init(_ value: JSONValue, path: String) throws {
        guard case .object(let members) = value else { throw SavedStateError("\(path) is not an object") }
        self.members = members
        self.path = path
    }

    package func optional(_ name: String) -> JSONValue? {
        members.last { $0.name == name }?.value
    }

    package func required(_ name: String) throws -> JSONValue {
        guard let value = optional(name) else { throw SavedStateError("\(path) has no \(name)") }
        return value
    }

    package func integer(_ name: String) throws -> Int64 {
        guard case .integer(let integer) = try required(name) else { throw SavedStateError("\(path).\(name) is not an integer") }
        return integer
    }

    package func string(_ name: String) throws -> String {
        guard case .string(let string) = try required(name) else { throw SavedStateError("\(path).\(name) is not a string") }
        return string
    }

    package func list(_ name: String) throws -> [JSONValue] {
        guard case .array(let items) = try required(name) else { throw SavedStateError("\(path).\(name) is not a list") }
        return items
    }

    package func bool(_ name: String) throws -> Bool {
        guard case .bool(let flag) = try required(name) else { throw SavedStateError("\(path).\(name) is not true or false") }
        return flag
    }
}
