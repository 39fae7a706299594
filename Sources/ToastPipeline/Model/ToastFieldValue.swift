/// A toast's fields read, compared and written by name, through `ToastField`: the one place
/// that maps each field to its property. Dedup keys, templates, traces and the Lua bridge read
/// with `withValue`; a trace compares with `hasSameValue`; the decoder and a script's table
/// set fields through `set`.
extension Toast {
    /// A field's value as it is, borrowed: text as its UTF-8 bytes (valid only inside the
    /// closure that gets it), times in microseconds.
    enum FieldView {
        case absent
        case text(UnsafeRawBufferPointer)
        case time(Microseconds)
        case integer(Int)
        case flag(Bool)
    }

    /// A field's value to set.
    enum FieldValue: Equatable {
        case absent
        case text(String)
        case time(Microseconds)
        case integer(Int)
        case flag(Bool)
    }

    /// Calls `body` with the value of `field` as the toast holds it: `priority` is absent when
    /// the toast takes its role's (`effectivePriority(in:)` says which that is), `duration`
    /// when there is no timeout.
    func withValue<Result>(of field: ToastField, _ body: (FieldView) -> Result) -> Result {
        func text(_ string: String) -> Result {
            string.withUTF8Bytes { body(.text($0)) }
        }
        func text(_ string: String?) -> Result {
            guard let string else { return body(.absent) }
            return text(string)
        }
        switch field {
        case .type: return text("show")
        case .at: return body(.time(atMicros))
        case .id: return text(id)
        case .message: return withMessageBytes { body(.text($0)) }
        case .subtitle: return withSubtitleBytes { body(.text($0)) } ?? body(.absent)
        case .role: return text(role)
        case .duration: return body(durationMicros.map(FieldView.time) ?? .absent)
        case .after: return body(.time(afterMicros))
        case .placement: return text(placement.rawValue)
        case .policy: return text(policy.rawValue)
        case .priority: return body(priority.map(FieldView.integer) ?? .absent)
        case .source: return text(source)
        case .key: return text(key)
        case .dismissOnTap: return body(.flag(dismissOnTap))
        case .dismissOnLongPress: return body(.flag(dismissOnLongPress))
        case .swipe: return body(.flag(swipe))
        }
    }

    /// The value of `field` as an owned value (see `withValue`).
    func value(of field: ToastField) -> FieldValue {
        withValue(of: field) { view in
            switch view {
            case .absent: .absent
            case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
            case .time(let time): .time(time)
            case .integer(let integer): .integer(integer)
            case .flag(let flag): .flag(flag)
            }
        }
    }

    /// Whether `field` holds the same value here and in `other` (a trace's changed fields):
    /// the properties compared directly, with no view or `String` made for a stored text.
    func hasSameValue(of field: ToastField, as other: Toast) -> Bool {
        switch field {
        case .type: true
        case .at: atMicros == other.atMicros
        case .id: id == other.id
        case .message: withMessageBytes { mine in other.withMessageBytes { mine.hasSameBytes(as: $0) } }
        case .subtitle:
            withSubtitleBytes { mine in other.withSubtitleBytes { mine.hasSameBytes(as: $0) } ?? false }
                ?? (other.withSubtitleBytes { _ in true } == nil)
        case .role: role == other.role
        case .duration: durationMicros == other.durationMicros
        case .after: afterMicros == other.afterMicros
        case .placement: placement == other.placement
        case .policy: policy == other.policy
        case .priority: priority == other.priority
        case .source: source == other.source
        case .key: key == other.key
        case .dismissOnTap: dismissOnTap == other.dismissOnTap
        case .dismissOnLongPress: dismissOnLongPress == other.dismissOnLongPress
        case .swipe: swipe == other.swipe
        }
    }

    /// Sets `field` to a value its kind allows (callers check values first: the decoder and
    /// the Lua bridge, by the field's kind). `type` and `at` are not set this way.
    mutating func set(_ field: ToastField, to value: FieldValue) {
        if field == .message || field == .subtitle { fixAnnouncement() }
        uniqueFields.set(field, to: value)
    }
}

extension Toast.Fields {
    /// See `Toast.set(_:to:)`; the decoder sets a show's fields this way before there is a toast.
    mutating func set(_ field: ToastField, to value: Toast.FieldValue) {
        var text: String? { if case .text(let text) = value { text } else { nil } }
        var time: Microseconds? { if case .time(let time) = value { time } else { nil } }
        var flag: Bool? { if case .flag(let flag) = value { flag } else { nil } }
        switch field {
        case .type, .at: break
        case .id: if let text { id = text }
        case .message: if let text { message = .string(text) }
        case .subtitle: subtitle = text.map(Toast.ToastText.string)
        case .role: if let text { role = text }
        case .duration: duration = time
        case .after: after = time ?? 0
        case .placement: if let placement = text.flatMap(Placement.init(rawValue:)) { self.placement = placement }
        case .policy: if let policy = text.flatMap(Policy.init(rawValue:)) { self.policy = policy }
        case .priority: if case .integer(let integer) = value { priority = integer } else { priority = nil }
        case .source: source = text
        case .key: key = text
        case .dismissOnTap: if let flag { dismissOnTap = flag }
        case .dismissOnLongPress: if let flag { dismissOnLongPress = flag }
        case .swipe: if let flag { swipe = flag }
        }
    }
}
