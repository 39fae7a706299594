/// A stage's key (a dedup identity, a debounce burst's fields, a rate-limit or digest group) as
/// a saved state shows it: readable where the key has one of the forms the stages build, so
/// that an operator who looks at a state with `sqlite3` reads what a screen holds, and a row
/// costs about the bytes of the text it keeps.
///
/// The forms, each a JSON value that gives back exactly the key's bytes:
/// - the values of fields (`Toast.appendFieldsIdentity`: `F`, then `|` and a part for each
///   field): an array, one item a field — a string, `null` for no value, or the value;
/// - a toast's own `key` (`K` and its text): `{"key": TEXT}`;
/// - one field's value (`Toast.appendKey`: a rate-limit or digest group): `{"value": VALUE}`,
///   `null` for no value;
/// - any other bytes (and the keys of states written before these forms): a string of
///   lowercase hexadecimal digits.
package enum SavedKey {
    private static let partHeader = 1 + MemoryLayout<UInt32>.size

    /// Writes `key` as its saved form: readable as the bytes are read, or, where they turn out
    /// to have no readable form, what was written taken back and the key written in hexadecimal.
    package static func write(_ key: UnsafeRawBufferPointer, to writer: inout JSONWriter) {
        let mark = writer.mark
        if writeReadable(key, to: &writer) { return }
        writer.rollBack(to: mark)
        writer.hexString(key)
    }

    /// Writes the readable form of `key`; false when it has none (the writer then holds a part).
    private static func writeReadable(_ key: UnsafeRawBufferPointer, to writer: inout JSONWriter) -> Bool {
        guard let first = key.first else { return false }
        switch first {
        case UInt8(ascii: "F"):
            writer.beginArray()
            var index = 1
            while index < key.count {
                guard key[index] == UInt8(ascii: "|"), let end = writePart(of: key, at: index + 1, to: &writer) else { return false }
                index = end
            }
            writer.endArray()
        case UInt8(ascii: "K"):
            let text = UnsafeRawBufferPointer(rebasing: key.dropFirst())
            guard isValidUTF8(text.assumingMemoryBound(to: UInt8.self)) else { return false }
            writer.beginObject()
            writer.key("key")
            writer.string(utf8: text)
            writer.endObject()
        default:
            writer.beginObject()
            writer.key("value")
            guard writePart(of: key, at: 0, to: &writer) == key.count else { return false }
            writer.endObject()
        }
        return true
    }

    /// The saved form as a value (the saved forms that are trees: a stage saved whole).
    package static func value(_ key: some Collection<UInt8>) -> JSONValue {
        var writer = JSONWriter()
        Array(key).withUnsafeBytes { write($0, to: &writer) }
        return writer.value ?? .null
    }

    /// The key's bytes from its saved form; throws `SavedStateError` naming `path`.
    package static func bytes(_ value: JSONValue, path: @autoclosure () -> String) throws -> [UInt8] {
        var key = ByteBuffer(capacity: 64)
        try append(value, path: path(), to: &key)
        return key.bytes
    }

    /// `bytes(_:path:)` appended to `key` (the path made only for a message).
    package static func append(_ value: JSONValue, path: @autoclosure () -> String, to key: inout ByteBuffer) throws {
        switch value {
        case .string:
            try hexBytes(value, path: path()).withUnsafeBytes { key.append($0) }
        case .array(let items):
            key.append(UInt8(ascii: "F"))
            for item in items {
                key.append(UInt8(ascii: "|"))
                append(item, to: &key)
            }
        case .object(let members) where members.count == 1 && members[0].name == "key":
            guard case .string(let text) = members[0].value else { throw SavedStateError("\(path()).key is not a string") }
            key.append(UInt8(ascii: "K"))
            key.appendUTF8(text)
        case .object(let members) where members.count == 1 && members[0].name == "value":
            append(members[0].value, to: &key)
        default:
            throw SavedStateError("\(path()) is not a saved key (an array of values, {\"key\": text}, {\"value\": value} or hexadecimal bytes)")
        }
    }

    // MARK: Parts

    /// Writes the part that starts at `start` (`s` a string, `-` none, `j` the JSON text of any
    /// other value) and returns where it ends; nil when there is none there, or it cannot be
    /// written as it is (text that is not UTF-8, JSON text other than ours).
    private static func writePart(of bytes: UnsafeRawBufferPointer, at start: Int, to writer: inout JSONWriter) -> Int? {
        guard start < bytes.count else { return nil }
        let tag = bytes[start]
        if tag == UInt8(ascii: "-") {
            writer.null()
            return start + 1
        }
        guard tag == UInt8(ascii: "s") || tag == UInt8(ascii: "j"), bytes.count - start >= partHeader else { return nil }
        var length = 0
        for offset in 1..<partHeader { length = length << 8 | Int(bytes[start + offset]) }
        let end = start + partHeader + length
        guard end <= bytes.count else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: bytes[(start + partHeader)..<end])
        if tag == UInt8(ascii: "s") {
            guard isValidUTF8(text.assumingMemoryBound(to: UInt8.self)) else { return nil }
            writer.string(utf8: text)
        } else {
            guard isCanonicalNonString(text) else { return nil }
            writer.json(text)
        }
        return end
    }

    /// Whether `text` is what `JSONText.appendValue` writes for a value that is neither a
    /// string nor null (the values a `j` part holds), so that reading it back gives the same bytes.
    private static func isCanonicalNonString(_ text: UnsafeRawBufferPointer) -> Bool {
        let bytes = Array(text)
        guard isValidUTF8(text.assumingMemoryBound(to: UInt8.self)), let value = try? JSONScanner.value(of: bytes) else { return false }
        switch value {
        case .string, .null: return false
        default:
            var again: [UInt8] = []
            JSONText.appendValue(value, to: &again)
            return again == bytes
        }
    }

    /// A value as the part `Toast.appendKey` makes of it.
    private static func append(_ value: JSONValue, to key: inout ByteBuffer) {
        switch value {
        case .null: key.append(UInt8(ascii: "-"))
        case .string(let text): key.appendKeyPart(UInt8(ascii: "s"), text)
        default:
            var json: [UInt8] = []
            JSONText.appendValue(value, to: &json)
            json.withUnsafeBytes { key.appendKeyPart(UInt8(ascii: "j"), $0) }
        }
    }

    // MARK: Hexadecimal

    /// The bytes of a string of hexadecimal digits.
    private static func hexBytes(_ value: JSONValue, path: String) throws -> [UInt8] {
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
