import ToastCore

/// A rule written in Lua, `rule(fn)` or `rule(name, fn)`: it runs in the scripts' state, in the
/// context of the rules stage.
struct LuaRule: GroupableRule {
    let name: String
    /// The function, in the registry.
    let reference: LuaReference
    /// `FILE:LINE` of the function's definition.
    let place: String
    let runtime: LuaRuntime

    func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome {
        let group = LuaRuleGroup(runtime: runtime, rules: [self])
        _ = runtime.takeRuleFailure()
        if let drop = runtime.runRules(group, on: &toast, context: context) { return .drop(note: drop.note) }
        return runtime.takeRuleFailure().map { .failed(message: $0) } ?? .keep
    }

    /// This rule and the Lua rules of the same state right after it, in one group.
    func group(startingWith rules: ArraySlice<any ToastRule>) -> any ToastRuleGroup {
        var members: [LuaRule] = []
        for rule in rules {
            guard let rule = rule as? LuaRule, rule.runtime === runtime else { break }
            members.append(rule)
        }
        return LuaRuleGroup(runtime: runtime, rules: members)
    }
}

/// Lua rules of one state that run one after another: one call into Lua a toast runs them
/// all, as long as each keeps the toast as it is, instead of one call a rule. A class: the
/// rules stage hands it on for every toast, and a reference is one count to keep.
final class LuaRuleGroup: ToastRuleGroup {
    let runtime: LuaRuntime
    let rules: [LuaRule]
    /// The rules' functions, in the registry, for the call into Lua.
    let references: [LuaReference]

    init(runtime: LuaRuntime, rules: [LuaRule]) {
        self.runtime = runtime
        self.rules = rules
        self.references = rules.map(\.reference)
    }

    var count: Int { rules.count }

    func apply(to toast: inout Toast, context: StageContext) -> (rule: String, note: String?)? {
        runtime.runRules(self, on: &toast, context: context).map { ($0.rule.name, $0.note) }
    }
}
