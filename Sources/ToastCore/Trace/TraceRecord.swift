/// One decision about one toast, for `--trace`, `--explain` and the HTML timeline: a stage
/// (or one rule) passed, changed or dropped it, or the host queued, delayed, presented,
/// paused, resumed, replaced, evicted, dismissed or dropped it.
///
/// Trace records sit beside the records of `Record` but are not part of their rule that
/// every toast ends in one drop or one present and one dismiss: they say why, not what.
package struct TraceRecord {
    package var time: Microseconds
    /// The toast as the decision left it.
    package var toast: Toast
    /// The stage's name, or `host`.
    package var stage: String
    package var verdict: TraceVerdict
    /// The rule's name, for a decision of one rule of the rules stage.
    package var rule: String?
    /// The names of the fields the stage or rule changed (`change`).
    package var changedFields: [String]
    /// Facts behind the decision, as record fields: `reason`, `of`, `position`, `waiting`,
    /// `limit`, `by`, `until`, `shown`, … (the host's decisions always say `waiting`, the
    /// length of the waiting line after them).
    package var details: [JSONMember]
    /// The decision in words, with the settings that caused it ("same message and role as t1
    /// at 2 s, within the 3 s window"), or a failed rule's error; nil when the verdict says it all.
    package var because: String?
    /// The message before a rule changed it (the `--explain` header shows it as it came in).
    package var messageBefore: String?

    package init(time: Microseconds, toast: Toast, stage: String, verdict: TraceVerdict, rule: String? = nil,
                changedFields: [String] = [], details: [JSONMember] = [], because: String? = nil) {
        self.time = time
        self.toast = toast
        self.stage = stage
        self.verdict = verdict
        self.rule = rule
        self.changedFields = changedFields
        self.details = details
        self.because = because
    }

    /// The value of one of `details`.
    package func detail(_ name: String) -> JSONValue? {
        details.last { $0.name == name }?.value
    }
}

/// What a traced decision was. Stages and rules: `pass`, `change`, `drop`, and `error` for a
/// rule that failed (the toast went on as it was). The host: the rest, and `drop` for the
/// toasts it drops (a repeat, a cancelled or removed one).
public enum TraceVerdict: String, Sendable, CaseIterable {
    case pass, change, drop, error
    /// The stage's `spare` matched the toast, or its `when` did not take it: it went on as it was.
    case skip
    /// A stage holds the toast, and later lets it go on.
    case held, released
    case queued, evicted, delayed, presented, paused, resumed, replaced, dismissed
    /// A sticky toast of lower priority was dismissed so that an arriving error need not wait.
    case preempted
}

/// Where trace records go. A pipeline with none traces nothing and pays one `nil` check a
/// stage for it.
package protocol TraceWriter: AnyObject {
    func write(_ trace: TraceRecord)
}

extension Drop {
    /// What a drop's trace record says besides its verdict: `reason`, and `of` and `note` when
    /// the drop has them.
    public var traceDetails: [JSONMember] {
        var details = [JSONMember("reason", .string(reason.rawValue))]
        if let of { details.append(JSONMember("of", .string(of))) }
        if let by { details.append(JSONMember("by", .string(by))) }
        if let into { details.append(JSONMember("into", .string(into))) }
        if let note { details.append(JSONMember("note", .string(note))) }
        return details
    }
}
