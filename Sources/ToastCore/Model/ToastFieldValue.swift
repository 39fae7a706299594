/// A toast's fields read, compared and written by name, through `ToastField`: the one place
/// that maps each field to its property. Dedup keys, templates, traces and the Lua bridge read
/// with `withValue`; a trace compares with `hasSameValue`; the decoder and a script's table
/// set fields through `set`.
extension Toast {
    /// A field's value as it is, borrowed: text as its UTF-8 bytes (valid only inside the
    /// closure that gets it), times in microseconds.
    package enum FieldView {
        case absent
        case text(UnsafeRawBufferPointer)
        case time(Microseconds)
        case integer(Int)
        case flag(Bool)
    }

    /// A field's value to set.
    package enum FieldValue: Equatable {
        case absent
        case text(String)
        case time(Microseconds)
        case integer(Int)
        case flag(Bool)
    }

    /// Calls `body` with the value of `field` as the toast holds it: `priority` is absent when
    /// the toast takes its role's (`effectivePriority(in:)` says which that is), `duration`
    /// when there is no timeout.
    package func withValue<Result>(of field: ToastField, _ body: (FieldView) -> Result) -> Result {
        func text(_ string: String?) -> Result {
            guard let string else { return body(.absent) }
            return string.withUTF8Bytes { body(.text($0)) }
        }
        switch field.storage {
        case .constant(let value): return text(value)
        case .message: return withMessageBytes { body(.text($0)) }
        case .subtitle: return withSubtitleBytes { body(.text($0)) } ?? body(.absent)
        case .text(let get, _): return text(get(self))
        case .optionalText(let get, _): return text(get(self))
        case .time(let get, _): return body(.time(get(self)))
        case .optionalTime(let get, _): return body(get(self).map(FieldView.time) ?? .absent)
        case .optionalInteger(let get, _): return body(get(self).map(FieldView.integer) ?? .absent)
        case .flag(let get, _): return body(.flag(get(self)))
        case .generic(let defaultValue, _):
            switch storage.fields.genericFields.value(of: field) ?? defaultValue {
            case .absent: return body(.absent)
            case .text(let string): return text(string)
            case .time(let time): return body(.time(time))
            case .integer(let integer): return body(.integer(integer))
            case .flag(let flag): return body(.flag(flag))
            }
        }
    }

    /// `withValue` for a body that returns nothing, and one that answers yes or no: the Lua
    /// bridge, in another module, calls these. A generic function called from another module
    /// runs unspecialized, looking up type metadata on every call; these are specialized here.
    package func visitValue(of field: ToastField, _ body: (FieldView) -> Void) {
        withValue(of: field, body)
    }

    /// See `visitValue(of:_:)`.
    package func valueMatches(of field: ToastField, _ test: (FieldView) -> Bool) -> Bool {
        withValue(of: field, test)
    }

    /// The value of `field` as an owned value (see `withValue`).
    package func value(of field: ToastField) -> FieldValue {
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
    /// the stored values compared directly, with no view or `String` made for a stored text.
    func hasSameValue(of field: ToastField, as other: Toast) -> Bool {
        func same<Value: Equatable>(_ get: ToastField.Get<Value>) -> Bool {
            get(self) == get(other)
        }
        switch field.storage {
        case .constant: return true
        case .message: return withMessageBytes { mine in other.withMessageBytes { mine.hasSameBytes(as: $0) } }
        case .subtitle:
            return withSubtitleBytes { mine in other.withSubtitleBytes { mine.hasSameBytes(as: $0) } ?? false }
                ?? (other.withSubtitleBytes { _ in true } == nil)
        case .text(let get, _): return same(get)
        case .optionalText(let get, _): return same(get)
        case .time(let get, _): return same(get)
        case .optionalTime(let get, _): return same(get)
        case .optionalInteger(let get, _): return same(get)
        case .flag(let get, _): return same(get)
        case .generic(let defaultValue, _):
            let fields = (storage.fields.genericFields, other.storage.fields.genericFields)
            return (fields.0.value(of: field) ?? defaultValue) == (fields.1.value(of: field) ?? defaultValue)
        }
    }

    /// Sets `field` to a value its kind allows (callers check values first: the decoder and
    /// the Lua bridge, by the field's kind). `type` and `at` are not set this way.
    package mutating func set(_ field: ToastField, to value: FieldValue) {
        if field == .message || field == .subtitle { fixAnnouncement() }
        uniqueFields.set(field, to: value)
    }
}

extension Toast.Fields {
    /// See `Toast.set(_:to:)`; the decoder sets a show's fields this way before there is a
    /// toast. A value of the wrong type for the field is ignored.
    package mutating func set(_ field: ToastField, to value: Toast.FieldValue) {
        var text: String? { if case .text(let text) = value { text } else { nil } }
        var time: Microseconds? { if case .time(let time) = value { time } else { nil } }
        switch field.storage {
        case .constant: break
        case .message: if let text { message = .string(text) }
        case .subtitle: subtitle = text.map(Toast.ToastText.string)
        case .text(_, let set): if let text { set(&self, text) }
        case .optionalText(_, let set): set(&self, text)
        case .time(_, let set): if let time { set(&self, time) }
        case .optionalTime(_, let set): set(&self, time)
        case .optionalInteger(_, let set): if case .integer(let integer) = value { set(&self, integer) } else { set(&self, nil) }
        case .flag(_, let set): if case .flag(let flag) = value { set(&self, flag) }
        case .generic: genericFields.set(field, to: value)
        }
    }
}
