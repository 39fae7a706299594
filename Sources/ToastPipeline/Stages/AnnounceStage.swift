/// The `announce` stage: the text a screen reader would say (SPEC §3 announce):
/// `<label>: <message>`, or just the message for an empty label, then `, <subtitle>` for a
/// non-empty subtitle. A role's own `announce` template or function replaces it.
public final class AnnounceStage: ToastStage {
    public init() {}

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if let text = Self.ownAnnouncement(for: toast, roles: context.roles) {
            toast.announcement = text
        } else {
            toast.announce(label: context.roles.withStyle(of: toast.role) { $0.label })
        }
        return .pass
    }

    public static func announcement(for toast: Toast, roles: RoleTable) -> String {
        if let text = ownAnnouncement(for: toast, roles: roles) { return text }
        var toast = toast
        toast.announce(label: roles.withStyle(of: toast.role) { $0.label })
        return toast.announcement ?? toast.message
    }

    /// The role's own announcement (template or function), if it has one that gives a text.
    private static func ownAnnouncement(for toast: Toast, roles: RoleTable) -> String? {
        roles.withStyle(of: toast.role) { style in
            switch style.announcement {
            case .template(let template)?: return render(template, toast: toast, style: style, roles: roles)
            case .custom(let function)?: return function(toast)
            case nil: return nil
            }
        }
    }

    /// Fills `{name}` with the field's value (`{label}`: the role's label); a missing field
    /// is `""` (SPEC §8). A `{` without a closing `}` stays as written.
    static func render(_ template: String, toast: Toast, style: RoleStyle, roles: RoleTable) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = String(rest[rest.index(after: open)..<close])
            if name == "label" {
                result += style.label
            } else {
                switch toast.fieldValue(name, roles: roles) {
                case nil, .null?: break
                case .string(let text)?: result += text
                case let value?: result += JSONText.encode(value)
                }
            }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }
}
