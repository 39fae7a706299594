/// A toast as a saved run keeps it (SPEC 11.4, `--state`): its fields, the extra fields, and
/// what the pipeline and the stages added (its time, input line, style, announcement, the
/// stage that made it, its screen), so that the toast made again from it is the same toast to
/// every stage, record and script.
///
/// The saved form is a JSON object: `fields` holds each schema field whose value is not the
/// one a new toast has (`Toast(id: "", message: " ")`, which a field left out keeps), `null`
/// for no value. A field of the schema's own kind is written as its value (a string, µs, an
/// integer, true or false); a field kept in general storage is tagged by kind
/// (`{"text": "…"}`, `{"time": µs}`, `{"integer": n}`, `{"flag": b}`), so that reading it back
/// never guesses a kind. (A tagged value is read for any field.)
extension Toast: StateRepresentable {
    /// What each field left out of `fields` is (by the field's raw value).
    private static let savedDefaults: [FieldValue] = {
        let toast = Toast(id: "", message: " ")
        return ToastField.allCases.map { toast.value(of: $0) }
    }()

    /// Each field's name in `fields` as JSON text with its colon (by the field's raw value):
    /// escaped once, not at every toast of every checkpoint.
    private static let savedNames: [[UInt8]] = ToastField.allCases.map { field in
        var text: [UInt8] = []
        JSONText.appendString(field.name, to: &text)
        return text + [UInt8(ascii: ":")]
    }

    /// The toast as a JSON value that `init(savedState:)` reads back.
    public var savedState: JSONValue {
        var writer = JSONWriter()
        writeSavedState(to: &writer)
        return writer.value ?? .null
    }

    /// `savedState`'s text, written straight into `writer` (a checkpoint's screens).
    package func writeSavedState(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("fields")
        writer.beginObject()
        for field in ToastField.allCases where !Self.isConstant(field) {
            withValue(of: field) { value in
                guard !Self.same(value, Self.savedDefaults[field.rawValue]) else { return }
                Self.savedNames[field.rawValue].withUnsafeBytes { writer.key(written: $0) }
                Self.write(value, of: field, to: &writer)
            }
        }
        writer.endObject()
        writer.key("extra")
        switch storage.fields.extra {
        case .canonical(let range): storage.withBytes(range) { writer.json($0) }
        case .members, .stored:
            writer.beginObject()
            writer.members(extra)
            writer.endObject()
        }
        writer.member("at", atMicros)
        writer.member("input_line", inputLine)
        if let style = self.style {
            writer.key("style")
            writer.beginObject()
            writer.member("symbol", style.symbol)
            writer.member("glyph", style.glyph)
            writer.member("color", style.color)
            writer.endObject()
        }
        switch storage.fields.announcement {
        case .text(let text)?: writer.member("announcement", text)
        case .standard(let label)?: writer.member("announcement_label", label)
        case nil: break
        }
        if let madeBy { writer.member("made_by", madeBy) }
        switch storage.fields.screenKey {
        case .text(let text)?: writer.member("screen", text)
        case .integer(let integer)?: writer.member("screen", integer)
        case nil: break
        }
        writer.endObject()
    }

    private static func isConstant(_ field: ToastField) -> Bool {
        if case .constant = field.storage { return true }
        return false
    }

    private static func same(_ value: FieldView, _ other: FieldValue) -> Bool {
        switch (value, other) {
        case (.absent, .absent): true
        case (.text(let text), .text(let otherText)): otherText.withUTF8Bytes { text.hasSameBytes(as: $0) }
        case (.time(let time), .time(let otherTime)): time == otherTime
        case (.integer(let integer), .integer(let otherInteger)): integer == otherInteger
        case (.flag(let flag), .flag(let otherFlag)): flag == otherFlag
        default: false
        }
    }

    /// A field's value as `fields` keeps it: tagged for a field in general storage.
    private static func write(_ value: FieldView, of field: ToastField, to writer: inout JSONWriter) {
        let tagged: Bool
        if case .generic = field.storage { tagged = true } else { tagged = false }
        if case .absent = value { return writer.null() }
        if tagged { writer.beginObject() }
        switch value {
        case .absent: break
        case .text(let text):
            if tagged { writer.key("text") }
            writer.string(utf8: text)
        case .time(let time):
            if tagged { writer.key("time") }
            writer.integer(time)
        case .integer(let integer):
            if tagged { writer.key("integer") }
            writer.integer(integer)
        case .flag(let flag):
            if tagged { writer.key("flag") }
            writer.bool(flag)
        }
        if tagged { writer.endObject() }
    }

    /// The toast `savedState` gave; throws `SavedStateError` naming what is wrong.
    public init(savedState: JSONValue) throws {
        let saved = try SavedObject(savedState, path: "toast")
        guard case .object(let savedFields) = try saved.required("fields") else {
            throw SavedStateError("toast.fields is not an object")
        }
        self.init(id: "", message: " ")
        for member in savedFields {
            // The path only when something is wrong: a restore reads many toasts.
            guard let field = ToastField(named: member.name), !Self.isConstant(field) else {
                throw SavedStateError("toast.fields.\(member.name) is not a field a saved toast has")
            }
            let fieldValue = try Self.fieldValue(member.value, of: field, named: member.name)
            guard Self.holds(field, fieldValue) else { throw SavedStateError("toast.fields.\(member.name) is not a value this field holds") }
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

    /// The toast `writeSavedState` wrote, read straight from its text at the scanner's place,
    /// without a JSON value of the whole (a restart reads every toast its screens hold). Nil for
    /// text in any other form (members in another order, unknown or wrong ones), which
    /// `init(savedState:)` reads as a value, and says what is wrong with: what both read is one toast.
    package init?(scanningSaved scanner: inout JSONScanner) {
        guard scanner.skip(UInt8(ascii: "{")), scanner.skipMember("fields"), scanner.skip(UInt8(ascii: "{")) else { return nil }
        self.init(id: "", message: " ")
        if !scanner.skip(UInt8(ascii: "}")) {
            repeat {
                guard let rawName = scanner.memberName(), let value = try? scanner.parseValue() else { return nil }
                let name = String(decoding: rawName, as: UTF8.self)
                guard let field = ToastField(named: name), !Self.isConstant(field),
                      let fieldValue = try? Self.fieldValue(value, of: field, named: name), Self.holds(field, fieldValue) else { return nil }
                uniqueFields.set(field, to: fieldValue)
            } while scanner.skip(UInt8(ascii: ","))
            guard scanner.skip(UInt8(ascii: "}")) else { return nil }
        }
        guard scanner.skip(UInt8(ascii: ",")), scanner.skipMember("extra"), case .object(let extra)? = try? scanner.parseValue(),
              scanner.skip(UInt8(ascii: ",")), scanner.skipMember("at"), let at = scanner.integerValue(),
              scanner.skip(UInt8(ascii: ",")), scanner.skipMember("input_line"), let inputLine = scanner.integerValue() else { return nil }
        self.extra = extra
        atMicros = at
        self.inputLine = Int(inputLine)
        // Then those a toast may have, in the order they are written, each once.
        var next = 0
        while scanner.skip(UInt8(ascii: ",")) {
            guard let rawName = scanner.memberName() else { return nil }
            switch String(decoding: rawName, as: UTF8.self) {
            case "style" where next <= 0:
                guard scanner.skip(UInt8(ascii: "{")), scanner.skipMember("symbol"), let symbol = scanner.stringValue(),
                      scanner.skip(UInt8(ascii: ",")), scanner.skipMember("glyph"), let glyph = scanner.stringValue(),
                      scanner.skip(UInt8(ascii: ",")), scanner.skipMember("color"), let color = scanner.stringValue(),
                      scanner.skip(UInt8(ascii: "}")) else { return nil }
                style = AppliedStyle(symbol: symbol, glyph: glyph, color: color)
                next = 1
            case "announcement" where next <= 1:
                guard let text = scanner.stringValue() else { return nil }
                uniqueFields.announcement = .text(text)
                next = 2
            case "announcement_label" where next <= 1:
                guard let label = scanner.stringValue() else { return nil }
                uniqueFields.announcement = .standard(label: label)
                next = 2
            case "made_by" where next <= 2:
                guard let madeBy = scanner.stringValue() else { return nil }
                uniqueFields.madeBy = madeBy
                next = 3
            case "screen" where next <= 3:
                if let text = scanner.stringValue() {
                    uniqueFields.screenKey = .text(text)
                } else if let integer = scanner.integerValue() {
                    uniqueFields.screenKey = .integer(integer)
                } else {
                    return nil
                }
                next = 4
            default:
                return nil
            }
        }
        guard scanner.skip(UInt8(ascii: "}")) else { return nil }
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

    private static func fieldValue(_ saved: JSONValue, of field: ToastField, named name: String) throws -> FieldValue {
        switch (saved, field.storage) {
        case (.string(let text), .message), (.string(let text), .subtitle), (.string(let text), .text),
             (.string(let text), .optionalText):
            return .text(text)
        case (.integer(let time), .time), (.integer(let time), .optionalTime): return .time(time)
        case (.integer(let integer), .optionalInteger): return .integer(Int(integer))
        case (.bool(let flag), .flag): return .flag(flag)
        default: break
        }
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
        throw SavedStateError("toast.fields.\(name) is not a saved field value")
    }
}

/// A saved JSON object read by member name, with errors that name the path.
package struct SavedObject {
    private let members: [JSONMember]
    /// The path: `base`, or item `index` of the list `list` of `base`, made only for a message
    /// (a restore reads many items, and says nothing of most).
    private let base: String
    private let list: String
    private let index: Int

    private var path: String { list.isEmpty ? base : "\(base).\(list)[\(index)]" }

    package init(_ value: JSONValue, path: String) throws {
        guard case .object(let members) = value else { throw SavedStateError("\(path) is not an object") }
        self.members = members
        (base, list, index) = (path, "", 0)
    }

    /// Item `index` of the list `list` of what is at `path`.
    package init(_ value: JSONValue, item index: Int, of list: String, in path: String) throws {
        guard case .object(let members) = value else { throw SavedStateError("\(path).\(list)[\(index)] is not an object") }
        self.members = members
        (base, self.list, self.index) = (path, list, index)
    }

    package func optional(_ name: String) -> JSONValue? {
        // The lengths first: most names looked at are not the one looked for, and a length
        // is read without comparing text.
        let length = name.utf8.count
        var index = members.endIndex
        while index > members.startIndex {
            index -= 1
            if members[index].name.utf8.count == length && members[index].name == name { return members[index].value }
        }
        return nil
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
