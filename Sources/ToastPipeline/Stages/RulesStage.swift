/// One rule of the `rules` stage: Lua rules from scripts, or Swift rules from code.
public protocol ToastRule {
    /// The name a `drop` record gives as `rule`.
    var name: String { get }
    /// Keeps (perhaps changing `toast`) or drops one toast. A rule that fails reports its own
    /// error, leaves `toast` as it was and returns `.keep` (SPEC §5).
    func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome
}

public enum RuleOutcome: Equatable, Sendable {
    case keep
    /// Drop the toast; `note` says why.
    case drop(note: String?)
}

/// The `rules` stage: the rules in the order they were registered (SPEC §3 rules).
/// A dropped toast reaches no later rule.
public final class RulesStage: ToastStage {
    public private(set) var rules: [any ToastRule]

    public init(rules: [any ToastRule] = []) {
        self.rules = rules
    }

    public func add(_ rule: any ToastRule) {
        rules.append(rule)
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        if context.isTracing {
            if rules.isEmpty { context.explain("no rules") }
            return processTraced(&toast, context: context)
        }
        for rule in rules {
            if case .drop(let note) = rule.apply(to: &toast, context: context) {
                return .drop(Drop(stage: "rule", reason: .rule, rule: rule.name, note: note))
            }
        }
        return .pass
    }

    /// `process`, tracing each rule's decision (SPEC: the rules stage is traced once per rule).
    private func processTraced(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        for rule in rules {
            let before = toast
            if case .drop(let note) = rule.apply(to: &toast, context: context) {
                let drop = Drop(stage: "rule", reason: .rule, rule: rule.name, note: note)
                context.trace(toast, verdict: .drop, rule: rule.name, details: drop.traceDetails)
                return .drop(drop)
            }
            let changed = toast.changedFields(since: before)
            context.trace(toast, verdict: changed.isEmpty ? .pass : .change, rule: rule.name, changedFields: changed)
        }
        return .pass
    }
}
