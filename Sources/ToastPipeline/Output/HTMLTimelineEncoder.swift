/// `--format html`: the run drawn as one self-contained page (inline CSS and SVG, a few lines
/// of inline JavaScript, nothing fetched), written when the run ends.
///
/// The timeline has a time axis, a lane per placement and visible slot with one bar per
/// presented toast (`class="toast"`, `data-id`) from present to dismiss in its role's color,
/// its glyph and message, and the dismissal reason at its end; a lane per stage that dropped
/// toasts with one mark per drop (`class="drop"`, `data-id`); and the waiting line's depth
/// over time. Hovering or clicking an element shows the toast's fields and its trace. At most
/// `limit` bars and `limit` drop marks are drawn: past that the timeline ends (the page says
/// where), and the totals still count the whole run.
public final class HTMLTimelineEncoder: RecordEncoder {
    public let title: String
    public let limit: Int

    private struct Bar {
        var toast: Toast
        var start: Microseconds
        var end: Microseconds?
        var reason: String?
        var trace: [String]
        var lane = 0
    }

    private struct Mark {
        var toast: Toast
        var time: Microseconds
        var stage: String
        var label: String
        var trace: [String]
    }

    private var bars: [Bar] = []
    /// Bars still on screen, by id (the latest presented with that id last).
    private var openBars: [String: [Int]] = [:]
    private var marks: [Mark] = []
    /// Trace lines of toasts not ended yet, by id.
    private var pendingTrace: [String: [String]] = [:]
    /// The waiting line's length after each host decision in the window.
    private var depth: [(time: Microseconds, waiting: Int)] = []
    /// Where the drawing stops, once `limit` was reached.
    private var windowEnd: Microseconds?
    private var firstTime: Microseconds?
    private var lastTime: Microseconds = 0
    private var presentedCount = 0
    /// Drops by stage and dismissals by reason over the whole run, in the order first seen.
    private var dropCounts: [(name: String, count: Int)] = []
    private var dismissCounts: [(name: String, count: Int)] = []

    public init(title: String, limit: Int = 2_000) {
        self.title = title
        self.limit = limit
    }

    // MARK: Collecting

    public func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        let time = record.time
        see(time)
        let toast = record.toast
        switch record {
        case .present:
            presentedCount += 1
            if windowEnd == nil && bars.count >= limit { windowEnd = time }
            guard windowEnd == nil else {
                pendingTrace[toast.id] = nil
                return false
            }
            openBars[toast.id, default: []].append(bars.count)
            bars.append(Bar(toast: toast, start: time, trace: pendingTrace[toast.id] ?? []))
        case .dismiss(_, _, let reason, _):
            count(&dismissCounts, reason.rawValue)
            let trace = pendingTrace.removeValue(forKey: toast.id) ?? []
            if let index = openBars[toast.id]?.popLast() {
                bars[index].end = time
                bars[index].reason = reason.rawValue
                bars[index].trace = trace
                if openBars[toast.id]?.isEmpty == true { openBars[toast.id] = nil }
            }
        case .drop(_, _, let drop):
            count(&dropCounts, drop.stage)
            let trace = pendingTrace.removeValue(forKey: toast.id) ?? []
            if windowEnd == nil && marks.count >= limit { windowEnd = time }
            guard windowEnd == nil else { return false }
            var label = drop.rule.map { "rule \(quoted($0))" } ?? "\(drop.stage): \(drop.reason.rawValue)"
            if let of = drop.of { label += " of \(of)" }
            if let note = drop.note { label += ": \(note)" }
            marks.append(Mark(toast: toast, time: time, stage: drop.stage, label: label, trace: trace))
        }
        return false
    }

    public func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool {
        see(trace.time)
        if trace.stage == "host", windowEnd == nil, case .integer(let waiting)? = trace.detail("waiting") {
            if let last = depth.last, last.time == trace.time {
                depth[depth.count - 1].waiting = Int(waiting)
            } else if depth.last?.waiting != Int(waiting) {
                depth.append((trace.time, Int(waiting)))
            }
        }
        let line = StreamTime.format(trace.time) + " s  " + TextRecordEncoder.sentence(for: trace)
        if windowEnd == nil || openBars[trace.toast.id] != nil {
            pendingTrace[trace.toast.id, default: []].append(line)
        }
        if let indices = openBars[trace.toast.id], let index = indices.last {
            bars[index].trace = pendingTrace[trace.toast.id] ?? []
        }
        return false
    }

    private func see(_ time: Microseconds) {
        if firstTime == nil { firstTime = time }
        lastTime = max(lastTime, time)
    }

    private func count(_ counts: inout [(name: String, count: Int)], _ name: String) {
        if let index = counts.firstIndex(where: { $0.name == name }) {
            counts[index].count += 1
        } else {
            counts.append((name, 1))
        }
    }

    // MARK: Drawing

    private static let laneHeight = 26
    private static let axisHeight = 28
    private static let depthHeight = 60
    private static let leftMargin = 120

    public func finish(into out: inout ByteBuffer) {
        let start = firstTime ?? 0
        let drawnEnd = bars.compactMap(\.end).max() ?? start
        let end = max(windowEnd ?? lastTime, drawnEnd, start + StreamTime.perSecond)
        let span = Double(end - start)
        let width = min(24_000, max(960, Int(StreamTime.seconds(end - start) * 60)))
        func x(_ time: Microseconds) -> Int { Self.leftMargin + Int(Double(time - start) / span * Double(width)) }

        // Lanes: per placement, the lowest slot free when the toast was presented.
        var lanes: [(placement: String, slotEnds: [Microseconds])] = []
        for placement in ["top", "center", "bottom"] {
            var slotEnds: [Microseconds] = []
            for index in bars.indices where bars[index].toast.placement.rawValue == placement {
                let barEnd = bars[index].end ?? end
                if let free = slotEnds.firstIndex(where: { $0 <= bars[index].start }) {
                    slotEnds[free] = barEnd
                    bars[index].lane = free
                } else {
                    bars[index].lane = slotEnds.count
                    slotEnds.append(barEnd)
                }
            }
            if !slotEnds.isEmpty { lanes.append((placement, slotEnds)) }
        }
        var laneTop: [String: Int] = [:]
        var y = Self.axisHeight
        var labels = ""
        for lane in lanes {
            laneTop[lane.placement] = y
            for slot in lane.slotEnds.indices {
                labels += "<text class=\"lane\" x=\"8\" y=\"\(y + slot * Self.laneHeight + 17)\">\(lane.placement) \(slot + 1)</text>"
            }
            y += lane.slotEnds.count * Self.laneHeight
        }
        let dropStages = marks.reduce(into: [String]()) { if !$0.contains($1.stage) { $0.append($1.stage) } }
        var dropTop: [String: Int] = [:]
        for stage in dropStages {
            dropTop[stage] = y
            labels += "<text class=\"lane\" x=\"8\" y=\"\(y + 17)\">drops: \(html(stage))</text>"
            y += Self.laneHeight
        }
        let depthTop = y + 8
        let height = depthTop + Self.depthHeight + 8

        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width + Self.leftMargin + 20)\" height=\"\(height)\">"
        svg += axis(start: start, end: end, height: height, x: x)
        svg += labels
        for bar in bars {
            let top = (laneTop[bar.toast.placement.rawValue] ?? 0) + bar.lane * Self.laneHeight
            let left = x(bar.start)
            let right = max(left + 3, x(bar.end ?? end))
            let color = Self.cssColor(bar.toast.style?.color)
            let glyph = bar.toast.style?.glyph ?? ""
            svg += "<g class=\"toast\" data-id=\"\(html(bar.toast.id))\" data-role=\"\(html(bar.toast.role))\" tabindex=\"0\">"
            svg += "<title>\(html(details(of: bar.toast, trace: bar.trace), multiline: true))</title>"
            svg += "<rect x=\"\(left)\" y=\"\(top + 2)\" width=\"\(right - left)\" height=\"\(Self.laneHeight - 4)\" rx=\"4\" fill=\"\(color)\"/>"
            // About 7 pixels a character: the message and the reason are cut to fit the bar.
            let reasonWidth = bar.reason.map { $0.count * 6 + 8 } ?? 0
            let showsReason = right - left >= reasonWidth + 40
            let room = (right - left - 8 - (showsReason ? reasonWidth : 0)) / 7
            if room >= 2 {
                svg += "<text x=\"\(left + 4)\" y=\"\(top + 17)\" class=\"message\">\(html(shortened(glyph + " " + bar.toast.message, to: room)))</text>"
            }
            if let reason = bar.reason, showsReason {
                svg += "<text x=\"\(right - 3)\" y=\"\(top + 17)\" class=\"reason\">\(html(reason))</text>"
            }
            svg += "</g>"
        }
        for mark in marks {
            let top = dropTop[mark.stage] ?? 0
            let left = x(mark.time)
            svg += "<g class=\"drop\" data-id=\"\(html(mark.toast.id))\" data-stage=\"\(html(mark.stage))\" tabindex=\"0\">"
            svg += "<title>\(html("dropped: \(visible(mark.label))\n" + details(of: mark.toast, trace: mark.trace), multiline: true))</title>"
            svg += "<path d=\"M\(left) \(top + 5) l5 8 l-5 8 l-5 -8 z\"/></g>"
        }
        svg += depthChart(top: depthTop, end: end, x: x)
        svg += "</svg>"

        var page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        page += "<title>\(html(title))</title><style>\(Self.style)</style></head><body>"
        page += "<h1>\(html(title))</h1>"
        page += summary(start: start, end: end)
        page += legend(dropStages: dropStages)
        page += "<div class=\"timeline\">\(svg)</div>"
        page += "<pre id=\"details\">Hover over or click a toast or a drop to see its fields and its trace.</pre>"
        page += "<script>\(Self.script)</script></body></html>\n"
        out.appendUTF8(page)
    }

    private func axis(start: Microseconds, end: Microseconds, height: Int, x: (Microseconds) -> Int) -> String {
        let seconds = StreamTime.seconds(end - start)
        let steps: [Double] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400]
        let step = steps.first { seconds / $0 <= 20 } ?? 86400 * (seconds / 86400 / 20).rounded(.up)
        var text = ""
        // Ticks on whole multiples of the step, from the first one in the run.
        var tick = (StreamTime.seconds(start) / step).rounded(.up) * step
        while tick <= StreamTime.seconds(end) + 1e-9 {
            let time = Microseconds((tick * 1_000_000).rounded())
            text += "<line class=\"tick\" x1=\"\(x(time))\" y1=\"\(Self.axisHeight - 6)\" x2=\"\(x(time))\" y2=\"\(height)\"/>"
            text += "<text class=\"tick\" x=\"\(x(time))\" y=\"14\">\(StreamTime.format(time)) s</text>"
            tick += step
        }
        return text
    }

    private func depthChart(top: Int, end: Microseconds, x: (Microseconds) -> Int) -> String {
        let highest = max(1, depth.map(\.waiting).max() ?? 0)
        let bottom = top + Self.depthHeight
        func level(_ waiting: Int) -> Int { bottom - waiting * Self.depthHeight / highest }
        var points = "\(x(firstTime ?? 0)),\(bottom)"
        var current = 0
        for point in depth {
            points += " \(x(point.time)),\(level(current)) \(x(point.time)),\(level(point.waiting))"
            current = point.waiting
        }
        points += " \(x(end)),\(level(current))"
        return "<text class=\"lane\" x=\"8\" y=\"\(top + 14)\">waiting (max \(highest))</text>"
            + "<polyline class=\"depth\" points=\"\(points)\"/>"
    }

    private func summary(start: Microseconds, end: Microseconds) -> String {
        let dropped = dropCounts.reduce(0) { $0 + $1.count }
        var text = "<p class=\"totals\">\(presentedCount) presented, \(dropped) dropped"
        if !dropCounts.isEmpty {
            text += " (" + dropCounts.map { "\($0.count) by \(html($0.name))" }.joined(separator: ", ") + ")"
        }
        if !dismissCounts.isEmpty {
            text += "; dismissed by " + dismissCounts.map { "\(html($0.name)) \($0.count)" }.joined(separator: ", ")
        }
        text += "; from \(StreamTime.format(firstTime ?? 0)) s to \(StreamTime.format(lastTime)) s.</p>"
        if let windowEnd {
            text += "<p class=\"window\">The run is too long to draw toast by toast: the timeline shows the first "
                + "\(bars.count) presented toasts and \(marks.count) drops, up to \(StreamTime.format(windowEnd)) s. "
                + "The totals above count the whole run.</p>"
        }
        return text
    }

    private func legend(dropStages: [String]) -> String {
        var roles: [(String, String, String)] = []
        for bar in bars where !roles.contains(where: { $0.0 == bar.toast.role }) {
            roles.append((bar.toast.role, bar.toast.style?.glyph ?? "", Self.cssColor(bar.toast.style?.color)))
        }
        var text = "<ul class=\"legend\">"
        for (role, glyph, color) in roles {
            text += "<li><span class=\"swatch\" style=\"background:\(color)\"></span>\(html(glyph)) \(html(role))</li>"
        }
        if !dropStages.isEmpty { text += "<li><span class=\"mark\">◆</span> a dropped toast, in its stage's lane</li>" }
        text += "<li><span class=\"line\"></span> toasts waiting in line</li></ul>"
        return text
    }

    /// The tooltip and details panel of a toast: its fields, then its trace (one line each:
    /// a line break from the input is shown as `\n`).
    private func details(of toast: Toast, trace: [String]) -> String {
        var lines = ["id: \(visible(toast.id))", "message: \(visible(toast.message))"]
        if let subtitle = toast.subtitle { lines.append("subtitle: \(visible(subtitle))") }
        lines.append("role: \(visible(toast.role))")
        if let source = toast.source { lines.append("source: \(visible(source))") }
        lines.append("placement: \(toast.placement.rawValue), policy: \(toast.policy.rawValue), priority: \(toast.priority ?? 0)")
        lines.append("duration: " + (toast.durationMicros.map { StreamTime.format($0) + " s" } ?? "none (sticky)"))
        if !toast.extra.isEmpty { lines.append("extra: " + visible(JSONText.encode(.object(toast.extra)))) }
        if let announcement = toast.announcement { lines.append("announcement: \(visible(announcement))") }
        if toast.inputLine > 0 { lines.append("input line: \(toast.inputLine)") }
        if !trace.isEmpty { lines += ["", "trace:"] + trace }
        return lines.joined(separator: "\n")
    }

    /// `text` cut to about `length` narrow characters (a wide one, as in CJK, counts two).
    private func shortened(_ text: String, to length: Int) -> String {
        var used = 0
        var result = ""
        for character in text {
            let width = character.unicodeScalars.first.map { $0.value >= 0x2E80 ? 2 : 1 } ?? 1
            if used + width > length - 1 {
                return result + "…"
            }
            used += width
            result.append(character)
        }
        return result
    }

    /// Text from the input with control, bidi and line-breaking characters shown as escapes
    /// (`\n`, `\u202e`), as on a terminal: so a message cannot reorder or spoof the page's text.
    private func visible(_ text: String) -> String {
        TerminalText.escaped(text, keepingTabs: true)
    }

    /// Text for HTML: made `visible`, then `&`, `<`, `>` and quotes as entities. `multiline`
    /// keeps the line breaks of text this page composed (each line made visible on its own).
    private func html(_ text: String, multiline: Bool = false) -> String {
        let shown = multiline ? text.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)) }
            .joined(separator: "\n") : visible(text)
        var result = ""
        for character in shown.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A role's color as CSS: a plain color name or `#hex` as it is, anything else gray (a
    /// color is script text; it must not become a `url(…)` or break out of its attribute).
    static func cssColor(_ color: String?) -> String {
        guard let color, !color.isEmpty, color.count <= 32 else { return "gray" }
        let isName = color.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        let isHex = color.hasPrefix("#") && color.count <= 9
            && color.dropFirst().unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
        return isName || isHex ? color : "gray"
    }

    private static let style = """
        body{font:14px system-ui,sans-serif;margin:16px;color:#222}h1{font-size:18px;margin:0 0 8px}
        .timeline{overflow-x:auto;border:1px solid #ddd}svg text{font-size:12px}
        text.lane{fill:#555}text.tick{fill:#777;text-anchor:middle}line.tick{stroke:#eee}
        .toast rect{stroke:#fff}.toast text.message{fill:#fff;pointer-events:none}
        .toast text.reason{fill:#000;opacity:.6;text-anchor:end;font-size:10px}
        .toast:hover rect,.toast:focus rect,.drop:hover path,.drop:focus path{stroke:#000;stroke-width:2}
        .drop path{fill:#c33}.depth{fill:none;stroke:#36c;stroke-width:1.5}
        .legend{list-style:none;padding:0;display:flex;gap:16px;flex-wrap:wrap}
        .swatch{display:inline-block;width:14px;height:14px;border-radius:3px;margin-right:4px;vertical-align:middle}
        .mark{color:#c33}.line{display:inline-block;width:18px;border-top:2px solid #36c;vertical-align:middle}
        #details{background:#f6f6f6;padding:8px;white-space:pre-wrap;min-height:3em}.window{color:#a50}
        """

    private static let script = """
        for(const e of document.querySelectorAll('.toast,.drop')){const t=e.querySelector('title');
        const show=()=>{document.getElementById('details').textContent=t.textContent};
        e.addEventListener('mouseenter',show);e.addEventListener('click',show);e.addEventListener('focus',show)}
        """
}
