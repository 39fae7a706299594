import ToastCore

/// Turns input lines into events: JSON Lines (docs/events.md) or plain text (`--input text`).
///
/// It checks every field a type owns, fills in defaults, and numbers the shows without an
/// `id` (`t<N>`, counting rejected shows too). One decoder reads one stream.
///
/// It works on a line's bytes as the reader lends them (docs/performance.md, "Decoding").
/// Safe to use: a line is read only during the call it is passed to, through a `JSONScanner`
/// that checks every index against the line's count; what an event keeps of the line (text,
/// extra fields) is copied into the batch's text or a `String` before the call returns.
package struct EventDecoder {
    /// Roles a show may name: the built-in ones and those the scripts defined.
    package var roles: RoleTable
    /// `queue.policy`, for shows that set none.
    package var defaultPolicy: Policy
    /// `queue.duration`, for shows that set none (nil: no timeout).
    package var defaultDuration: Microseconds?
    /// `screens.by` when screens are on: the field whose value names an event's screen.
    package var screenField: String? {
        didSet { screenShowField = screenField.flatMap(ToastField.init(named:)) }
    }
    /// `screenField` when it is a show field.
    var screenShowField: ToastField?
    /// The value of the line's extra member `screenField`, when it has one (a show field's
    /// value is among its fields).
    private var lineScreenValue: JSONValue?
    /// Lines so far that were JSON objects of type `show`, rejected ones included.
    package var showCount = 0
    /// Warnings since the last `takeNotes()`: show fields whose name looks like a typo.
    private var notes: [String] = []
    /// Extra field names already looked at for typos (each is warned about once at most). A
    /// short list, not a set: a stream has few extra names, and hashing one on every line cost
    /// more than comparing a few small strings.
    var namesChecked: [String] = []
    /// Fields logs commonly carry whose names happen to be near a show field's (`pid` is one
    /// edit from `id`): the fields `--input syslog` gives, which a log's JSON twin has too.
    /// They are taken as meant, never asked about.
    static let commonLogFields = ["pid", "tid", "uid", "gid", "host", "msgid"]
    /// The text of the line's extra fields as one JSON object, for the toast to keep: a buffer
    /// reused from line to line (an array's `removeAll` and `append` go through generic
    /// code). A decoder's copies share it, which is harmless:
    /// it is filled and read within one decode.
    let extraText = ExtraTextBuffer()

    /// The extra members' text of the line being decoded, one JSON object built member by
    /// member (both decode paths build it the same way).
    final class ExtraTextBuffer {
        private var bytes = ByteBuffer(capacity: 512)

        var isEmpty: Bool { bytes.isEmpty }

        /// Starts over, for the next line.
        func removeAll() { bytes.removeAll() }

        /// Appends a member as the line wrote it (`"name":value`), after `{` or `,`.
        func appendMember(_ text: UnsafeRawBufferPointer) {
            let separator = bytes.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ",")
            bytes.append(separator)
            bytes.append(text)
        }

        /// Appends a member whose name and string value are written escaped, as a record
        /// writes them (a native format's fields); `value` nil writes `true`.
        func appendMember(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) {
            bytes.append(bytes.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
            bytes.append(UInt8(ascii: "\""))
            JSONText.appendEscaped(name, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
            if let value {
                bytes.append(UInt8(ascii: "\""))
                JSONText.appendEscaped(value, to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            } else {
                bytes.appendLiteral("true")
            }
        }

        /// Ends the object, if it has any member.
        func close() {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: "}")) }
        }

        func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            bytes.withBytes(body)
        }
    }
    /// The values that repeat from line to line, made into `String`s once.
    var interner = StringInterner()
    static let maximumNamesChecked = 32
    /// Whether show lines of the common shape take the one-pass path (`decodeCommonShow`);
    /// tests turn it off to hold the two paths to the same results.
    package var takesCommonShows = true
    /// Whether a text line's level, and a JSON show's `level`, `severity` or `PRIORITY`, give
    /// the toast its role (`--levels off` turns it off; docs/events.md, "Levels").
    package var readsLevels = true

    package init(roles: RoleTable = .builtIn, defaultPolicy: Policy = .enqueue,
                defaultDuration: Microseconds? = 3 * StreamTime.perSecond) {
        self.roles = roles
        self.defaultPolicy = defaultPolicy
        self.defaultDuration = defaultDuration
    }

    /// Whether a line holds nothing but spaces, tabs and `\r` (docs/events.md).
    package static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// The line without a leading UTF-8 byte order mark (`EF BB BF`), which editors on some
    /// systems put at the start of a file.
    package static func droppingByteOrderMark(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF else { return line }
        return UnsafeBufferPointer(rebasing: line[3...])
    }

    /// A plain-text line as a show whose message is the line, less a trailing `\r`.
    package mutating func decodeText(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> Result<Event, InputRejection> {
        decodeText(line, number: number, batch: ShowBatch(capacity: line.count)).map(\.event)
    }

    /// A plain-text line as a show kept in `batch` (see `decodeJSON`); a level it names gives
    /// the toast its field `level` and its role (`TextLevel`). `continuation`: the lines that
    /// continue it (`--multiline`), each after a `\n`, which join its message.
    package mutating func decodeText(_ line: UnsafeBufferPointer<UInt8>, number: Int, batch: ShowBatch,
                                     continuation: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0))
        -> Result<DecodedEvent, InputRejection> {
        guard isValidUTF8(line) else { return .failure(InputRejection(line: number, reason: "not valid UTF-8")) }
        showCount += 1
        var end = line.count
        if end > 0 && line[end - 1] == 0x0D { end -= 1 }
        var start = 0
        var level: LogLevel?
        if readsLevels, let found = TextLevel.read(UnsafeBufferPointer(rebasing: line[0..<end])) {
            level = found.level
            // A line that is nothing but its `<PRI>` keeps it as its message.
            if found.prefixLength < end { start = found.prefixLength }
        }
        let text = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[start..<end])
        let message = continuation.isEmpty ? batch.text.append(text) : batch.text.append(text, then: continuation)
        let fields = Toast.showFields(id: Self.implicitID(showCount), message: .stored(message), role: level?.role,
                                      extra: .members(level?.field ?? []),
                                      duration: defaultDuration, policy: defaultPolicy, inputLine: number)
        return .success(.show(DecodedShow(fields: fields, batch: batch, at: nil, line: number)))
    }

    /// One JSON Lines line as an event.
    package mutating func decodeJSON(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> Result<Event, InputRejection> {
        decodeJSON(line, number: number, batch: ShowBatch(capacity: line.count)).map(\.event)
    }

    /// One JSON Lines line: an event, or a show whose fields and text went to `batch` and whose
    /// toast is made later (`DecodedShow`), on the thread that handles it.
    package mutating func decodeJSON(_ line: UnsafeBufferPointer<UInt8>, number: Int,
                             batch: ShowBatch) -> Result<DecodedEvent, InputRejection> {
        guard isValidUTF8(line) else { return .failure(InputRejection(line: number, reason: "not valid UTF-8")) }
        if takesCommonShows, let show = decodeCommonShow(line, number: number, batch: batch) { return .success(.show(show)) }
        var scanner = JSONScanner(line)
        let fields: EventFields
        do {
            scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: "{") else {
                _ = try scanner.parseValue()
                try Self.expectEnd(&scanner)
                return .failure(InputRejection(line: number, reason: "not a JSON object"))
            }
            extraText.removeAll()
            lineScreenValue = nil
            fields = try EventFields.read(from: &scanner, extraText: extraText, interner: &interner, namesChecked: namesChecked,
                                          screenField: screenField, screenValue: &lineScreenValue)
            try Self.expectEnd(&scanner)
            if let column = scanner.outOfRangeColumn {
                if Self.isShow(fields[.type]) { showCount += 1 }
                return .failure(InputRejection(line: number, reason: "number out of range at column \(column)"))
            }
        } catch let error as JSONSyntaxError {
            return .failure(InputRejection(line: number, reason: error.message))
        } catch {
            return .failure(InputRejection(line: number, reason: "\(error)"))
        }
        guard Self.isShow(fields[.type]) else { return decode(fields, number: number, stored: nil) }
        var text = StoredText()
        text.message = fields.messageBytes.map { batch.text.append(UnsafeRawBufferPointer($0)) }
        text.subtitle = fields.subtitleBytes.map { batch.text.append(UnsafeRawBufferPointer($0)) }
        if !extraText.isEmpty { text.extra = extraText.withBytes { batch.text.append($0) } }
        return decode(fields, number: number, stored: (batch, text))
    }

    /// An event from fields that a `parse` function made: checked, defaulted and numbered
    /// exactly like a JSON line with those members.
    package mutating func decode(_ fields: EventFields, number: Int) -> Result<Event, InputRejection> {
        lineScreenValue = nil
        return decode(fields, number: number, stored: nil).map(\.event)
    }

    /// Where a JSON line's text went in its batch: the message and subtitle when they are
    /// strings without escapes, the extra fields as one JSON object.
    struct StoredText {
        var message, subtitle, extra: TextRange?
    }

    private mutating func decode(_ fields: EventFields, number: Int,
                                 stored: (batch: ShowBatch, text: StoredText)?) -> Result<DecodedEvent, InputRejection> {
        if !fields.extraNames.isEmpty && Self.isShow(fields[.type]) {
            lookForTypos(in: fields.extraNames, line: number)
        }
        do {
            return .success(try event(from: fields, line: number, stored: stored))
        } catch let error as FieldError {
            return .failure(InputRejection(line: number, reason: error.message))
        } catch {
            return .failure(InputRejection(line: number, reason: "\(error)"))
        }
    }

    /// Whether a `type` member makes the event a show (absent and `null` do).
    private static func isShow(_ type: JSONValue?) -> Bool {
        switch type {
        case nil, .null?: return true
        case .string(let name)?: return name == "show"
        default: return false
        }
    }

    /// The warnings gathered since the last call, oldest first.
    package mutating func takeNotes() -> [String] {
        guard !notes.isEmpty else { return [] }
        defer { notes = [] }
        return notes
    }

    /// Adds a warning for the run to give (see `takeNotes`).
    package mutating func note(_ text: String) {
        notes.append(text)
    }

    /// Takes `names` as meant: they are never asked about as typos (the fields a journal
    /// entry's line has besides a show's own).
    package mutating func takesAsMeant(_ names: [String]) {
        namesChecked += names.filter { !namesChecked.contains($0) }
    }

    /// Unknown fields are extras, not errors; one close to a show field's name is most likely
    /// a typo, so it gets one warning (the first time the name is seen).
    private mutating func lookForTypos(in names: [String], line: Int) {
        for name in names where !namesChecked.contains(name) && namesChecked.count < Self.maximumNamesChecked {
            namesChecked.append(name)
            guard !Self.commonLogFields.contains(name), let question = NameSuggestion.question(for: name, among: EventFieldName.showFieldNames) else { continue }
            notes.append("input line \(line): unknown field \(quoted(name)); \(question) (kept as an extra field)")
        }
    }

    private static func expectEnd(_ scanner: inout JSONScanner) throws {
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.unexpected(expecting: "the end of the line") }
    }

    private mutating func event(from fields: EventFields, line: Int,
                                stored: (batch: ShowBatch, text: StoredText)?) throws -> DecodedEvent {
        let type = try EventFields.string("type", fields[.type]) ?? "show"
        if type == "show" { showCount += 1 }
        let at = try EventFields.time("at", fields[.at], fields.microseconds(of: .at))
        let id = try EventFields.string("id", fields[.id])
        let screen: ScreenKey? = try screenField.flatMap { try self.screen(named: $0, in: fields) }
        let kind: Event.Kind
        switch type {
        case "show":
            // Named by an extra field, the screen holds for as long as the extra fields stay
            // the bytes read here: the pipeline then need not look for the field again.
            let show = try showFields(from: fields, id: id, line: line, text: stored?.text,
                                      screen: screenShowField == nil ? screen : nil)
            if let batch = stored?.batch { return .show(DecodedShow(fields: show, batch: batch, at: at, line: line)) }
            kind = .show(Toast(fields: show))
        case "dismiss": kind = .dismiss(target: id)
        case "dismiss_all": kind = .dismissAll
        case "tap": kind = .tap(target: id)
        case "long_press": kind = .longPress(target: id)
        case "swipe": kind = .swipe(target: id)
        case "tick": kind = .tick
        case "drag":
            guard let phaseName = try EventFields.string("phase", fields[.phase]) else {
                throw FieldError("drag needs a 'phase' (begin or end)")
            }
            guard let phase = DragPhase(rawValue: phaseName) else {
                throw FieldError("unknown drag phase \(quoted(phaseName)) (begin or end)")
            }
            let dy = try EventFields.number("dy", fields[.dy]) ?? 0
            kind = .drag(target: id, phase: phase, dy: dy)
        default:
            throw FieldError("unknown type \(quoted(type)) (show, dismiss, dismiss_all, tap, long_press, swipe, drag, tick)")
        }
        var event = Event(kind, at: at, line: line)
        event.screen = screen
        return .event(event)
    }

    /// The screen an event names with its field `field` (absent or null: `""`); nil for a
    /// `tick` or `dismiss_all` without the field, which name every screen.
    private func screen(named field: String, in fields: EventFields) throws -> ScreenKey? {
        let value: JSONValue?
        let type = fields[.type]?.stringValue ?? "show"
        if let known = screenShowField {
            value = fields[known]
        } else {
            value = lineScreenValue ?? fields.extra.last { $0.name == field }?.value
        }
        if value == nil && (type == "tick" || type == "dismiss_all") { return nil }
        guard let screen = ScreenKey(naming: value) else { throw FieldError(ScreenKey.problem(field: field)) }
        return screen
    }

    /// A show's fields after defaults; `text` says where the message, subtitle and extra
    /// fields of a JSON line are kept (in the batch's text), when they are.
    private func showFields(from fields: EventFields, id: String?, line: Int, text: StoredText?,
                            screen: ScreenKey?) throws -> Toast.Fields {
        let message: Toast.ToastText
        if let stored = text?.message {
            guard stored.count > 0 else { throw FieldError("field 'message' must not be empty") }
            message = .stored(stored)
        } else {
            guard let string = try EventFields.string("message", fields[.message]) else { throw FieldError("missing message") }
            guard !string.isEmpty else { throw FieldError("field 'message' must not be empty") }
            message = .string(string)
        }
        let subtitle = try text?.subtitle.map(Toast.ToastText.stored)
            ?? EventFields.string("subtitle", fields[.subtitle]).map(Toast.ToastText.string)
        var others: [(field: ToastField, value: Toast.FieldValue)] = []
        for (field, kind) in EventFieldName.checkedShowFields {
            guard let value = fields[field] else { continue }
            if let checked = try checkedValue(of: field, kind: kind, value, microseconds: fields.microseconds(of: field)) {
                others.append((field, checked))
            }
        }
        if readsLevels && (fields[.role] ?? .null) == .null, let level = fields.levelHints.level(orIn: fields.extra) {
            others.append((.role, .text(level.role)))
        }
        return Toast.showFields(id: id ?? Self.implicitID(showCount), message: message, subtitle: subtitle,
                                extra: text?.extra.map(Toast.ExtraFields.stored) ?? .members(fields.extra), others: others,
                                screenKey: screen, duration: defaultDuration, policy: defaultPolicy, inputLine: line)
    }

    /// A show field's value from an input line, checked by the field's kind; nil leaves the
    /// default (null is absent, docs/events.md).
    func checkedValue(of field: ToastField, kind: ToastField.Kind, _ value: JSONValue,
                      microseconds: Microseconds?) throws -> Toast.FieldValue? {
        var name: String { field.name }
        switch kind {
        case .eventType, .arrivalTime, .identifier, .message:
            return nil
        case .optionalText, .subtitle:
            return try EventFields.string(name, value).map(Toast.FieldValue.text) ?? .absent
        case .role:
            guard let role = try EventFields.string(name, value) else { return nil }
            guard roles.contains(role) else {
                throw FieldError("unknown role \(quoted(role))" + NameSuggestion.hint(for: role, among: roles.names))
            }
            return .text(role)
        case .duration:
            return try Self.duration(value, micros: microseconds).map(Toast.FieldValue.time) ?? .absent
        case .delay:
            guard let after = try EventFields.time(name, value, microseconds) else { return nil }
            guard after >= 0 else { throw FieldError("field '\(name)' must not be negative") }
            return .time(after)
        case .choice:
            let names = field.choices
            guard let choice = try EventFields.string(name, value) else { return nil }
            guard names.contains(choice) else {
                throw FieldError("unknown \(name) \(quoted(choice)) (\(names.joined(separator: ", ")))")
            }
            return .text(choice)
        case .priority:
            return try EventFields.integer(name, value).map(Toast.FieldValue.integer) ?? .absent
        case .flag:
            return try EventFields.bool(name, value).map(Toast.FieldValue.flag)
        }
    }

    /// `t<N>`, the id of the `count`th show without one, its digits written straight into the
    /// new string: `String(count)` goes through a generic `description`, and decoding a
    /// scratch buffer validated it as any text.
    static func implicitID(_ count: Int) -> String {
        var rest = UInt64(count.magnitude)
        var digits = 1
        var probe = rest
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        return String(unsafeUninitializedCapacity: digits + 1) { buffer in
            buffer[0] = UInt8(ascii: "t")
            var index = digits
            repeat {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                index -= 1
            } while index > 0
            return digits + 1
        }
    }

    /// `duration`: seconds > 0, `"short"`, `"long"`; `null` or `0`: no timeout.
    static func duration(_ value: JSONValue, micros: Microseconds?) throws -> Microseconds? {
        switch value {
        case .null: return nil
        case .string(let word) where NamedDuration(rawValue: word) != nil: return NamedDuration(rawValue: word)?.microseconds
        case .integer, .number:
            guard let micros else { throw FieldError("field 'duration' is out of range") }
            guard micros >= 0 else { throw FieldError("field 'duration' must not be negative") }
            return micros == 0 ? nil : micros
        default:
            throw FieldError("field 'duration' must be a number of seconds, \"short\" or \"long\"")
        }
    }
}

/// What a line decodes to: an event, or a show whose toast is still to be made.
package enum DecodedEvent {
    case event(Event)
    case show(DecodedShow)

    /// The event, with the show's toast made now.
    var event: Event {
        switch self {
        case .event(let event): return event
        case .show(let show): return show.makeEvent()
        }
    }
}

/// A field with a value of the wrong type or out of range.
struct FieldError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
