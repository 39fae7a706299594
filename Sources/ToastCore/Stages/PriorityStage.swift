/// The `priority` stage: a toast without a priority of its own takes its role's
/// (docs/lua.md, "config"). The host orders its waiting line by it.
package final class PriorityStage: ToastStage, CalledUnretained {
    package init() {}

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if toast.priority == nil {
            toast.priority = context.roles.priority(of: toast.role) ?? 0
            context.explain("no priority of its own: role \(quoted(toast.role)) gives \(toast.priority ?? 0)")
        } else {
            context.explain("its own priority, \(toast.priority ?? 0)")
        }
        return .pass
    }
}

extension PriorityStage: FieldPreserving {
    /// It sets `priority` and nothing else.
    func leaves(field: String) -> Bool { field != ToastField.priority.name }
}
