/// A rule written in Lua, `rule(fn)` or `rule(name, fn)`: it runs in the scripts' state, in the
/// context of the rules stage.
struct LuaRule: ToastRule {
    let name: String
    /// The function, in the registry.
    let reference: Int32
    /// `FILE:LINE` of the function's definition.
    let place: String
    let runtime: LuaRuntime

    func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome {
        runtime.runRule(self, on: &toast, context: context)
    }
}
