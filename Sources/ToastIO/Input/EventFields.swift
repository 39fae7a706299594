import ToastCore

// Safe to use as `EventDecoder` is: a line's bytes are read only through a `JSONScanner` that
// checks every index against the line's count, inside the call that lends them.

/// The members of one event object, sorted into the fields docs/events.md names and the rest.
/// Values are checked only once the event's type is known (docs/events.md).
package struct EventFields {
    /// The members most lines have, and those of a drag, each in a member of its own, which
    /// reads faster than any table.
    private var type, at, id, message, subtitle, role, source, phase, dy: JSONValue?
    private var atMicros: Microseconds?
    /// Any other show field (`store`): a field added to the schema is read and kept here with
    /// nothing to change in the decoder.
    private var otherFields: [(field: ToastField, value: JSONValue, microseconds: Microseconds?)]? = nil
    /// Every member that is not a show field, in order (a show's `extra`), when the fields
    /// come from a `parse` function; a JSON line's go on as text (`extraText` of `read`), and
    /// only `phase` and `dy`, which a drag also reads, are kept here as values too.
    package var extra: [JSONMember] = []
    /// The names of the members that are not show fields, to look for typos in.
    package var extraNames: [String] = []
    /// A JSON line's `level`, `severity` and `PRIORITY` members, which give a show without a
    /// `role` its role.
    var levelHints = LevelHints()
    /// A JSON line's `message` and `subtitle` when they are strings without escapes: their
    /// bytes in the line, valid while the line is (the show keeps them as they are).
    package var messageBytes, subtitleBytes: UnsafeBufferPointer<UInt8>?

    package init() {}

    /// The members of the object at the scanner; `extraText` gets the text of the members
    /// that are not show fields (`phase` and `dy` included) as one JSON object, `{...}`, or
    /// nothing when there are none. Names and values that repeat come from `interner`;
    /// `extraNames` leaves out those in `namesChecked` (already looked at for typos), so a
    /// line whose extra names were all seen before makes no list of them.
    static func read(from scanner: inout JSONScanner, extraText: EventDecoder.ExtraTextBuffer,
                     interner: inout StringInterner, namesChecked: [String], screenField: String? = nil,
                     screenValue: inout JSONValue?) throws -> EventFields {
        var fields = EventFields()
        try scanner.expect(UInt8(ascii: "{"), "'{'")
        scanner.skipWhitespace()
        if scanner.current == UInt8(ascii: "}") {
            scanner.index += 1
            return fields
        }
        while true {
            scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: "\"") else { throw scanner.unexpected(expecting: "a member name") }
            let memberStart = scanner.index
            let name = try scanner.parseName()
            try scanner.expect(UInt8(ascii: ":"), "':'")
            let known = name.raw.flatMap(EventFieldName.find) ?? name.decoded.flatMap(EventFieldName.find(named:))
            if let known {
                try fields.readValue(of: known.name, reading: known.reading, from: &scanner, interner: &interner)
            } else {
                // The value goes on as text (`extraText`); only its name is needed here.
                let extraName = name.raw.map { interner.string($0) } ?? name.decoded ?? ""
                if !namesChecked.contains(extraName) { fields.extraNames.append(extraName) }
                if extraName == screenField {
                    screenValue = try scanner.parseValue(depth: 1)
                } else if LevelHints.names.contains(extraName) {
                    // (Read always: the role may come after it in the line.)
                    fields.levelHints.set(extraName, try scanner.parseValue(depth: 1))
                } else {
                    try scanner.checkValue(depth: 1)
                }
            }
            if known?.name.showField == nil {
                extraText.appendMember(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scanner.bytes)[memberStart..<scanner.index]))
            }
            guard try scanner.endOfMember(closing: UInt8(ascii: "}")) else {
                extraText.close()
                return fields
            }
        }
    }

    private mutating func readValue(of field: EventFieldName, reading: EventFieldName.Reading,
                                    from scanner: inout JSONScanner, interner: inout StringInterner) throws {
        switch reading {
        case .repeatingString:
            if let bytes = scanner.parsePlainString() {
                store(field, .string(interner.string(bytes)), microseconds: nil)
            } else {
                store(field, try scanner.parseValue(depth: 1), microseconds: nil)
            }
        case .text:
            let bytes = scanner.parsePlainString()
            if case .show(.message) = field { messageBytes = bytes } else { subtitleBytes = bytes }
            store(field, bytes == nil ? try scanner.parseValue(depth: 1) : .string(""), microseconds: nil)
        case .time:
            let (value, microseconds) = try Self.timeValue(&scanner)
            store(field, value, microseconds: microseconds)
        case .value:
            store(field, try scanner.parseValue(depth: 1), microseconds: nil)
        }
    }

    /// Sets a field from a value already decoded; a time also gets its exact microseconds,
    /// read from the same decimal text a JSON line would hold.
    package mutating func set(_ field: EventFieldName, _ value: JSONValue) {
        let isTime = field.showField?.kind.isTime ?? false
        store(field, value, microseconds: isTime ? Self.microseconds(of: value) : nil)
    }

    /// Where each member is kept (`subscript` reads them back by name).
    @inline(__always)
    private mutating func store(_ field: EventFieldName, _ value: JSONValue, microseconds: Microseconds?) {
        switch field {
        case .show(.type): type = value
        case .show(.at): (at, atMicros) = (value, microseconds)
        case .show(.id): id = value
        case .show(.message): message = value
        case .show(.subtitle): subtitle = value
        case .show(.role): role = value
        case .show(.source): source = value
        case .show(let other):
            // (The last of duplicates counts, as `subscript` reads it.)
            var others = otherFields.take() ?? []
            others.append((other, value, microseconds))
            otherFields = others
        case .phase, .dy:
            // Drag fields; for a show they are extra fields like any other.
            if case .phase = field { phase = value } else { dy = value }
            addExtra(field.name, value)
        }
    }

    /// The value of the member `field` (nil when absent).
    subscript(field: EventFieldName) -> JSONValue? {
        switch field {
        case .show(let field): self[field]
        case .phase: phase
        case .dy: dy
        }
    }

    /// The value of the show field `field` (nil when absent).
    subscript(field: ToastField) -> JSONValue? {
        switch field {
        case .type: type
        case .at: at
        case .id: id
        case .message: message
        case .subtitle: subtitle
        case .role: role
        case .source: source
        default: otherFields?.last { $0.field.rawValue == field.rawValue }?.value
        }
    }

    /// The exact microseconds of a time member given as a number.
    func microseconds(of field: ToastField) -> Microseconds? {
        if case .at = field { return atMicros }
        return otherFields?.last { $0.field.rawValue == field.rawValue }?.microseconds
    }

    private static func microseconds(of value: JSONValue) -> Microseconds? {
        let number: Double
        switch value {
        case .integer(let integer):
            let (product, overflow) = integer.multipliedReportingOverflow(by: StreamTime.perSecond)
            return overflow ? nil : product
        case .number(let double): number = double
        default: return nil
        }
        var text: [UInt8] = []
        JSONText.appendDouble(number, to: &text)
        return text.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            return (try? scanner.parseNumber())?.microseconds
        }
    }

    /// A member that is not a show field; a later duplicate replaces the earlier value.
    package mutating func addExtra(_ name: String, _ value: JSONValue) {
        if let existing = extra.firstIndex(where: { $0.name == name }) {
            extra[existing].value = value
        } else {
            extra.append(JSONMember(name, value))
            extraNames.append(name)
        }
    }

    /// Whether the value at the scanner (past any space) is a number.
    static func isAtNumber(_ scanner: inout JSONScanner) -> Bool {
        scanner.skipWhitespace()
        guard let byte = scanner.current else { return false }
        return byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// A value that may be a time: numbers also give their exact microseconds.
    static func timeValue(_ scanner: inout JSONScanner) throws -> (JSONValue, Microseconds?) {
        if isAtNumber(&scanner) {
            let number = try scanner.parseNumber()
            return (number.jsonValue, number.microseconds)
        }
        return (try scanner.parseValue(depth: 1), nil)
    }

    // MARK: Typed access (null is absent, docs/events.md)

    static func string(_ name: @autoclosure () -> String, _ value: JSONValue?) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw FieldError("field '\(name())' must be a string")
        }
    }

    static func bool(_ name: @autoclosure () -> String, _ value: JSONValue?) throws -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw FieldError("field '\(name())' must be true or false")
        }
    }

    static func number(_ name: @autoclosure () -> String, _ value: JSONValue?) throws -> Double? {
        switch value {
        case nil, .null?: return nil
        case .integer(let number)?: return Double(number)
        case .number(let number)?: return number
        default: throw FieldError("field '\(name())' must be a number")
        }
    }

    static func integer(_ name: @autoclosure () -> String, _ value: JSONValue?) throws -> Int? {
        switch value {
        case nil, .null?: return nil
        case .integer(let number)?:
            guard let result = Int(exactly: number) else { throw FieldError("field '\(name())' is out of range") }
            return result
        case .number(let number)?:
            guard number.rounded() == number else { throw FieldError("field '\(name())' must be an integer") }
            guard let result = Int(exactly: number) else { throw FieldError("field '\(name())' is out of range") }
            return result
        default: throw FieldError("field '\(name())' must be an integer")
        }
    }

    static func time(_ name: @autoclosure () -> String, _ value: JSONValue?, _ micros: Microseconds?) throws -> Microseconds? {
        switch value {
        case nil, .null?: return nil
        case .integer?, .number?:
            guard let micros else { throw FieldError("field '\(name())' is out of range") }
            return micros
        default: throw FieldError("field '\(name())' must be a number of seconds")
        }
    }
}

/// The member names an event object gives meaning to (docs/events.md), matched on their bytes:
/// the show fields of the schema (`ToastField`), and `phase` and `dy`, which only a drag reads
/// (for a show they are extra fields like any other).
package enum EventFieldName: Equatable {
    case show(ToastField)
    case phase, dy

    /// How a member's value is read from a line, found once from its row of the schema.
    enum Reading {
        /// Any JSON value.
        case value
        /// A string that comes back line after line (a `StringInterner` keeps it).
        case repeatingString
        /// The message or subtitle, kept as its bytes in the line when it has no escapes.
        case text
        /// Seconds, kept in exact microseconds too.
        case time
    }

    /// Every name, with how its value is read.
    private static let all: [(name: EventFieldName, reading: Reading)] =
        ToastField.allCases.map { field in
            let reading: Reading = switch field.kind {
            case .message, .subtitle: .text
            case let kind where kind.isTime: .time
            default: field.valuesRepeat ? .repeatingString : .value
            }
            return (.show(field), reading)
        } + [(.phase, .repeatingString), (.dy, .value)]

    /// The member's name in an event object.
    package var name: String {
        switch self {
        case .show(let field): field.name
        case .phase: "phase"
        case .dy: "dy"
        }
    }

    /// The show field it is (nil for `phase` and `dy`).
    var showField: ToastField? {
        if case .show(let field) = self { return field }
        return nil
    }

    /// The name called `name`, if an event object gives it meaning.
    package init?(named name: String) {
        guard let found = Self.find(named: name) else { return nil }
        self = found.name
    }

    /// The name called `name` with how its value is read.
    static func find(named name: String) -> (name: EventFieldName, reading: Reading)? {
        all.first { $0.name.name == name }
    }

    /// The show fields checked by their kind, in the order of `ToastField.settable` (the first
    /// wrong one is the one reported); `message` and `subtitle` are read before them.
    /// Each with its kind, looked up once here rather than for every line.
    static let checkedShowFields = ToastField.settable.filter { $0 != .message && $0 != .subtitle }.map { ($0, $0.kind) }

    /// The names a show gives meaning to.
    static let showFieldNames = ToastField.allCases.map(\.name)

    /// A name's bytes in three words, zero after its end: names (at most 24 bytes) compare as
    /// three integers. Every member of every line is looked up, and three integer comparisons
    /// cost less than a `memcmp` call for each name of the same length.
    private typealias NameWords = (UInt64, UInt64, UInt64)
    private static let longestName = 3 * MemoryLayout<UInt64>.size

    private static func words(_ bytes: UnsafeRawBufferPointer) -> NameWords {
        var words: NameWords = (0, 0, 0)
        withUnsafeMutableBytes(of: &words) { target in
            if let source = bytes.baseAddress, let base = target.baseAddress {
                base.copyMemory(from: source, byteCount: min(bytes.count, target.count))
            }
        }
        return words
    }

    /// The names by their length in bytes, for matching without building a `String`.
    private static let byLength: [[(words: NameWords, name: EventFieldName, reading: Reading)]] = {
        precondition(all.allSatisfy { $0.name.name.utf8.count <= longestName }, "names fit in three words")
        let longest = all.map { $0.name.name.utf8.count }.max() ?? 0
        var table = Array(repeating: [(words: NameWords, name: EventFieldName, reading: Reading)](), count: longest + 1)
        for (name, reading) in all {
            let bytes = Array(name.name.utf8)
            table[bytes.count].append((bytes.withUnsafeBytes(words), name, reading))
        }
        return table
    }()

    /// The name whose UTF-8 bytes are `bytes`, with how its value is read.
    static func find(_ bytes: UnsafeBufferPointer<UInt8>) -> (name: EventFieldName, reading: Reading)? {
        guard bytes.count < EventFieldName.byLength.count else { return nil }
        let words = Self.words(UnsafeRawBufferPointer(bytes))
        for candidate in EventFieldName.byLength[bytes.count]
        where candidate.words.0 == words.0 && candidate.words.1 == words.1 && candidate.words.2 == words.2 {
            return (candidate.name, candidate.reading)
        }
        return nil
    }

    /// The name whose UTF-8 bytes are `bytes`.
    package init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let found = Self.find(bytes) else { return nil }
        self = found.name
    }
}
