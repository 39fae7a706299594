/// The `announce` stage: the text a screen reader would say (SPEC §3 announce):
/// `<label>: <message>`, or just the message for an empty label, then `, <subtitle>` for a
/// non-empty subtitle. A role's own `announce` template or function replaces it.
public final class AnnounceStage: ToastStage {
    /// Runs the roles' `announce` functions (the scripts' runtime); without one, a role's
    /// function gives the default announcement.
    private var functions: (any ScriptFunctionRunner)?

    public init(functions: (any ScriptFunctionRunner)? = nil) {
        self.functions = functions
    }

    /// The reloaded scripts run the roles' functions from now on.
    public func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? AnnounceStage else { return }
        functions = replacement.functions
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if let text = ownAnnouncement(for: toast, context: context) {
            toast.announcement = text
        } else {
            toast.announce(label: context.roles.withStyle(of: toast.role) { $0.label })
        }
        return .pass
    }

    /// The role's own announcement (template or function), if it has one that gives a text.
    private func ownAnnouncement(for toast: Toast, context: StageContext) -> String? {
        let roles = context.roles
        return roles.withStyle(of: toast.role) { style in
            switch style.announcement {
            case .template(let template)?: return Self.render(template, toast: toast, style: style, roles: roles)
            case .function(let function)?: return functions?.text(calling: function, with: toast, context: context)
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
