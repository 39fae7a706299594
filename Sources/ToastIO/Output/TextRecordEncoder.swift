import ToastCore

/// `--format text`: a line per record for a person to read, colored by role when asked.
///
///         0  ✔ Saved "Report.pdf" — Ready to share  (success, t1)
///         3    t1 dismissed: timeout after 3s
///       3.5    t2 dropped by dedup: duplicate of t1 — "Saved "Report.pdf""
///       4.2    t3 dropped by rule "drop debug": debug build only — "cache warmed"
///
/// With screens on, each line names its screen after the time (`       0  [alice]  ✔ Saved …`).
/// Drops appear only with `verbose`. Every text that came from the input or a script goes
/// through `TerminalText`, so one record is always one line and nothing in it acts on the
/// terminal. The time column is as `TimeDisplay` shows it: seconds, the time of day on the
/// wall clock (`10:06:31.250`), or the date and time for a log's own timestamps
/// (`2026-11-30 10:06:31.250`).
package struct TextRecordEncoder: RecordEncoder {
    package var useColor: Bool
    package var verbose: Bool
    package var time: TimeDisplay

    package init(useColor: Bool, verbose: Bool, time: TimeDisplay = TimeDisplay()) {
        self.useColor = useColor
        self.verbose = verbose
        self.time = time
    }

    package func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        var line = ""
        switch record {
        case .present(let toast, let at, _):
            line = timeColumn(at, toast)
            let glyph = toast.style.map { safe($0.glyph) } ?? " "
            var text = "\(glyph) \(safe(toast.message))"
            if let subtitle = toast.subtitle, !subtitle.isEmpty { text += " — \(safe(subtitle))" }
            line += colored(text, toast.style?.color) + "  (\(safe(toast.role)), \(safe(toast.id)))"
        case .dismiss(let toast, let at, let reason, let shown):
            line = timeColumn(at, toast) + dimmed("  \(safe(toast.id)) dismissed: \(reason.rawValue) after \(StreamTime.format(shown))s")
        case .drop(let toast, let at, let drop):
            guard verbose else { return false }
            var text = "  \(safe(toast.id)) dropped by "
            if let rule = drop.rule {
                text += "rule \(quoted(safe(rule)))"
            } else {
                text += "\(safe(drop.stage)): \(drop.reason.rawValue)"
                if let of = drop.of { text += " of \(safe(of))" }
                if let by = drop.by { text += " by \(safe(by))" }
                if let into = drop.into { text += " into \(safe(into))" }
            }
            if let note = drop.note { text += ": \(safe(note))" }
            text += " — \(quoted(safe(toast.message)))"
            line = timeColumn(at, toast) + dimmed(text)
        }
        out.appendUTF8(line)
        out.append(UInt8(ascii: "\n"))
        return true
    }

    /// A trace record (`--trace`), indented under the records:
    ///
    ///       3.5      · t2 dedup: drop (duplicate of t1): same message, subtitle and role as t1 at 0 s, …
    package func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool {
        out.appendUTF8(timeColumn(trace.time, trace.toast) + dimmed("    · " + Self.sentence(for: trace)))
        out.append(UInt8(ascii: "\n"))
        return true
    }

    /// `t2 dedup: drop (duplicate of t1): why`: who decided what, and why (without the id when
    /// the reader already knows whose story it is). Text from input and scripts is escaped.
    static func sentence(for trace: TraceRecord, withID: Bool = true) -> String {
        func safe(_ text: String) -> String { TerminalText.escaped(text) }
        var text = withID ? "\(safe(trace.toast.id)) " : ""
        text += trace.rule.map { "rule \(quoted(safe($0)))" } ?? safe(trace.stage)
        if trace.verdict == .skip, case .string(let scope)? = trace.detail("spare") {
            return text + ": spared (spare: \(safe(scope)))"
        }
        if trace.verdict == .skip, case .string(let scope)? = trace.detail("when") {
            return text + ": skipped (when: \(safe(scope)))"
        }
        text += ": \(trace.verdict.rawValue)"
        if !trace.changedFields.isEmpty { text += " (" + trace.changedFields.map(safe).joined(separator: ", ") + ")" }
        if case .string(let reason)? = trace.detail("reason"), trace.verdict == .drop || trace.verdict == .evicted {
            text += " (\(safe(reason))"
            for link in ["of", "by", "into"] {
                if case .string(let id)? = trace.detail(link) { text += " \(link) \(safe(id))" }
            }
            text += ")"
        }
        if case .string(let note)? = trace.detail("note") { text += ": \(safe(note))" }
        if let because = trace.because { text += ": \(safe(because))" }
        return text
    }

    private func safe(_ text: String) -> String {
        TerminalText.escaped(text)
    }

    /// The time, right-aligned, then with screens on the toast's screen: `       3  [alice]  `.
    private func timeColumn(_ moment: Microseconds, _ toast: Toast) -> String {
        let text = time.clock(moment)
        let screen = toast.screenKey.map { "  " + safe($0.label) } ?? ""
        return String(repeating: " ", count: max(0, 9 - text.count)) + text + screen + "  "
    }

    private func colored(_ text: String, _ color: String?) -> String {
        guard useColor, let code = color.flatMap(Self.ansiCode(for:)) else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    private func dimmed(_ text: String) -> String {
        useColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text
    }

    /// The ANSI foreground code for a role color name; nil for names it does not know.
    static func ansiCode(for color: String) -> Int? {
        switch color.lowercased() {
        case "black": return 30
        case "red": return 31
        case "green": return 32
        case "yellow", "orange": return 33
        case "blue": return 34
        case "magenta", "purple", "pink": return 35
        case "cyan", "teal": return 36
        case "white": return 37
        case "gray", "grey": return 90
        default: return nil
        }
    }
}
