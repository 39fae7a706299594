/// The `style` stage: the role's symbol, glyph and color (SPEC §3 style).
public final class StyleStage: ToastStage {
    public init() {}

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        let style = context.roles[toast.role] ?? context.roles.newRoleBase
        toast.style = AppliedStyle(symbol: style.symbol, glyph: style.glyph, color: style.color)
        return .pass
    }
}
