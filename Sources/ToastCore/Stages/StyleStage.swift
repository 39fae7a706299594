/// The `style` stage: the role's symbol, glyph and color (docs/lua.md, "config").
package final class StyleStage: ToastStage, CalledUnretained {
    package init() {}

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        toast.style = context.roles.appliedStyle(of: toast.role)
        context.explain("the style of role \(quoted(toast.role))")
        return .pass
    }
}

extension StyleStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}
