/// A rule written in Lua: `rule(fn)` or `rule(name, fn)`.
struct LuaRule: ToastRule {
    let name: String
    /// The function, in the registry.
    let reference: Int32
    /// `FILE:LINE` of the function's definition.
    let place: String
    unowned let runtime: LuaRuntime

    func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome {
        runtime.runRule(self, on: &toast)
    }
}
