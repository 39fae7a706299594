/// The name of a screen when screens are on (docs/events.md, "Screens"): the value of a show's
/// field `screens.by`, a string or an integer. `7` and `"7"` are different screens; `7.0` is
/// `7`; no value (or null) is the screen `""`.
@usableFromInline package enum ScreenKey: Hashable, Sendable {
    case text(String)
    case integer(Int64)

    /// The screen of no value.
    package static let unnamed = ScreenKey.text("")

    /// The screen a field's value names; nil for a value that names none (a boolean, a
    /// fraction, an array, an object), which input rejects.
    package init?(naming value: JSONValue?) {
        switch value {
        case nil, .null?: self = .unnamed
        case .string(let text)?: self = .text(text)
        case .integer(let integer)?: self = .integer(integer)
        case .number(let number)?:
            guard number.rounded() == number, let integer = Int64(exactly: number) else { return nil }
            self = .integer(integer)
        case .bool?, .array?, .object?: return nil
        }
    }

    /// As records write it: a string as a string, an integer as an integer.
    package var jsonValue: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .integer(let integer): .integer(integer)
        }
    }

    /// As text records and explanations show it, after the time: `[alice]`, `[7]`.
    package var label: String {
        switch self {
        case .text(let text): "[\(text)]"
        case .integer(let integer): "[\(integer)]"
        }
    }

    /// Why a value names no screen, for the input line that gives it.
    package static func problem(field: String) -> String {
        "field '\(field)' names the screen (screens.by): it must be a string or an integer"
    }
}

extension Toast {
    /// The screen this toast is on, by the value of its field `field` (after the rules, as
    /// it is now); a value that names no screen counts as `""`.
    package func screen(by field: FieldReference, roles: RoleTable) -> ScreenKey {
        ScreenKey(naming: value(of: field, roles: roles)) ?? .unnamed
    }

    /// Puts the toast on `screen`: its field `field` set to the screen's value (a summary or a
    /// digest goes to the screen of its group).
    package mutating func moveToScreen(_ screen: ScreenKey, by field: String) {
        if let known = ToastField(named: field) {
            switch (known.kind, screen) {
            case (.optionalText, .text(let text)), (.subtitle, .text(let text)): set(known, to: .text(text))
            case (.priority, .integer(let integer)): set(known, to: .integer(Int(integer)))
            default: break
            }
            return
        }
        var members = extra.filter { $0.name != field }
        members.append(JSONMember(field, screen.jsonValue))
        extra = members
    }
}
