import ToastCore
import ToastIO

/// The rule runner: a toast's rules in one call into Lua for as long as they keep it as it
/// is, and what a rule that did anything else returned, read back into the toast (docs/lua.md,
/// "rule"). The loader (`LuaRuntime`) registers the rules; the rules stage calls them through
/// `LuaRule`.
extension LuaRuntime {
    /// Runs `rules` on `toast` in order until one drops it; returns that rule and its note,
    /// or nil when all kept it.
    func runRules(_ rules: LuaRuleGroup, on toast: inout Toast, context: StageContext) -> (rule: LuaRule, note: String?)? {
        running(in: ScriptCall(context: context, inputLine: context.inputLine)) { runRules(rules, on: &toast) }
    }

    /// One call into Lua runs the rules for as long as they keep the toast as it is
    /// (`LuaState.runRules`); a rule that does anything else has its results read here, and
    /// the rest run from the next one on.
    func runRules(_ group: LuaRuleGroup, on toast: inout Toast) -> (rule: LuaRule, note: String?)? {
        let top = state.top
        state.ruleRunsActive += 1
        defer {
            state.setTop(top)
            state.ruleRunsActive -= 1
            // The rules' table is done with this toast; when no rule can have kept it, it
            // lets go of the toast now, so the stages after this one change the toast in place.
            if state.ruleRunsActive == 0 { state.releaseRuleToast() }
        }
        let handler = state.pushMessageHandler()
        var next = 0
        while next < group.rules.count {
            // The stored settings' roles (`settings` would copy every setting), read again
            // after a rule that stopped the run: it may have changed a role.
            let roles = settingsBuilder.settings.roles
            let proxy = state.pushRuleProxy(toast, roles: roles)
            let table = state.top
            switch state.runRules(group.references, from: next, table: table, handler: handler, budget: budget) {
            case .allKept:
                return nil
            case .failed(let position, let failure):
                let rule = group.rules[position]
                let message = state.failureMessage(failure, place: rule.place)
                lastRuleFailure = message
                report(message, origin: ruleName(rule), source: ruleSource(rule))
                next = position + 1
            case .returned(let position):
                let rule = group.rules[position]
                if case .drop(let note) = takeResults(of: rule, at: table + 1, proxy: proxy, table: table, toast: &toast,
                                                      roles: roles) {
                    return (rule, note)
                }
                next = position + 1
            }
            // The next rule gets the same table, showing the toast as this one left it (already
            // so when nothing was written and the toast was not replaced). After the last rule
            // only a table a script may have kept needs it: any other is reset for the next
            // toast before anything reads it (`pushRuleProxy`).
            let anotherRuleFollows = next < group.rules.count
            if (anotherRuleFollows || state.shortcuts.rulesMayKeepTheirTable) && (!proxy.isUnwritten || !proxy.toast.sharesStorage(with: toast)) {
                state.reset(proxy, at: table, showing: toast)
            }
            state.setTop(handler)
        }
        return nil
    }

    /// What `rule` returned, the two values at `first`, for `toast` and its table (`proxy`, at
    /// `table`): the toast kept (with the changes made to the table, or replaced by a table
    /// returned) or dropped. A result that is none of these is a script error: reported, and
    /// the toast kept as it was. (C decides only that a rule kept the toast as it was, most
    /// rules on most toasts, without a return into Swift for each rule; all else is judged here.)
    func takeResults(of rule: LuaRule, at first: LuaIndex, proxy: ToastProxy, table: LuaIndex, toast: inout Toast,
                             roles: RoleTable) -> RuleOutcome {
        do {
            switch state.type(at: first) {
            case .nilValue where state.type(at: first + 1) == .nilValue,
                 .boolean where state.isTrue(at: first) && state.type(at: first + 1) == .nilValue,
                 // The rule returned its own toast: kept, with its changes.
                 .table where state.rawEqual(first, table) && state.type(at: first + 1) == .nilValue:
                // Most rules keep the toast without writing to it: nothing to read back.
                if !proxy.isUnwritten {
                    toast = try state.toast(from: proxy, at: table, original: toast, defaults: keepDefaults, roles: roles)
                    lookForTypos(in: proxy.touched, of: rule)
                }
            case .boolean where !state.isTrue(at: first):
                switch state.type(at: first + 1) {
                case .nilValue: return .drop(note: nil)
                case .string: return .drop(note: state.string(at: first + 1))
                default: throw LuaBridgeError("a rule that returns false may add a string, not \(state.typeName(at: first + 1))")
                }
            case .table where state.type(at: first + 1) == .nilValue:
                toast = try state.toast(fromTableAt: first, original: toast, defaults: showDefaults, roles: roles)
            default:
                let second = state.type(at: first + 1) == .nilValue ? "" : ", \(state.typeName(at: first + 1))"
                throw LuaBridgeError("rule returned \(state.typeName(at: first))\(second); expected nothing, true, false (and a reason) or a table")
            }
        } catch {
            let reason = (error as? LuaBridgeError)?.message ?? "\(error)"
            let message = "\(rule.place): \(ruleName(rule) == nil ? "rule: " : "")\(reason)"
            lastRuleFailure = message
            report(message, origin: ruleName(rule), source: ruleSource(rule))
        }
        return .keep
    }

    /// A name a rule wrote that is no field becomes an extra field; one close to a field's name
    /// is most likely a typo (`t.rol = "error"`), so it gets one warning, the first time per
    /// rule and name.
    func lookForTypos(in touched: [TouchedName], of rule: LuaRule) {
        for name in touched where name.field == nil {
            guard !namesCheckedForTypos.contains(where: { $0.rule == rule.reference && $0.name == name.name }),
                  namesCheckedForTypos.count < 256 else { continue }
            namesCheckedForTypos.append((rule.reference, name.name))
            guard let question = NameSuggestion.question(for: name.name, among: Self.fieldNames) else { continue }
            warn("rule \(quoted(rule.name)): field \(quoted(name.name)) is not a known field; \(question) (kept as an extra field)")
        }
    }

    private static let fieldNames = ToastField.allCases.map(\.name)

    /// How an error names a rule: `rule "name"`; nil for a rule without a name, which its
    /// place (`FILE:LINE`, where the message starts) names.
    func ruleName(_ rule: LuaRule) -> String? {
        rule.name == rule.place ? nil : "rule \(quoted(rule.name))"
    }

    /// How `--stats` counts a rule's errors: by its name, or its place.
    func ruleSource(_ rule: LuaRule) -> String {
        ruleName(rule) ?? "rule \(rule.place)"
    }

    /// A kept toast's table holds every field it had, so a field that is gone was removed.
    var keepDefaults: Toast {
        var defaults = showDefaults
        defaults.durationMicros = nil
        return defaults
    }

    /// What a show event without fields would have (a replacement starts from it).
    var showDefaults: Toast {
        settings.queue.show(id: "", message: "")
    }
}
