/// A toast's text as bytes: its message, subtitle and extra fields lent where they are stored
/// (no `String` made), the key bytes dedup and the rate limit build from its fields, and an
/// extra field found in the stored JSON text without decoding the others.
///
/// Safe to use: bytes are lent only for the call of `body` (which must not keep the pointer)
/// from storage the toast holds for that long, and every read of stored JSON text goes through
/// a `JSONScanner`, which checks each index against the text's count.
extension Toast {
    /// `body` with the extra fields as the text of a JSON object (as it came in), when the
    /// toast keeps them as text; nil when they are members.
    @inlinable package func withExtraText<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let range = storage.fields.extra.storedRange else { return nil }
        return storage.withBytes(range, body)
    }

    /// Appends a field's value as key bytes: `-` for no value, `s` and the string's bytes, or
    /// `j` and the JSON text for anything else, each after its length in four bytes, so
    /// distinct values never share bytes. The common string fields go in without building a
    /// `JSONValue`.
    package func appendKey(of field: FieldReference, roles: RoleTable, to key: inout ByteBuffer) {
        switch field {
        case .field(.message): withBytes(of: storage.fields.message) { key.appendKeyPart(UInt8(ascii: "s"), $0) }
        case .field(.role): key.appendKeyPart(UInt8(ascii: "s"), role)
        case .field(.subtitle):
            if let subtitle = storage.fields.subtitle {
                withBytes(of: subtitle) { key.appendKeyPart(UInt8(ascii: "s"), $0) }
            } else {
                key.append(UInt8(ascii: "-"))
            }
        case .field(.source): if let source { key.appendKeyPart(UInt8(ascii: "s"), source) } else { key.append(UInt8(ascii: "-")) }
        default:
            switch value(of: field, roles: roles) {
            case nil, .null?: key.append(UInt8(ascii: "-"))
            case .string(let text)?: key.appendKeyPart(UInt8(ascii: "s"), text)
            case let other?:
                var json: [UInt8] = []
                JSONText.appendValue(other, to: &json)
                json.withUnsafeBytes { key.appendKeyPart(UInt8(ascii: "j"), $0) }
            }
        }
    }

    /// The value of one field's key bytes (`appendKey`) as a summary or digest names it
    /// (`JSONValue.groupLabel`): nil for no value, a string as it is, anything else as its
    /// JSON text. A group keeps only its key; its name is read back from it when needed.
    package static func groupLabel(ofKey key: UnsafeRawBufferPointer) -> String? {
        let header = 1 + MemoryLayout<UInt32>.size  // the kind's byte and the length
        guard key.count >= header, key[0] == UInt8(ascii: "s") || key[0] == UInt8(ascii: "j") else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: key[header...]), as: UTF8.self)
    }

    /// The extra field `name`, if the toast has it.
    public func extraValue(_ name: String) -> JSONValue? {
        var name = name
        return name.withUTF8 { name in
            withExtraValue(named: UnsafeRawBufferPointer(name)) { view in
                switch view {
                case .text(let text): return JSONValue.string(String(decoding: text, as: UTF8.self))
                case .value(let value): return value
                }
            }
        }
    }

    /// An extra field's value as `withExtraValue` lends it: the bytes of a string that came in
    /// without escapes (no `String` made), or the value.
    package enum ExtraValueView {
        case text(UnsafeRawBufferPointer)
        case value(JSONValue)
    }

    /// `body` with the extra field whose name has the UTF-8 bytes `name`; nil without one.
    /// Stored extra fields are looked through without making the others (the last of
    /// duplicates counts, as in a decoded object).
    package func withExtraValue<Result>(named name: UnsafeRawBufferPointer, _ body: (ExtraValueView) -> Result) -> Result? {
        switch storage.fields.extra {
        case .members(let members):
            guard let member = members.first(where: { $0.name.utf8.elementsEqual(name) }) else { return nil }
            return body(.value(member.value))
        case .stored(let range), .canonical(let range):
            return storage.withBytes(range) { text in
                var scanner = JSONScanner(text.assumingMemoryBound(to: UInt8.self))
                guard let start = Self.lastValueStart(named: name, scanner: &scanner) else { return nil }
                scanner.index = start
                if let plain = scanner.parsePlainString() { return body(.text(UnsafeRawBufferPointer(plain))) }
                guard let value = try? scanner.parseValue(depth: 0) else { return nil }
                return body(.value(value))
            }
        }
    }

    /// Whether the extra fields are the same here and in `other` (a trace's changed fields):
    /// two stored texts with the same bytes are, with no members made of them.
    func hasSameExtra(as other: Toast) -> Bool {
        if let mine = storage.fields.extra.storedRange, let theirs = other.storage.fields.extra.storedRange {
            let sameBytes = storage.withBytes(mine) { mine in other.storage.withBytes(theirs) { mine.hasSameBytes(as: $0) } }
            if sameBytes { return true }
        }
        return extra == other.extra
    }

    /// Where the value of the last member `name` starts in a JSON object's text that the
    /// decoder checked.
    private static func lastValueStart(named name: UnsafeRawBufferPointer, scanner: inout JSONScanner) -> Int? {
        var found: Int?
        do {
            try scanner.expect(UInt8(ascii: "{"), "'{'")
            repeat {
                scanner.skipWhitespace()
                let member = try scanner.parseName()
                try scanner.expect(UInt8(ascii: ":"), "':'")
                let matches = member.raw.map { UnsafeRawBufferPointer($0).hasSameBytes(as: name) }
                    ?? member.decoded.map { $0.utf8.elementsEqual(name) } ?? false
                if matches { found = scanner.index }
                try scanner.skipValue()
            } while try scanner.endOfMember(closing: UInt8(ascii: "}"))
        } catch {
            return nil
        }
        return found
    }

    // MARK: Text as bytes

    /// The message's UTF-8 bytes, for the duration of `body`: read where they are, with no
    /// `String` made.
    @inlinable package func withMessageBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withBytes(of: storage.fields.message, body)
    }

    /// Whether the message is not empty, asked without making a `String` of it.
    package var hasMessage: Bool { withMessageBytes { !$0.isEmpty } }

    /// The subtitle's UTF-8 bytes, for the duration of `body`; nil without a subtitle.
    @inlinable package func withSubtitleBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        guard let subtitle = storage.fields.subtitle else { return nil }
        return try withBytes(of: subtitle, body)
    }

    /// What the `announce` stage set (nil: nothing), for an encoder that writes the standard
    /// announcement from the message and subtitle it has written already.
    package var announcementForm: Announcement? { storage.fields.announcement }

    /// `label: message, subtitle`, with no `label: ` for an empty label and no `, subtitle` for
    /// none or an empty one.
    func standardAnnouncement(label: String) -> String {
        var bytes: [UInt8] = []
        forEachStandardAnnouncementPart(label: label) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Hands `body` the parts of the standard announcement in order, as bytes.
    private func forEachStandardAnnouncementPart(label: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        if !label.isEmpty {
            withBytes(of: .string(label), body)
            withBytes(of: .string(": "), body)
        }
        withMessageBytes(body)
        withSubtitleBytes { subtitle in
            guard !subtitle.isEmpty else { return }
            withBytes(of: .string(", "), body)
            body(subtitle)
        }
    }

    /// Whether the two messages are equal as Swift strings are (canonically equivalent), found
    /// from the bytes without making strings when they are the same bytes, or different texts
    /// that are each their own normal form (plain ASCII, most Latin, CJK and emoji text).
    func hasEqualMessage(to other: Toast) -> Bool {
        let bytesDecide: Bool? = withMessageBytes { mine in
            other.withMessageBytes { theirs in
                if mine.hasSameBytes(as: theirs) { return true }
                if mine.isASCII && theirs.isASCII { return false }
                return mine.isOwnNormalForm && theirs.isOwnNormalForm ? false : nil
            }
        }
        return bytesDecide ?? (message == other.message)
    }

    @inlinable func withBytes<Result>(of text: ToastText, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch text {
        case .string(var string): return try string.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case .stored(let range): return try storage.withBytes(range, body)
        }
    }

    @usableFromInline func string(_ text: ToastText) -> String {
        switch text {
        case .string(let string): return string
        case .stored(let range): return storage.withBytes(range) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The members of a JSON object's text that the decoder checked (so it reads).
    static func members(ofObjectText text: UnsafeRawBufferPointer) -> [JSONMember] {
        var scanner = JSONScanner(text.assumingMemoryBound(to: UInt8.self))
        return (try? scanner.parseObject(depth: 0)) ?? []
    }
}
