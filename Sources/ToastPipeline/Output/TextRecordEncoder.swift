/// `--format text`: a line per record for a person to read, colored by role when asked.
///
///         0  ✔ Saved "Report.pdf" — Ready to share  (success, t1)
///         3    t1 dismissed: timeout after 3s
///       3.5    t2 dropped by dedup: duplicate of t1 — "Saved "Report.pdf""
///       4.2    t3 dropped by rule "drop debug": debug build only — "cache warmed"
///
/// Drops appear only with `verbose`.
public struct TextRecordEncoder: RecordEncoder {
    public var useColor: Bool
    public var verbose: Bool

    public init(useColor: Bool, verbose: Bool) {
        self.useColor = useColor
        self.verbose = verbose
    }

    public func encode(_ record: Record, into out: inout [UInt8]) -> Bool {
        var line = ""
        switch record {
        case .present(let toast, let at, _):
            line = timeColumn(at)
            let glyph = toast.style?.glyph ?? " "
            var text = "\(glyph) \(toast.message)"
            if let subtitle = toast.subtitle, !subtitle.isEmpty { text += " — \(subtitle)" }
            line += colored(text, toast.style?.color) + "  (\(toast.role), \(toast.id))"
        case .dismiss(let toast, let at, let reason, let shown):
            line = timeColumn(at) + dimmed("  \(toast.id) dismissed: \(reason.rawValue) after \(StreamTime.format(shown))s")
        case .drop(let toast, let at, let drop):
            guard verbose else { return false }
            var text = "  \(toast.id) dropped by "
            if let rule = drop.rule {
                text += "rule \(quoted(rule))"
            } else {
                text += "\(drop.stage): \(drop.reason.rawValue)"
                if let of = drop.of { text += " of \(of)" }
            }
            if let note = drop.note { text += ": \(note)" }
            text += " — \(quoted(toast.message))"
            line = timeColumn(at) + dimmed(text)
        }
        out.appendUTF8(line)
        out.append(UInt8(ascii: "\n"))
        return true
    }

    private func timeColumn(_ time: Microseconds) -> String {
        let text = StreamTime.format(time)
        return String(repeating: " ", count: max(0, 9 - text.count)) + text + "  "
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
