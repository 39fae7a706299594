/// Strict JSON text (RFC 8259) written into byte buffers: strings escaped as little as
/// JSON allows, so non-ASCII text and `/` stay as they are.
///
/// Inlinable across modules (docs/performance.md, "Across modules"): the encoders in ToastIO write
/// every string of every record with it.
@usableFromInline package enum JSONText {
    @usableFromInline static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string, quotes included.
    @inlinable package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a quoted JSON string.
    @inlinable package static func appendString<Out: ByteOutput & ~Copyable>(_ text: String, to out: inout Out) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends what goes between the quotes of `text` as a JSON string.
    @inlinable package static func appendEscaped<Out: ByteOutput & ~Copyable>(_ text: String, to out: inout Out) {
        text.withUTF8Bytes { appendEscaped($0, to: &out) }
    }

    /// Appends any JSON value; object members keep their order.
    @inlinable package static func appendValue<Out: ByteOutput & ~Copyable>(_ value: JSONValue, to out: inout Out) {
        switch value {
        case .null: out.appendLiteral("null")
        case .bool(let flag): out.appendLiteral(flag ? "true" : "false")
        case .integer(let number):
            if number < 0 { out.append(UInt8(ascii: "-")) }
            StreamTime.appendDecimal(number.magnitude, to: &out)
        case .number(let number): appendDouble(number, to: &out)
        case .string(let text): appendString(text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendValue(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            appendObject(members, to: &out)
        }
    }

    @inlinable package static func appendObject<Out: ByteOutput & ~Copyable>(_ members: [JSONMember], to out: inout Out) {
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(member.name, to: &out)
            out.append(UInt8(ascii: ":"))
            appendValue(member.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The shortest text that reads back as `number`; integral values print without `.0`.
    /// Not-finite numbers cannot be JSON and print as `null`.
    @inlinable package static func appendDouble<Out: ByteOutput & ~Copyable>(_ number: Double, to out: inout Out) {
        guard number.isFinite else {
            out.appendLiteral("null")
            return
        }
        if number.rounded() == number && abs(number) < 1e15 {
            let integer = Int64(number)
            if integer < 0 || (integer == 0 && number.sign == .minus) { out.append(UInt8(ascii: "-")) }
            StreamTime.appendDecimal(integer.magnitude, to: &out)
            return
        }
        out.appendUTF8(number.description)
    }

    /// A value as JSON text.
    @inlinable package static func encode(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        appendValue(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
