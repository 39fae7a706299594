/// The fields of a show event by their SPEC §1 names.
public enum ToastField: String, CaseIterable, Sendable {
    case id, message, subtitle, role, duration, after, placement, policy, priority, source, key
    case dismissOnTap = "dismiss_on_tap"
    case dismissOnLongPress = "dismiss_on_long_press"
    case swipe, at, type
}

/// A field as settings name it (dedup `fields`, the rate-limit `key`, announce templates):
/// one of SPEC §1, else an extra field. Resolved once from its name, so a stage does not
/// compare names for every toast.
public enum FieldReference: Hashable, Sendable {
    case field(ToastField)
    case extra(String)

    public init(name: String) {
        self = ToastField(rawValue: name).map(FieldReference.field) ?? .extra(name)
    }
}
