/// One rule of the `rules` stage: Lua rules from scripts, or Swift rules from code.
package protocol ToastRule {
    /// The name a `drop` record gives as `rule`.
    var name: String { get }
    /// Keeps (perhaps changing `toast`) or drops one toast. A rule that fails reports its own
    /// error, leaves `toast` as it was and returns `.failed` with the error's message.
    func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome
    /// Why the rule decides as it does on `toast`, for a trace (nil: the decision says it all).
    func explanation(of toast: Toast, roles: RoleTable) -> String?
}

extension ToastRule {
    package func explanation(of toast: Toast, roles: RoleTable) -> String? { nil }
}

package enum RuleOutcome: Equatable, Sendable {
    case keep
    /// Drop the toast; `note` says why.
    case drop(note: String?)
    /// The rule failed (and reported it); the toast goes on as it was before the rule ran.
    /// The trace says `error`, with the message.
    case failed(message: String)
}

/// A rule that runs faster together with the rules after it that are of its kind (Lua rules
/// of one state: one call into Lua a toast instead of one a rule).
package protocol GroupableRule: ToastRule {
    /// A group of this rule, the first of `rules`, and as many of those right after it as
    /// can run with it.
    func group(startingWith rules: ArraySlice<any ToastRule>) -> any ToastRuleGroup
}

/// Rules that run as one: in order, each as it would alone, until one drops the toast.
package protocol ToastRuleGroup {
    /// How many rules it runs.
    var count: Int { get }
    /// Runs the rules on `toast`; the name of the rule that dropped it and its note, or nil
    /// when all kept it.
    func apply(to toast: inout Toast, context: StageContext) -> (rule: String, note: String?)?
}

/// The `rules` stage: the rules in the order they were registered (docs/lua.md, "config").
/// A dropped toast reaches no later rule.
package final class RulesStage: ToastStage, CalledUnretained {
    package private(set) var rules: [any ToastRule] {
        didSet { steps = Self.steps(of: rules) }
    }

    /// The rules as they run untraced: alone, or in groups (`GroupableRule`).
    private var steps: [Step]

    private enum Step {
        case rule(any ToastRule)
        case group(any ToastRuleGroup)
    }

    package init(rules: [any ToastRule] = []) {
        self.rules = rules
        self.steps = Self.steps(of: rules)
    }

    package func add(_ rule: any ToastRule) {
        rules.append(rule)
    }

    /// The reloaded scripts' rules replace these.
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? RulesStage else { return }
        rules = replacement.rules
    }

    private static func steps(of rules: [any ToastRule]) -> [Step] {
        var steps: [Step] = []
        var position = rules.startIndex
        while position < rules.endIndex {
            if let rule = rules[position] as? any GroupableRule {
                let group = rule.group(startingWith: rules[position...])
                steps.append(.group(group))
                position += max(1, group.count)
            } else {
                steps.append(.rule(rules[position]))
                position += 1
            }
        }
        return steps
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if context.isTracing {
            if rules.isEmpty { context.explain("no rules") }
            return processTraced(&toast, context: context)
        }
        for step in steps {
            switch step {
            case .rule(let rule):
                if case .drop(let note) = rule.apply(to: &toast, context: context) {
                    return .drop(Drop(stage: .rule, reason: .rule, rule: rule.name, note: note))
                }
            case .group(let group):
                if let drop = group.apply(to: &toast, context: context) {
                    return .drop(Drop(stage: .rule, reason: .rule, rule: drop.rule, note: drop.note))
                }
            }
        }
        return .pass
    }

    /// `process`, tracing each rule's decision (the rules stage is traced once per rule).
    private func processTraced(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        for rule in rules {
            let before = toast
            let because = rule.explanation(of: toast, roles: context.roles)
            switch rule.apply(to: &toast, context: context) {
            case .drop(let note):
                let drop = Drop(stage: .rule, reason: .rule, rule: rule.name, note: note)
                context.trace(toast, verdict: .drop, rule: rule.name, details: drop.traceDetails, because: because)
                return .drop(drop)
            case .failed(let message):
                context.trace(toast, verdict: .error, rule: rule.name, because: message)
            case .keep:
                let changed = toast.changedFields(since: before)
                context.trace(toast, verdict: changed.isEmpty ? .pass : .change, rule: rule.name, changedFields: changed,
                              because: because, messageBefore: changed.contains("message") ? before.message : nil)
            }
        }
        return .pass
    }
}
