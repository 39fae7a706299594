/// The `announce` stage: the text a screen reader would say (docs/lua.md, "config"):
/// `<label>: <message>`, or just the message for an empty label, then `, <subtitle>` for a
/// non-empty subtitle. A role's own `announce` template or function replaces it.
package final class AnnounceStage: ToastStage, CalledUnretained {
    /// Runs the roles' `announce` functions (the scripts' runtime); without one, a role's
    /// function gives the default announcement.
    private var functions: (any ScriptFunctionRunner)?

    package init(functions: (any ScriptFunctionRunner)? = nil) {
        self.functions = functions
    }

    /// The reloaded scripts run the roles' functions from now on.
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? AnnounceStage else { return }
        functions = replacement.functions
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if let text = ownAnnouncement(for: toast, context: context) {
            toast.announcement = text
        } else {
            toast.announce(label: context.roles.withStyle(of: toast.role) { $0.label })
            // A role's function that failed: the error is traced, with the fallback taken.
            if context.isTracing, let failure = functions?.takeFailure() {
                context.trace(toast, verdict: .error, changedFields: ["announcement"],
                              because: "\(failure); the standard announcement was used")
            }
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
    /// is `""` (docs/events.md). A `{` without a closing `}` stays as written.
    static func render(_ template: String, toast: Toast, style: RoleStyle, roles: RoleTable) -> String {
        Template.fill(template) { name in
            if name == "label" { return style.label }
            switch toast.fieldValue(String(name), roles: roles) {
            case nil, .null?: return ""
            case .string(let text)?: return text
            case let value?: return JSONText.encode(value)
            }
        }
    }
}

extension AnnounceStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}
