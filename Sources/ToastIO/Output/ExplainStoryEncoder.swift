import ToastCore

/// `--explain ID` in `--format text`: the life of a toast as a story, one line per decision
/// and record, each with its reason and the settings behind it:
///
///     t3  "Sync failed" (error, from sync), input line 4
///           2.4  rule "drop debug": pass
///           2.4  dedup: drop (duplicate of t2): same message, subtitle and role as t2 at 2.1 s, …
///           2.4  dropped by dedup
///
/// A toast's header comes before its first line and shows its message as it came in, and as
/// the rules left it when they changed it (the rules' lines wait until the rules are done);
/// lines of several explained toasts keep time order, each starting with its id when more than
/// one id is explained.
package final class ExplainStoryEncoder: RecordEncoder {
    private let showsIDs: Bool
    /// The toast whose rules are being told: its message as it came in, and its lines so far.
    private var inRules: (identity: String, incoming: String, lines: [String])?
    /// How times are shown, as in the text format.
    private let time: TimeDisplay
    /// The toasts already introduced, by id and input line (an id may come back).
    private var introduced: Set<String> = []

    package init(explaining ids: [String], time: TimeDisplay = TimeDisplay()) {
        showsIDs = Set(ids).count > 1
        self.time = time
    }

    package func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        let toast = record.toast
        let text: String
        switch record {
        case .present(_, _, let waited):
            var shown = "\(toast.style.map { safe($0.glyph) + " " } ?? "")\(safe(toast.message))"
            if let subtitle = toast.subtitle, !subtitle.isEmpty { shown += " — \(safe(subtitle))" }
            text = "on screen: \(shown)" + (waited > 0 ? " (after waiting \(StreamTime.format(waited)) s)" : "")
        case .dismiss(_, _, let reason, let shown):
            text = "off screen: \(reason.rawValue) after \(StreamTime.format(shown)) s"
        case .drop(_, _, let drop):
            var dropped = "dropped by " + (drop.rule.map { "rule \(quoted(safe($0)))" } ?? safe(drop.stage))
            dropped += " (\(drop.reason.rawValue)\(drop.of.map { " of \(safe($0))" } ?? "")"
                + "\(drop.by.map { " by \(safe($0))" } ?? "")\(drop.into.map { " into \(safe($0))" } ?? ""))"
            if let note = drop.note { dropped += ": \(safe(note))" }
            text = dropped + " — the end"
        }
        line(text, toast: toast, at: record.time, into: &out)
        return true
    }

    package func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool {
        // The id is in the header (and in the margin when several toasts are explained).
        line(TextRecordEncoder.sentence(for: trace, withID: false), toast: trace.toast, at: trace.time, into: &out,
             rulesStep: trace.stage == BuiltInStage.rules ? trace.messageBefore ?? trace.toast.message : nil)
        return true
    }

    /// One line of a toast's story. `rulesStep`: the line is a rule's, and the message before
    /// it; such lines wait for the end of the rules, so the header can say what they made of
    /// the message.
    private func line(_ text: String, toast: Toast, at moment: Microseconds, into out: inout ByteBuffer,
                      rulesStep: String? = nil) {
        let identity = "\(toast.id)\u{0}\(toast.inputLine)"
        let clock = time.clock(moment)
        let margin = showsIDs ? safe(toast.id) : ""
        let screen = toast.screenKey.map { "  " + safe($0.label) } ?? ""
        let line = "  " + margin + String(repeating: " ", count: max(1, 10 - clock.count - margin.count)) + clock + screen
            + "  " + text + "\n"
        if let pending = inRules, pending.identity == identity {
            if rulesStep != nil {
                inRules?.lines.append(line)
                return
            }
            inRules = nil
            out.appendUTF8(header(of: toast, incoming: pending.incoming))
            for held in pending.lines { out.appendUTF8(held) }
        } else if !introduced.contains(identity) {
            introduced.insert(identity)
            if let incoming = rulesStep {
                inRules = (identity, incoming, [line])
                return
            }
            out.appendUTF8(header(of: toast, incoming: toast.message))
        }
        out.appendUTF8(line)
    }

    /// `t5  "Saved" (success, from editor), input line 6`; a second line when the rules
    /// changed the message; a made toast says which stage made it.
    private func header(of toast: Toast, incoming: String) -> String {
        var header = "\(safe(toast.id))  \(quoted(safe(incoming))) (\(safe(toast.role))"
        if let source = toast.source { header += ", from \(safe(source))" }
        header += ")"
        if let madeBy = toast.madeBy {
            header += ", made by \(safe(madeBy))" + (toast.inputLine > 0 ? " during input line \(toast.inputLine)" : "")
        } else {
            header += toast.inputLine > 0 ? ", input line \(toast.inputLine)" : ", brought in by a script"
        }
        header += "\n"
        if toast.message != incoming { header += "    the rules made it \(quoted(safe(toast.message)))\n" }
        if toast.madeBy != nil, case .array(let ids)? = toast.extraValue("ids"), !ids.isEmpty {
            header += "    stands for " + Self.list(ids.compactMap(\.stringValue).map(safe)) + "\n"
        }
        return header
    }

    /// The ids a summary or digest stands for: the first ten, then how many more.
    static func list(_ ids: [String]) -> String {
        let shown = ids.prefix(10).joined(separator: ", ")
        let count = "\(ids.count) toast\(ids.count == 1 ? "" : "s")"
        return ids.count > 10 ? "\(shown) and \(ids.count - 10) more (\(count))" : "\(shown) (\(count))"
    }

    private func safe(_ text: String) -> String {
        TerminalText.escaped(text)
    }
}
