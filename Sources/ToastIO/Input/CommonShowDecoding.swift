@_spi(ToastInternals) import ToastCore

extension EventDecoder {
    /// A show line in the shape nearly every line of a real stream has, decoded in one pass
    /// straight into the toast's fields; nil, having changed nothing, for any other line, which
    /// the general path (`EventFields`) then decodes.
    ///
    /// The shape: a JSON object whose member names have no escapes; `type` (`"show"`), `at` (a
    /// number), `id`, `message` (not empty), `subtitle`, `role` (a known one) and `source` each
    /// at most once and as a string without escapes (`at` a number); any member that is not a
    /// show field under a name already looked at for typos; screens off. Every value is checked
    /// as the general path checks it, so a line taken here gives the same show, with the same
    /// number, as there; anything unusual (an escape, a `null`, another show field, a
    /// duplicate, an error) is left to the general path, which also words its errors.
    ///
    /// Why a second path: the general one keeps each member as a `JSONValue` and checks the
    /// fields in a second pass, which cost more than half of what the reading thread spends on a
    /// line (docs/performance.md, "The reading thread").
    mutating func decodeCommonShow(_ line: UnsafeBufferPointer<UInt8>, number: Int, batch: ShowBatch) -> DecodedShow? {
        guard screenField == nil else { return nil }
        var scanner = JSONScanner(line)
        var common = CommonShowMembers()
        extraText.removeAll(keepingCapacity: true)
        do {
            scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: "{") else { return nil }
            scanner.index += 1
            repeat {
                scanner.skipWhitespace()
                let memberStart = scanner.index
                guard let name = scanner.parsePlainString() else { return nil }
                try scanner.expect(UInt8(ascii: ":"), "':'")
                if let known = EventFieldName.find(name)?.name {
                    guard case .show(let field) = known, try common.read(field, from: &scanner, decoder: &self) else { return nil }
                } else {
                    guard namesChecked.contains(interner.string(name)) else { return nil }
                    try scanner.checkValue(depth: 1)
                    extraText.append(extraText.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
                    extraText.append(contentsOf: UnsafeBufferPointer(rebasing: scanner.bytes[memberStart..<scanner.index]))
                }
            } while try scanner.endOfMember(closing: UInt8(ascii: "}"))
            scanner.skipWhitespace()
            guard scanner.isAtEnd, scanner.outOfRangeColumn == nil else { return nil }
        } catch {
            return nil
        }
        guard let message = common.message else { return nil }
        if !extraText.isEmpty { extraText.append(UInt8(ascii: "}")) }

        showCount += 1
        let messageText = batch.text.append(UnsafeRawBufferPointer(message))
        let subtitleText = common.subtitle.map { batch.text.append(UnsafeRawBufferPointer($0)) }
        let extraText = extraText.isEmpty ? nil : extraText.withUnsafeBytes { batch.text.append($0) }
        let fields = Toast.showFields(id: common.id ?? Self.implicitID(showCount), message: .stored(messageText),
                                      subtitle: subtitleText.map(Toast.ToastText.stored), role: common.role,
                                      source: common.source, extra: extraText.map(Toast.ExtraFields.stored) ?? .members([]),
                                      duration: defaultDuration, policy: defaultPolicy, inputLine: number)
        return DecodedShow(fields: fields, batch: batch, at: common.at, line: number)
    }
}

/// The show fields a common show line may set (`EventDecoder.decodeCommonShow`), as read.
private struct CommonShowMembers {
    var at: Microseconds?
    var id, role, source: String?
    /// The text's bytes in the line.
    var message, subtitle: UnsafeBufferPointer<UInt8>?
    /// The fields read so far, one bit each (by `ToastField.rawValue`): a second one sends the
    /// line to the general path.
    private var seen: UInt64 = 0

    /// Reads the value of `field` when it is one a common line sets, in the form it has there;
    /// false for anything else.
    mutating func read(_ field: ToastField, from scanner: inout JSONScanner, decoder: inout EventDecoder) throws -> Bool {
        let bit: UInt64 = 1 << UInt64(field.rawValue & 63)
        guard seen & bit == 0 else { return false }
        seen |= bit
        switch field {
        case .at:
            scanner.skipWhitespace()
            guard let byte = scanner.current, byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")),
                  let micros = try scanner.parseNumber().microseconds else { return false }
            at = micros
            return true
        case .type:
            guard let type = scanner.parsePlainString() else { return false }
            return type.count == 4 && type[0] == UInt8(ascii: "s") && type[1] == UInt8(ascii: "h")
                && type[2] == UInt8(ascii: "o") && type[3] == UInt8(ascii: "w")
        case .id:
            guard let bytes = scanner.parsePlainString() else { return false }
            id = String(decoding: bytes, as: UTF8.self)
        case .message:
            guard let bytes = scanner.parsePlainString(), bytes.count > 0 else { return false }
            message = bytes
        case .subtitle:
            guard let bytes = scanner.parsePlainString() else { return false }
            subtitle = bytes
        case .role:
            guard let bytes = scanner.parsePlainString() else { return false }
            let name = decoder.interner.string(bytes)
            guard decoder.roles.contains(name) else { return false }
            role = name
        case .source:
            guard let bytes = scanner.parsePlainString() else { return false }
            source = decoder.interner.string(bytes)
        default:
            return false
        }
        return true
    }
}
