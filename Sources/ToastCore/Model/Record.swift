/// One output line: what happened to a toast, and when (docs/events.md, "Records").
///
/// Every toast that comes in ends in exactly one `drop`, or in one `present` followed by
/// one `dismiss`.
package enum Record {
    /// The toast appeared on screen after waiting `waited` at the host.
    case present(Toast, at: Microseconds, waited: Microseconds)
    /// The toast left the screen after being visible for `shown`.
    case dismiss(Toast, at: Microseconds, reason: DismissReason, shown: Microseconds)
    /// The toast never reached the screen.
    case drop(Toast, at: Microseconds, Drop)

    package var toast: Toast {
        switch self {
        case .present(let toast, _, _), .dismiss(let toast, _, _, _), .drop(let toast, _, _): return toast
        }
    }

    package var time: Microseconds {
        switch self {
        case .present(_, let at, _), .dismiss(_, let at, _, _), .drop(_, let at, _): return at
        }
    }

    /// `present`, `dismiss` or `drop`: the record's `event` field and the hook's name.
    package var kindName: String {
        switch self {
        case .present: return "present"
        case .dismiss: return "dismiss"
        case .drop: return "drop"
        }
    }
}

/// Why a visible toast left the screen.
package enum DismissReason: String, Sendable, CaseIterable {
    case timeout, tap
    case longPress = "long_press"
    case swipe, programmatic, replacement
    case hostRemoved = "host_removed"
    /// Its screen was ended to make room for a new one (`screens.limit`).
    case screenLimit = "screen_limit"
    /// It had no timeout, and a toast of higher priority (2 or more) would have waited behind it.
    case preempted
}

/// Why a toast never reached the screen. Built-in stages use the constants; a plugin stage
/// may name its own reason.
public struct DropReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The reason, a built-in one as its word (`DropLabel`: a drop is copied for most toasts
    /// of a flood, and a word copies no string).
    package var label: DropLabel

    public var rawValue: String {
        get { label.text }
        set { label = DropLabel(newValue) }
    }

    public init(rawValue: String) {
        label = DropLabel(rawValue)
    }

    public init(_ rawValue: String) {
        label = DropLabel(rawValue)
    }

    /// A plugin's own reason, written as a word: `reason: "capped"`.
    public init(stringLiteral rawValue: String) {
        label = DropLabel(rawValue)
    }

    package init(_ word: DropLabel.Word) {
        label = .word(word)
    }

    public var description: String { rawValue }

    public static let rule = DropReason(.rule)
    public static let duplicate = DropReason(.duplicate)
    public static let rateLimited = DropReason(.rateLimited)
    public static let `repeat` = DropReason(.repeat)
    public static let evicted = DropReason(.evicted)
    public static let cancelled = DropReason(.cancelled)
    public static let hostRemoved = DropReason(.hostRemoved)
    public static let debounced = DropReason(.debounced)
    public static let digested = DropReason(.digested)
    public static let screenLimit = DropReason(.screenLimit)
}

/// A stage's decision to drop a toast, with what the `drop` record says about it.
public struct Drop: Equatable, Sendable {
    /// The `stage` field: `rule`, `dedup`, `rate_limit`, `host`, or a plugin's name.
    public var stage: String {
        get { stageLabel.text }
        set { stageLabel = DropLabel(newValue) }
    }
    /// `stage`, a built-in one as its word (see `DropLabel`).
    package var stageLabel: DropLabel
    public var reason: DropReason
    /// The earlier toast this one duplicates.
    public var of: String? {
        get { if case .of(let id)? = details?.link { id } else { nil } }
        set { changeDetails { $0.link = newValue.map(Link.of) } }
    }
    /// The later toast that took this one's place (`debounced`).
    public var by: String? {
        get { if case .by(let id)? = details?.link { id } else { nil } }
        set { changeDetails { $0.link = newValue.map(Link.by) } }
    }
    /// The toast this one went into (`digested`: the digest's id).
    public var into: String? {
        get { if case .into(let id)? = details?.link { id } else { nil } }
        set { changeDetails { $0.link = newValue.map(Link.into) } }
    }
    /// The name of the rule that dropped it.
    public var rule: String? {
        get { details?.rule }
        set { changeDetails { $0.rule = newValue } }
    }
    /// Free text, e.g. a rule's "why".
    public var note: String? {
        get { details?.note }
        set { changeDetails { $0.note = newValue } }
    }

    /// The other toast a drop names, the rule and the note, when it has any: one reference,
    /// nil for most drops (the host's and the rate limit's, most toasts of a flood), so that
    /// copying a drop copies no string.
    private var details: Details?

    private final class Details: Equatable, Sendable {
        let link: Link?
        let rule: String?
        let note: String?

        init(link: Link?, rule: String?, note: String?) {
            self.link = link
            self.rule = rule
            self.note = note
        }

        static func == (left: Details, right: Details) -> Bool {
            left.link == right.link && left.rule == right.rule && left.note == right.note
        }
    }

    /// The one other toast a drop names, if any (a drop names at most one).
    private enum Link: Equatable, Sendable {
        case of(String), by(String), into(String)
    }

    /// The details as they are, changed by `change`; none when nothing is left.
    private mutating func changeDetails(_ change: (inout (link: Link?, rule: String?, note: String?)) -> Void) {
        var values = (link: details?.link, rule: details?.rule, note: details?.note)
        change(&values)
        details = Self.details(link: values.link, rule: values.rule, note: values.note)
    }

    private static func details(link: Link?, rule: String?, note: String?) -> Details? {
        link == nil && rule == nil && note == nil ? nil : Details(link: link, rule: rule, note: note)
    }

    public init(stage: String, reason: DropReason, of: String? = nil, by: String? = nil, into: String? = nil,
                rule: String? = nil, note: String? = nil) {
        self.init(stage: DropLabel(stage), reason: reason, of: of, by: by, into: into, rule: rule, note: note)
    }

    /// A drop by the stage whose records say `stage` (`StageContext.stageLabel`).
    package init(stage: DropLabel, reason: DropReason, of: String? = nil, by: String? = nil) {
        self.init(stage: stage, reason: reason, of: of, by: by, into: nil, rule: nil, note: nil)
    }

    /// A drop by a built-in stage, named by its word.
    package init(stage: DropLabel.Word, reason: DropReason, of: String? = nil, by: String? = nil, into: String? = nil,
                 rule: String? = nil, note: String? = nil) {
        self.init(stage: .word(stage), reason: reason, of: of, by: by, into: into, rule: rule, note: note)
    }

    private init(stage: DropLabel, reason: DropReason, of: String?, by: String?, into: String?, rule: String?, note: String?) {
        stageLabel = stage
        self.reason = reason
        details = Self.details(link: of.map(Link.of) ?? by.map(Link.by) ?? into.map(Link.into), rule: rule, note: note)
    }
}
