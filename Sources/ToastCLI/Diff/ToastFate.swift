import ToastCore

/// How one toast's life ended, as `toastscript diff` compares it: dropped (by which stage,
/// for which reason, by which rule) or presented (when, and when and why it was dismissed).
package enum ToastFate: Equatable, Sendable {
    case dropped(stage: String, reason: String, rule: String?, at: Microseconds)
    case presented(at: Microseconds, dismissedAt: Microseconds?, reason: String?)

    /// Two fates are the same when a user would have seen the same thing: the same drop (its
    /// time aside: a toast dropped later by the same stage was still never seen), or the same
    /// present and dismiss times and reason.
    func isSame(as other: ToastFate) -> Bool {
        switch (self, other) {
        case let (.dropped(stage, reason, rule, _), .dropped(otherStage, otherReason, otherRule, _)):
            return stage == otherStage && reason == otherReason && rule == otherRule
        case (.presented, .presented):
            return self == other
        default:
            return false
        }
    }

    /// `dropped by rule "quiet debug"`, `rate-limited`, `shown`.
    var category: String {
        switch self {
        case .presented: return "shown"
        case .dropped(let stage, let reason, let rule, _):
            if let rule { return "dropped by rule \(quoted(rule))" }
            switch (stage, reason) {
            case ("rate_limit", "rate_limited"): return "rate-limited"
            case ("dedup", "duplicate"): return "dropped as duplicates by dedup"
            case ("host", let reason): return "dropped by the host (\(reason))"
            default: return "dropped by \(stage) (\(reason))"
            }
        }
    }

    /// `shown 3.2 s → 7.2 s (timeout)`, `dropped by dedup (duplicate) at 2.4 s`; a log's own
    /// timestamps as dates and times (`time`).
    func description(_ time: TimeDisplay) -> String {
        switch self {
        case let .presented(at, dismissedAt, reason):
            let end = dismissedAt.map { " → " + time.moment($0) } ?? ""
            return "shown \(time.moment(at))\(end)" + (reason.map { " (\($0))" } ?? "")
        case let .dropped(stage, reason, rule, at):
            let by = rule.map { "rule \(quoted($0))" } ?? "\(stage) (\(reason))"
            return "dropped by \(by) at \(time.moment(at))"
        }
    }

    func appendJSON(to out: inout [UInt8]) {
        switch self {
        case let .presented(at, dismissedAt, reason):
            out += Array(#"{"fate":"presented","t":"#.utf8)
            StreamTime.append(at, to: &out)
            if let dismissedAt {
                out += Array(#","dismissed":"#.utf8)
                StreamTime.append(dismissedAt, to: &out)
            }
            if let reason {
                out += Array(#","reason":"#.utf8)
                JSONText.appendString(reason, to: &out)
            }
        case let .dropped(stage, reason, rule, at):
            out += Array(#"{"fate":"dropped","t":"#.utf8)
            StreamTime.append(at, to: &out)
            out += Array(#","stage":"#.utf8)
            JSONText.appendString(stage, to: &out)
            out += Array(#","reason":"#.utf8)
            JSONText.appendString(reason, to: &out)
            if let rule {
                out += Array(#","rule":"#.utf8)
                JSONText.appendString(rule, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// The fates of every toast of one run, in the order the toasts first had a record, each
/// under the key that matches it with the same toast in another run of the same input: its
/// id and how many toasts with that id came before it; for toasts that scripts and stages
/// brought in (`e<N>`, numbered differently by different scripts), their message instead.
package final class FateCollector: RecordWriter {
    package struct Entry {
        package var key: String
        package var id: String
        package var message: String
        package var fate: ToastFate
        /// With screens on, the toast's screen (ids are a screen's own).
        package var screen: ScreenKey?
    }

    package private(set) var entries: [Entry] = []
    private var positions: [String: Int] = [:]
    /// Entries still on screen, by id (the most recent last).
    private var shown: [String: [Int]] = [:]
    private var occurrences: [String: Int] = [:]

    package init() {}

    package func write(_ record: consuming Record) {
        let toast = record.toast
        let shownKey = (toast.screenKey.map { $0.label + " " } ?? "") + toast.id
        switch record {
        case .present(_, let at, _):
            shown[shownKey, default: []].append(add(toast, .presented(at: at, dismissedAt: nil, reason: nil)))
        case .dismiss(_, let at, let reason, _):
            guard let index = shown[shownKey]?.popLast() else { return }
            if shown[shownKey]?.isEmpty == true { shown[shownKey] = nil }
            if case .presented(let presentedAt, _, _) = entries[index].fate {
                entries[index].fate = .presented(at: presentedAt, dismissedAt: at, reason: reason.rawValue)
            }
        case .drop(_, let at, let drop):
            add(toast, .dropped(stage: drop.stage, reason: drop.reason.rawValue, rule: drop.rule, at: at))
        }
    }

    @discardableResult
    private func add(_ toast: Toast, _ fate: ToastFate) -> Int {
        let base = (toast.screenKey.map { "screen \($0.label) " } ?? "")
            + (Self.isGenerated(toast.id) ? "emitted \(toast.message)" : "id \(toast.id)")
        let occurrence = occurrences[base, default: 0] + 1
        occurrences[base] = occurrence
        let key = "\(base)#\(occurrence)"
        positions[key] = entries.count
        entries.append(Entry(key: key, id: toast.id, message: toast.message, fate: fate, screen: toast.screenKey))
        return entries.count - 1
    }

    package func entry(forKey key: String) -> Entry? {
        positions[key].map { entries[$0] }
    }

    /// `e<N>`: an id that `emit` or a stage's summary made.
    static func isGenerated(_ id: String) -> Bool {
        id.count > 1 && id.hasPrefix("e") && id.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) }
    }
}
