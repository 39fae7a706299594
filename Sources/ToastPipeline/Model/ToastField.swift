/// The fields of a show event by their docs/events.md names, and the schema that every part reads
/// them through: the decoder checks a field's JSON value by its `kind`, the Lua bridge pushes
/// and reads it by its `kind`, and dedup keys, templates and traces read it with
/// `Toast.withValue(of:_:)`. A new field is a case here, its kind, and its line in
/// `Toast.withValue`, `Toast.hasSameValue` and `Toast.Fields.set`.
package enum ToastField: String, CaseIterable, Sendable {
    case id, message, subtitle, role, duration, after, placement, policy, priority, source, key
    case dismissOnTap = "dismiss_on_tap"
    case dismissOnLongPress = "dismiss_on_long_press"
    case swipe, at, type

    /// What a field holds, which says how it is checked wherever a value comes in (an input
    /// line, a script's table) and how it goes out.
    enum Kind: Equatable {
        /// `type`: always `"show"`, never set.
        case eventType
        /// `at`: the time the toast came in, never set by a script.
        case arrivalTime
        /// `id`: a string, made (`t<N>`) when the input has none.
        case identifier
        /// `message`: a string that must not be empty.
        case message
        /// A string or nothing (`subtitle`, `source`, `key`).
        case optionalText
        /// A role the run knows.
        case role
        /// Seconds, `"short"` or `"long"`; nothing or 0 is no timeout.
        case duration
        /// Seconds ≥ 0.
        case delay
        /// One of a few names.
        case choice([String])
        /// A whole number; nothing is the role's priority.
        case priority
        /// true or false.
        case flag
    }

    var kind: Kind {
        switch self {
        case .type: .eventType
        case .at: .arrivalTime
        case .id: .identifier
        case .message: .message
        case .subtitle, .source, .key: .optionalText
        case .role: .role
        case .duration: .duration
        case .after: .delay
        case .placement: .choice(Self.placementNames)
        case .policy: .choice(Self.policyNames)
        case .priority: .priority
        case .dismissOnTap, .dismissOnLongPress, .swipe: .flag
        }
    }

    private static let placementNames = Placement.allCases.map(\.rawValue)
    private static let policyNames = Policy.allCases.map(\.rawValue)

    /// The fields an input line or a script may set, in the order they are checked (the
    /// first wrong one is the one reported).
    static let settable: [ToastField] = allCases.filter { $0 != .id && $0 != .at && $0 != .type }

    /// The fields a stage may change: the id and the settable ones, in record order.
    static let changeable: [ToastField] = [.id] + settable
}

/// A field as settings name it (dedup `fields`, the rate-limit `key`, announce templates):
/// one of docs/events.md, else an extra field. Resolved once from its name, so a stage does not
/// compare names for every toast.
package enum FieldReference: Hashable, Sendable {
    case field(ToastField)
    case extra(String)

    package init(name: String) {
        self = ToastField(rawValue: name).map(FieldReference.field) ?? .extra(name)
    }
}
