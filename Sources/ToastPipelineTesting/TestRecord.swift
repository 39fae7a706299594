import ToastPipeline
import ToastCore

/// A record as a test compares it: its fields by name, times as `Duration`, and one line of
/// text that leaves out the role's style (symbol, glyph, color, announcement), so an exact
/// comparison does not break when a style changes.
///
///     t=0 present id=a message="Saved" role=info placement=top policy=enqueue priority=0 duration=3 waited=0 extra={"n":1}
///     t=3 dismiss id=a reason=timeout shown=3
///     t=1 drop id=b message="Saved" role=info stage=dedup reason=duplicate of=a
public struct TestRecord: Equatable, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable { case present, dismiss, drop }

    public let kind: Kind
    public let time: Duration
    public let id: String
    /// The toast's fields, for a `present`; `message` and `role` for a `drop` too (what was lost).
    public let message, subtitle, role, placement, policy, source: String?
    /// The extra fields of a `present` (the input's fields toastscript does not know, and those
    /// rules and stages added), in the record's order; empty for other records.
    public let extra: [JSONMember]
    public let priority: Int?
    /// Its timeout, for a `present` (nil: none, or another kind of record).
    public let duration: Duration?
    /// How long it waited (`present`) or was shown (`dismiss`).
    public let waited, shown: Duration?
    /// Why it was dismissed or dropped.
    public let reason: String?
    /// For a `drop`: the stage, the rule, the toast it repeats, the toast that took its place
    /// (`by`, debounce) or that it went into (`into`, digest), the note.
    public let stage, rule, of, by, into, note: String?
    /// Every member of the record in order, as `--format json` writes it and a hook's `info`
    /// holds it: the style, the extra fields and any field the properties above do not name
    /// (one added to the show's schema) are here too.
    public let members: [JSONMember]

    package init(_ record: Record) {
        let toast = record.toast
        members = record.members
        time = .microseconds(record.time)
        id = toast.id
        var fields: (message: String?, subtitle: String?, role: String?, placement: String?, policy: String?,
                     source: String?, priority: Int?, duration: Duration?, waited: Duration?) =
            (nil, nil, nil, nil, nil, nil, nil, nil, nil)
        var shown: Duration?
        var reason, stage, rule, of, by, into, note: String?
        var extra: [JSONMember] = []
        switch record {
        case .present(let toast, _, let waited):
            kind = .present
            fields = (toast.message, toast.subtitle, toast.role, toast.placement.rawValue, toast.policy.rawValue,
                      toast.source, toast.priority ?? 0, toast.duration, .microseconds(waited))
            extra = toast.extra
        case .dismiss(_, _, let why, let time):
            kind = .dismiss
            reason = why.rawValue
            shown = .microseconds(time)
        case .drop(let toast, _, let drop):
            kind = .drop
            (fields.message, fields.role) = (toast.message, toast.role)
            (stage, reason, rule, of, note) = (drop.stage, drop.reason.rawValue, drop.rule, drop.of, drop.note)
            (by, into) = (drop.by, drop.into)
        }
        (message, subtitle, role, placement, policy, source, priority, duration, waited) = fields
        (self.shown, self.reason, self.stage, self.rule, self.of, self.note) = (shown, reason, stage, rule, of, note)
        (self.by, self.into) = (by, into)
        self.extra = extra
    }

    /// One line: `t=…`, the kind, then each field that has a value, texts quoted as JSON.
    public var description: String {
        var parts = ["t=" + Self.seconds(time), kind.rawValue, "id=" + id]
        func add(_ name: String, _ text: String?) {
            if let text { parts.append(name + "=" + JSONText.quoted(text)) }
        }
        func add(_ name: String, word: String?) {
            if let word { parts.append(name + "=" + word) }
        }
        add("message", message)
        add("subtitle", subtitle)
        add("role", word: role)
        add("placement", word: placement)
        add("policy", word: policy)
        add("priority", word: priority.map(String.init))
        if kind == .present { add("duration", word: duration.map(Self.seconds) ?? "none") }
        add("waited", word: waited.map(Self.seconds))
        add("source", source)
        if !extra.isEmpty {
            var text: [UInt8] = []
            JSONText.appendObject(extra, to: &text)
            parts.append("extra=" + String(decoding: text, as: UTF8.self))
        }
        add("stage", word: stage)
        add("reason", word: reason)
        add("rule", rule)
        add("of", of)
        add("by", word: by)
        add("into", word: into)
        add("note", note)
        add("shown", word: shown.map(Self.seconds))
        return parts.joined(separator: " ")
    }

    /// `3`, `0.25`: the shortest decimal of the span in seconds.
    static func seconds(_ duration: Duration) -> String {
        StreamTime.format(StreamTime.microseconds(duration))
    }
}
