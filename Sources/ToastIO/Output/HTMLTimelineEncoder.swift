import ToastCore

/// `--format html`: the run drawn as one self-contained page (inline CSS and SVG, a few lines
/// of inline JavaScript, nothing fetched), written when the run ends.
///
/// The timeline has a time axis, a lane per placement and visible slot with one bar per
/// presented toast (`class="toast"`, `data-id`) from present to dismiss in its role's color,
/// its glyph and message, and the dismissal reason at its end; a lane per stage that dropped
/// toasts with one mark per drop (`class="drop"`, `data-id`) in the dropped toast's role's
/// color (a dropped error stands out), and the count where several fall on one spot; and the
/// waiting line's depth over time, with its scale. Hovering or clicking an element shows the
/// toast's fields, full message and trace. Text that does not fit is cut with an ellipsis.
///
/// With screens on, each of the first `drawnScreens` screens (in the order they appeared) has
/// its own lanes, labelled with its name: its toasts, its drops (of every stage) and its
/// waiting line; the page says how many screens it leaves out, and the totals count them all.
///
/// A run of any span stays readable (`TimelineScale`): idle stretches are cut out and drawn as
/// breaks labelled with the time they skip, the drawing is at most 16,000 pixels wide, and
/// a log's own timestamps label the axis as times of day, with the date where it changes. At
/// most `limit` bars and `limit` drop marks are drawn: past that the timeline ends (the page
/// says where), and the totals still count the whole run.
package final class HTMLTimelineEncoder: RecordEncoder {
    package let title: String
    package let limit: Int
    /// How times are shown: seconds, or dates and times for a log's own timestamps.
    package let time: TimeDisplay

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
    /// With screens on, the screens in the order their first record came (their labels).
    private var screens: [String] = []
    /// At most this many screens get lanes of their own.
    static let drawnScreens = 8
    /// Toasts a stage held: from when, by which stage; closed when released or dropped.
    private var holding: [String: (since: Microseconds, stage: String)] = [:]
    private var holds: [(id: String, stage: String, start: Microseconds, end: Microseconds, released: Bool)] = []
    /// Bars still on screen, by id (the latest presented with that id last).
    private var openBars: [String: [Int]] = [:]
    private var marks: [Mark] = []
    /// Trace lines of toasts not ended yet, by id.
    private var pendingTrace: [String: [String]] = [:]
    /// The waiting line's length after each host decision in the window, by screen (`""`
    /// with screens off).
    private var depth: [String: [(time: Microseconds, waiting: Int)]] = [:]
    /// The colors of the roles, for drops (a toast dropped before the style stage has none of
    /// its own).
    private let roles: RoleTable
    /// Where the drawing stops, once `limit` was reached.
    private var windowEnd: Microseconds?
    private var firstTime: Microseconds?
    private var lastTime: Microseconds = 0
    private var presentedCount = 0
    /// Drops by stage and dismissals by reason over the whole run, in the order first seen.
    private var dropCounts: [(name: String, count: Int)] = []
    private var dismissCounts: [(name: String, count: Int)] = []

    package init(title: String, limit: Int = 2_000, time: TimeDisplay = TimeDisplay(), roles: RoleTable = .builtIn) {
        self.title = title
        self.limit = limit
        self.time = time
        self.roles = roles
    }

    // MARK: Collecting

    package func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        let time = record.time
        see(time)
        let toast = record.toast
        if let screen = toast.screenKey?.label, !screens.contains(screen) { screens.append(screen) }
        let barKey = (toast.screenKey?.label ?? "") + toast.id
        switch record {
        case .present:
            presentedCount += 1
            if windowEnd == nil && bars.count >= limit { windowEnd = time }
            guard windowEnd == nil else {
                pendingTrace[toast.id] = nil
                return false
            }
            openBars[barKey, default: []].append(bars.count)
            bars.append(Bar(toast: toast, start: time, trace: pendingTrace[toast.id] ?? []))
        case .dismiss(_, _, let reason, _):
            count(&dismissCounts, reason.rawValue)
            let trace = pendingTrace.removeValue(forKey: toast.id) ?? []
            if let index = openBars[barKey]?.popLast() {
                bars[index].end = time
                bars[index].reason = reason.rawValue
                bars[index].trace = trace
                if openBars[barKey]?.isEmpty == true { openBars[barKey] = nil }
            }
        case .drop(_, _, let drop):
            if let hold = holding.removeValue(forKey: toast.id), windowEnd == nil {
                holds.append((toast.id, hold.stage, hold.since, time, false))
            }
            count(&dropCounts, drop.stage)
            let trace = pendingTrace.removeValue(forKey: toast.id) ?? []
            if windowEnd == nil && marks.count >= limit { windowEnd = time }
            guard windowEnd == nil else { return false }
            var label = drop.rule.map { "rule \(quoted($0))" } ?? "\(drop.stage): \(drop.reason.rawValue)"
            if let of = drop.of { label += " of \(of)" }
            if let by = drop.by { label += " by \(by)" }
            if let into = drop.into { label += " into \(into)" }
            if let note = drop.note { label += ": \(note)" }
            marks.append(Mark(toast: toast, time: time, stage: drop.stage, label: label, trace: trace))
        }
        return false
    }

    package func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool {
        see(trace.time)
        switch trace.verdict {
        case .held: holding[trace.toast.id] = (trace.time, trace.stage)
        case .released:
            if let hold = holding.removeValue(forKey: trace.toast.id), windowEnd == nil {
                holds.append((trace.toast.id, hold.stage, hold.since, trace.time, true))
            }
        default: break
        }
        if trace.stage == "host", windowEnd == nil, case .integer(let waiting)? = trace.detail("waiting") {
            let screen = trace.toast.screenKey?.label ?? ""
            var points = depth.removeValue(forKey: screen) ?? []
            if let last = points.last, last.time == trace.time {
                points[points.count - 1].waiting = Int(waiting)
            } else if points.last?.waiting != Int(waiting) {
                points.append((trace.time, Int(waiting)))
            }
            depth[screen] = points
        }
        let line = time.moment(trace.time) + "  " + TextRecordEncoder.sentence(for: trace)
        let barKey = (trace.toast.screenKey?.label ?? "") + trace.toast.id
        if windowEnd == nil || openBars[barKey] != nil {
            pendingTrace[trace.toast.id, default: []].append(line)
        }
        if let indices = openBars[barKey], let index = indices.last {
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
    /// The widest the page's drawing may be, in pixels.
    static let maxWidth = 16_000
    /// Labels on the time axis are at least this far apart, in pixels.
    private static let labelSpacing = 96.0

    package func finish(into out: inout ByteBuffer) {
        let start = firstTime ?? 0
        let drawnEnd = bars.compactMap(\.end).max() ?? start
        let end = max(windowEnd ?? lastTime, drawnEnd, start + StreamTime.perSecond)
        let scale = TimelineScale(busy: busyStretches(end: end), start: start, end: end,
                                  maxWidth: Double(Self.maxWidth - Self.leftMargin - 20))
        func x(_ time: Microseconds) -> Int { Self.leftMargin + Int(scale.x(time).rounded()) }
        let width = Int(scale.width.rounded(.up))

        // Lanes: per screen (with screens on) and placement, the lowest slot free when the toast
        // was presented.
        let drawn = Array(screens.prefix(Self.drawnScreens))
        var lanes: [(placement: String, slotEnds: [Microseconds])] = []
        let screenPrefixes = drawn.isEmpty ? [""] : drawn.map { $0 + " " }
        for (screen, placement) in screenPrefixes.flatMap({ screen in ["top", "center", "bottom"].map { (screen, $0) } }) {
            var slotEnds: [Microseconds] = []
            for index in bars.indices where laneName(bars[index].toast) == screen + placement {
                let barEnd = bars[index].end ?? end
                if let free = slotEnds.firstIndex(where: { $0 <= bars[index].start }) {
                    slotEnds[free] = barEnd
                    bars[index].lane = free
                } else {
                    bars[index].lane = slotEnds.count
                    slotEnds.append(barEnd)
                }
            }
            if !slotEnds.isEmpty { lanes.append((screen + placement, slotEnds)) }
        }
        var laneTop: [String: Int] = [:]
        var y = Self.axisHeight
        var labels = ""
        for lane in lanes {
            laneTop[lane.placement] = y
            for slot in lane.slotEnds.indices {
                labels += "<text class=\"lane\" x=\"8\" y=\"\(y + slot * Self.laneHeight + 17)\">\(html(lane.placement)) \(slot + 1)</text>"
            }
            y += lane.slotEnds.count * Self.laneHeight
        }
        // Drops: a lane per stage; with screens on, a lane per screen (each mark names its stage).
        let dropStages = marks.reduce(into: [String]()) { if !$0.contains($1.stage) { $0.append($1.stage) } }
        let dropLanes = drawn.isEmpty ? dropStages : drawn.filter { screen in marks.contains { dropLane($0) == screen } }
        var dropTop: [String: Int] = [:]
        for lane in dropLanes {
            dropTop[lane] = y
            labels += "<text class=\"lane\" x=\"8\" y=\"\(y + 17)\">\(html(Self.cut(drawn.isEmpty ? "drops: \(lane)" : "\(lane) drops")))</text>"
            y += Self.laneHeight
        }
        let holdStages = holds.reduce(into: [String]()) { if !$0.contains($1.stage) { $0.append($1.stage) } }
        var holdTop: [String: Int] = [:]
        for stage in holdStages {
            holdTop[stage] = y
            labels += "<text class=\"lane\" x=\"8\" y=\"\(y + 17)\">held: \(html(stage))</text>"
            y += Self.laneHeight
        }
        // The waiting line: one chart; with screens on, a smaller one per screen.
        let depthLanes = drawn.isEmpty ? [""] : drawn.filter { depth[$0] != nil }
        let chartHeight = drawn.isEmpty ? Self.depthHeight : Self.laneHeight * 2
        var depthTop: [String: Int] = [:]
        for lane in depthLanes {
            depthTop[lane] = y + 8
            y += chartHeight + 8
        }
        let height = y + 8

        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width + Self.leftMargin + 20)\" height=\"\(height)\">"
        svg += breaks(scale, height: height)
        svg += axis(scale, height: height)
        svg += labels
        for bar in bars {
            guard let laneTop = laneTop[laneName(bar.toast)] else { continue }
            let top = laneTop + bar.lane * Self.laneHeight
            let left = x(bar.start)
            let right = max(left + 3, x(bar.end ?? end))
            let color = Self.cssColor(bar.toast.style?.color)
            let glyph = bar.toast.style?.glyph ?? ""
            svg += "<g class=\"toast\" data-id=\"\(html(bar.toast.id))\" data-role=\"\(html(bar.toast.role))\" tabindex=\"0\">"
            svg += "<title>\(html(details(of: bar.toast, trace: bar.trace), multiline: true))</title>"
            svg += "<rect x=\"\(left)\" y=\"\(top + 2)\" width=\"\(right - left)\" height=\"\(Self.laneHeight - 4)\" rx=\"4\" fill=\"\(color)\"/>"
            // About 7 pixels a character: the message and the reason are cut to fit the bar
            // (the whole message is in the tooltip and the details panel).
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
        var clusters: [(stage: String, x: Int, count: Int)] = []
        for mark in marks {
            guard let top = dropTop[dropLane(mark)] else { continue }
            let left = x(mark.time)
            let color = Self.cssColor(mark.toast.style?.color ?? roles.appliedStyle(of: mark.toast.role).color)
            svg += "<g class=\"drop\" data-id=\"\(html(mark.toast.id))\" data-stage=\"\(html(mark.stage))\" "
                + "data-role=\"\(html(mark.toast.role))\" tabindex=\"0\">"
            svg += "<title>\(html("dropped: \(visible(mark.label))\n" + details(of: mark.toast, trace: mark.trace), multiline: true))</title>"
            svg += "<path d=\"M\(left) \(top + 5) l5 8 l-5 8 l-5 -8 z\" fill=\"\(color)\"/></g>"
            // Drops closer than a mark's width fall on one spot: counted there.
            if let index = clusters.lastIndex(where: { $0.stage == dropLane(mark) }), left - clusters[index].x < 10 {
                clusters[index].count += 1
            } else {
                clusters.append((dropLane(mark), left, 1))
            }
        }
        for cluster in clusters where cluster.count > 1 {
            guard let top = dropTop[cluster.stage] else { continue }
            svg += "<text class=\"count\" x=\"\(cluster.x + 7)\" y=\"\(top + 11)\">\(cluster.count)</text>"
        }
        for hold in holds {
            let top = holdTop[hold.stage] ?? 0
            let left = x(hold.start)
            let right = max(left + 3, x(hold.end))
            let outcome = hold.released ? "released" : "dropped"
            let title = "\(hold.id) held by \(hold.stage) for \(StreamTime.format(hold.end - hold.start)) s, then \(outcome)"
            svg += "<g class=\"held\" data-id=\"\(html(hold.id))\"><title>\(html(title))</title>"
            svg += "<rect x=\"\(left)\" y=\"\(top + 8)\" width=\"\(right - left)\" height=\"10\" rx=\"3\"/></g>"
        }
        for lane in depthLanes {
            svg += depthChart(depth[lane] ?? [], label: lane.isEmpty ? "waiting" : Self.cut("\(lane) waiting"),
                              top: depthTop[lane] ?? y, height: chartHeight, end: end, x: x)
        }
        svg += "</svg>"

        var page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        page += "<title>\(html(title))</title><style>\(Self.style)</style></head><body>"
        page += "<h1>\(html(title))</h1>"
        page += summary(start: start, end: end)
        if screens.count > drawn.count {
            let left = screens.count - drawn.count
            page += "<p class=\"window\">\(screens.count) screens: the first \(drawn.count) to appear have lanes here; "
                + "the toasts of the other \(left) are left out of the drawing (the totals count them).</p>"
        }
        page += legend(dropStages: dropStages, breaks: !scale.breaks.isEmpty)
        page += "<div class=\"timeline\">\(svg)</div>"
        // The panel opens on the first toast shown, so a still picture of the page shows one.
        let opening = bars.first.map { details(of: $0.toast, trace: $0.trace) }
            ?? "Hover over or click a toast or a drop to see its fields and its trace."
        page += "<pre id=\"details\">\(html(opening, multiline: true))</pre>"
        page += "<script>\(Self.script)</script></body></html>\n"
        out.appendUTF8(page)
    }

    /// The lane a drop mark goes in: its stage's, or with screens on its screen's.
    private func dropLane(_ mark: Mark) -> String {
        screens.isEmpty ? mark.stage : (mark.toast.screenKey?.label ?? "")
    }

    /// A lane's label, cut with an ellipsis to fit the margin (the whole name is in the
    /// details of every element in the lane).
    static func cut(_ label: String, to length: Int = 17) -> String {
        label.count <= length ? label : String(label.prefix(length - 1)) + "…"
    }

    /// The lane group a bar goes in: its placement, after its screen with screens on.
    private func laneName(_ toast: Toast) -> String {
        (toast.screenKey.map { $0.label + " " } ?? "") + toast.placement.rawValue
    }

    /// The stretches in which something is drawn: bars, drops, and a waiting line.
    private func busyStretches(end: Microseconds) -> [(start: Microseconds, end: Microseconds)] {
        var stretches = bars.map { ($0.start, $0.end ?? end) } + marks.map { ($0.time, $0.time) }
            + holds.map { ($0.start, $0.end) }
        for points in depth.values {
            var waitingSince: Microseconds?
            for point in points {
                if point.waiting > 0, waitingSince == nil { waitingSince = point.time }
                if point.waiting == 0, let since = waitingSince {
                    stretches.append((since, point.time))
                    waitingSince = nil
                }
            }
            if let since = waitingSince { stretches.append((since, end)) }
        }
        return stretches
    }

    /// The cut-out stretches: a pale band with the time it skips.
    private func breaks(_ scale: TimelineScale, height: Int) -> String {
        var text = ""
        for cut in scale.breaks {
            let left = Self.leftMargin + Int(cut.x.rounded())
            let middle = left + Int(cut.width / 2)
            text += "<g class=\"break\"><rect x=\"\(left)\" y=\"0\" width=\"\(Int(cut.width.rounded()))\" height=\"\(height)\"/>"
            text += "<text x=\"\(middle)\" y=\"\(Self.axisHeight + 6)\" transform=\"rotate(90 \(middle) \(Self.axisHeight + 6))\">"
                + "\(html(SpanText.describe(cut.skipped))) skipped</text></g>"
        }
        return text
    }

    /// Ticks at whole steps within each drawn stretch, labelled as times: seconds, or the
    /// time of day of a log's own timestamps with the date where it changes.
    private func axis(_ scale: TimelineScale, height: Int) -> String {
        let steps: [Double] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                               21600, 43200, 86400]
        let least = Self.labelSpacing / scale.pixelsPerSecond
        let step = steps.first { $0 >= least } ?? 86400 * (least / 86400).rounded(.up)
        var text = ""
        var lastLabel = -Double.infinity
        var lastDate: String?
        func label(_ moment: Microseconds, at position: Double) {
            guard position - lastLabel >= Self.labelSpacing else { return }
            lastLabel = position
            let x = Self.leftMargin + Int(position.rounded())
            text += "<line class=\"tick\" x1=\"\(x)\" y1=\"\(Self.axisHeight - 6)\" x2=\"\(x)\" y2=\"\(height)\"/>"
            text += "<text class=\"tick\" x=\"\(x)\" y=\"14\">\(html(axisLabel(moment, step: step, lastDate: &lastDate)))</text>"
        }
        for segment in scale.segments {
            var tick = (StreamTime.seconds(segment.start) / step).rounded(.up) * step
            var labelled = false
            while tick <= StreamTime.seconds(segment.end) + 1e-9 {
                let moment = Microseconds((tick * 1_000_000).rounded())
                let before = lastLabel
                label(moment, at: scale.x(moment))
                labelled = labelled || lastLabel != before
                tick += step
            }
            // A stretch too short for a whole step still says when it is.
            if !labelled { label(segment.start, at: segment.x) }
        }
        return text
    }

    /// `12 s`; for a log's own timestamps (or the wall clock) `14:36`, `14:36:25` or
    /// `14:36:25.500` as fine as `step` needs, with the date first where it changes.
    private func axisLabel(_ moment: Microseconds, step: Double, lastDate: inout String?) -> String {
        let absolute = time.timeOfDayOrigin.map { $0 + moment } ?? (TimeDisplay.isEpochTime(moment) ? moment : nil)
        guard let absolute else { return StreamTime.format(moment) + " s" }
        let clock = step < 1 ? time.timeOfDay(absolute) : time.shortTimeOfDay(absolute)
        let date = time.date(absolute)
        defer { lastDate = date }
        return date == lastDate ? clock : date + " " + clock
    }

    private func depthChart(_ depth: [(time: Microseconds, waiting: Int)], label: String, top: Int, height: Int,
                            end: Microseconds, x: (Microseconds) -> Int) -> String {
        let highest = max(1, depth.map(\.waiting).max() ?? 0)
        let bottom = top + height
        func level(_ waiting: Int) -> Int { bottom - waiting * height / highest }
        var points = "\(x(firstTime ?? 0)),\(bottom)"
        var current = 0
        for point in depth {
            points += " \(x(point.time)),\(level(current)) \(x(point.time)),\(level(point.waiting))"
            current = point.waiting
        }
        points += " \(x(end)),\(level(current))"
        // The scale: the most that waited at once, and none.
        let right = x(end)
        return "<text class=\"lane\" x=\"8\" y=\"\(top + 14)\">\(html(label))</text>"
            + "<line class=\"grid\" x1=\"\(Self.leftMargin)\" y1=\"\(level(highest))\" x2=\"\(right)\" y2=\"\(level(highest))\"/>"
            + "<line class=\"grid\" x1=\"\(Self.leftMargin)\" y1=\"\(bottom)\" x2=\"\(right)\" y2=\"\(bottom)\"/>"
            + "<text class=\"scale\" x=\"\(Self.leftMargin - 6)\" y=\"\(level(highest) + 4)\">\(highest)</text>"
            + "<text class=\"scale\" x=\"\(Self.leftMargin - 6)\" y=\"\(bottom + 4)\">0</text>"
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
        text += "; from \(html(time.moment(firstTime ?? 0))) to \(html(time.moment(lastTime))).</p>"
        if let windowEnd {
            text += "<p class=\"window\">The run is too long to draw toast by toast: the timeline shows the first "
                + "\(bars.count) presented toasts and \(marks.count) drops, up to \(html(time.moment(windowEnd))). "
                + "The totals above count the whole run.</p>"
        }
        return text
    }

    private func legend(dropStages: [String], breaks: Bool) -> String {
        var roles: [(String, String, String)] = []
        for bar in bars where !roles.contains(where: { $0.0 == bar.toast.role }) {
            roles.append((bar.toast.role, bar.toast.style?.glyph ?? "", Self.cssColor(bar.toast.style?.color)))
        }
        for mark in marks where !roles.contains(where: { $0.0 == mark.toast.role }) {
            let style = self.roles.appliedStyle(of: mark.toast.role)
            roles.append((mark.toast.role, mark.toast.style?.glyph ?? style.glyph, Self.cssColor(mark.toast.style?.color ?? style.color)))
        }
        var text = "<ul class=\"legend\">"
        for (role, glyph, color) in roles {
            text += "<li><span class=\"swatch\" style=\"background:\(color)\"></span>\(html(glyph)) \(html(role))</li>"
        }
        if !dropStages.isEmpty {
            text += "<li><span class=\"mark\">◆</span> a dropped toast, in its role's color, in its "
                + (screens.isEmpty ? "stage's" : "screen's") + " lane (a number: several at one spot)</li>"
        }
        text += "<li><span class=\"line\"></span> toasts waiting in line</li>"
        if breaks { text += "<li><span class=\"cut\"></span> a stretch with nothing to draw, cut out</li>" }
        text += "</ul>"
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
        lines.append("came in: " + time.moment(toast.atMicros))
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
        .toast text.reason{fill:#fff;opacity:.85;text-anchor:end;font-size:10px;font-style:italic}
        .toast:hover rect,.toast:focus rect,.drop:hover path,.drop:focus path{stroke:#000;stroke-width:2}
        .held rect{fill:#bbb}.depth{fill:none;stroke:#36c;stroke-width:1.5}text.count{fill:#c33;font-size:10px;font-weight:bold}
        .break rect{fill:#f2f2f2}.break text{fill:#888;font-size:11px}line.grid{stroke:#ddd;stroke-dasharray:3 3}
        text.scale{fill:#777;font-size:10px;text-anchor:end}.cut{display:inline-block;width:14px;height:14px;background:#e6e6e6;vertical-align:middle}
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
