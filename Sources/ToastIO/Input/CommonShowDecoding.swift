import ToastCore

// Safe to use as `EventDecoder` is: the line is read only through its scanner, inside the
// call that lends it, and what a show keeps of it is copied into the batch's text.
extension EventDecoder {
    /// A show line in the shape nearly every line of a real stream has, decoded in one pass
    /// straight into the toast's fields; nil for any other line, which the general path
    /// (`EventFields`) then decodes as if this had not looked at it (it changes only scratch
    /// space and the interner's cache).
    ///
    /// The shape: a JSON object whose member names have no escapes; `type` (`"show"`), `at` (a
    /// number), `id`, `message` (not empty), `subtitle`, `role` (a known one) and `source` as
    /// strings, and any other show field with a value its kind allows, each at most once; any
    /// member that is not a show field under a name already looked at for typos; with screens
    /// on, a screen named once by an extra member, with a value that can name one. Every value
    /// is checked as the general path checks it, so a line taken here gives the same show, with
    /// the same number, as there; anything else (a `null` where a string goes, a duplicate, a
    /// wrong value, a new name) is left to the general path, which also words the errors.
    ///
    /// Why a second path: the general one keeps each member as a `JSONValue` and checks the
    /// fields in a second pass, the larger part of the reading thread's work on a line
    /// (docs/performance.md, "Why: one event, start to end").
    mutating func decodeCommonShow(_ line: UnsafeBufferPointer<UInt8>, number: Int, batch: ShowBatch) -> DecodedShow? {
        guard screenShowField == nil else { return nil }
        var scanner = JSONScanner(line)
        var common = CommonShowMembers()
        // With screens on, the value of the extra member that names the screen.
        var screenValue: JSONValue?
        var screenNamed = false
        extraText.removeAll()
        // Whether the extra members so far are written as a record writes them (so it copies
        // them without looking), and how many there are.
        var extraIsCanonical = true
        var extraMembers = 0
        // A bit for each extra name seen, by its first and last bytes and its length: a name
        // whose bit is set may come twice, and the record looks (only a canonical text is
        // marked so).
        var extraNameBits: UInt64 = 0
        // Where the members that may name the level of a show without a `role` have their
        // values (read only when the show ends up without one).
        var levelValues = LevelHints.Offsets()
        do {
            scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: "{") else { return nil }
            scanner.index += 1
            repeat {
                scanner.skipWhitespace()
                let memberStart = scanner.index
                guard let name = scanner.parsePlainString() else { return nil }
                try scanner.expect(UInt8(ascii: ":"), "':'")
                if let known = EventFieldName.find(name) {
                    guard case .show(let field) = known.name, try common.read(field, known.reading, from: &scanner, decoder: &self) else {
                        return nil
                    }
                } else {
                    let extraName = interner.string(name)
                    guard namesChecked.contains(extraName) else { return nil }
                    var plainString = false
                    if let screenField, extraName == screenField {
                        guard !screenNamed else { return nil }
                        screenNamed = true
                        screenValue = try scanner.parseValue(depth: 1)
                    } else {
                        // (A role read already makes the level's value of no use.)
                        if readsLevels && common.role == nil { levelValues.note(name, at: scanner.index) }
                        plainString = try scanner.checkValue(depth: 1)
                    }
                    extraText.appendMember(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scanner.bytes)[memberStart..<scanner.index]))
                    if extraIsCanonical {
                        let nameBit = UInt64(1) << ((Int(name.first ?? 0) &* 31 &+ Int(name.last ?? 0) &+ name.count) & 63)
                        extraIsCanonical = extraMembers < JSONText.canonicalMembersChecked && extraNameBits & nameBit == 0
                            && JSONText.isCanonicalMember(UnsafeRawBufferPointer(scanner.bytes), start: memberStart,
                                                          nameCount: name.count, end: scanner.index, plainString: plainString)
                        extraNameBits |= nameBit
                    }
                    extraMembers += 1
                }
            } while try scanner.endOfMember(closing: UInt8(ascii: "}"))
            scanner.skipWhitespace()
            guard scanner.isAtEnd, scanner.outOfRangeColumn == nil else { return nil }
        } catch {
            return nil
        }
        guard let message = common.message else { return nil }
        var screen: ScreenKey?
        if screenField != nil {
            guard let key = ScreenKey(naming: screenValue) else { return nil }
            screen = key
        }
        extraText.close()

        showCount += 1
        let messageText = message.toastText(in: batch)
        let subtitleText = common.subtitle?.toastText(in: batch)
        let extraText = extraText.isEmpty ? nil : extraText.withBytes { batch.text.append($0) }
        var role = common.role
        if role == nil && levelValues.any {
            guard let hints = levelValues.read(in: line) else { return nil }
            role = hints.level(orIn: []).map(\.role)
        }
        let fields = Toast.showFields(id: common.id ?? Self.implicitID(showCount), message: messageText,
                                      subtitle: subtitleText, role: role, source: common.source,
                                      extra: extraText.map { .text($0, knownCanonical: extraIsCanonical) } ?? .members([]),
                                      others: common.others,
                                      screenKey: screen, duration: defaultDuration, policy: defaultPolicy, inputLine: number)
        return DecodedShow(fields: fields, batch: batch, at: common.at, line: number)
    }
}

/// The show fields a common show line may set (`EventDecoder.decodeCommonShow`), as read.
private struct CommonShowMembers {
    var at: Microseconds?
    var id, role, source: String?
    var message, subtitle: LineText?
    /// The other show fields the line sets, checked.
    var others: [(field: ToastField, value: Toast.FieldValue)] = []
    /// The fields read so far, one bit each (by `ToastField.rawValue`): a second one sends the
    /// line to the general path.
    private var seen: UInt64 = 0

    /// A text as read: its bytes in the line, or (when it has escapes) the string they stand for.
    enum LineText {
        case bytes(UnsafeBufferPointer<UInt8>)
        case string(String)

        var isEmpty: Bool {
            switch self {
            case .bytes(let bytes): bytes.isEmpty
            case .string(let string): string.isEmpty
            }
        }
    }

    /// Reads the value of `field` when it is one a common line sets, in the form it has there;
    /// false for anything else.
    mutating func read(_ field: ToastField, _ reading: EventFieldName.Reading, from scanner: inout JSONScanner,
                       decoder: inout EventDecoder) throws -> Bool {
        let bit: UInt64 = 1 << UInt64(field.rawValue & 63)
        guard seen & bit == 0 else { return false }
        seen |= bit
        switch field {
        case .at:
            guard EventFields.isAtNumber(&scanner),
                  let micros = try scanner.parsePlainTime() ?? scanner.parseNumber().microseconds else { return false }
            at = micros
        case .type:
            guard let type = scanner.parsePlainString() else { return false }
            return type.count == 4 && type[0] == UInt8(ascii: "s") && type[1] == UInt8(ascii: "h")
                && type[2] == UInt8(ascii: "o") && type[3] == UInt8(ascii: "w")
        case .id:
            guard let text = try Self.text(&scanner) else { return false }
            id = text.string
        case .message:
            guard let text = try Self.text(&scanner), !text.isEmpty else { return false }
            message = text
        case .subtitle:
            guard let text = try Self.text(&scanner) else { return false }
            subtitle = text
        case .role:
            guard let name = try Self.text(&scanner)?.string(interner: &decoder.interner), decoder.roles.contains(name) else {
                return false
            }
            role = name
        case .source:
            guard let text = try Self.text(&scanner) else { return false }
            source = text.string(interner: &decoder.interner)
        default:
            // Any other show field, read and checked as the general path does.
            let value: JSONValue
            var micros: Microseconds?
            switch reading {
            case .time: (value, micros) = try EventFields.timeValue(&scanner)
            case .repeatingString:
                value = try scanner.parsePlainString().map { .string(decoder.interner.string($0)) } ?? scanner.parseValue(depth: 1)
            case .value, .text: value = try scanner.parseValue(depth: 1)
            }
            if let checked = try decoder.checkedValue(of: field, kind: field.kind, value, microseconds: micros) {
                others.append((field, checked))
            }
        }
        return true
    }

    /// The string at the scanner; nil for any other value (not moving). (Inlined: the plain
    /// string, nearly every one, is then read in place; the rest is a call of its own.)
    @inline(__always)
    private static func text(_ scanner: inout JSONScanner) throws -> LineText? {
        if let bytes = scanner.parsePlainString() { return .bytes(bytes) }
        return try escapedText(&scanner)
    }

    /// A string with escapes (made into a `String`), or nil for any other value (not moving).
    @inline(never)
    private static func escapedText(_ scanner: inout JSONScanner) throws -> LineText? {
        guard scanner.current == UInt8(ascii: "\""), case .string(let string) = try scanner.parseValue(depth: 1) else { return nil }
        return .string(string)
    }
}

extension CommonShowMembers.LineText {
    var string: String {
        switch self {
        case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
        case .string(let string): string
        }
    }

    /// `string`, found in `interner` when it is one that repeats from line to line.
    func string(interner: inout StringInterner) -> String {
        switch self {
        case .bytes(let bytes): interner.string(bytes)
        case .string(let string): string
        }
    }

    /// The text as a show keeps it: bytes go into the batch's text.
    func toastText(in batch: ShowBatch) -> Toast.ToastText {
        switch self {
        case .bytes(let bytes): .stored(batch.text.append(UnsafeRawBufferPointer(bytes)))
        case .string(let string): .string(string)
        }
    }
}

