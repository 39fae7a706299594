import ToastCore

/// Where a time goes across the HTML timeline, for runs of any span: stretches in which
/// nothing is shown, waiting or dropped are cut out and drawn as breaks of a fixed width
/// (labelled with the time they skip), and what is left is drawn at one scale, at most 60
/// pixels a second, so that the whole drawing stays within `maxWidth` pixels.
///
/// A log of a year and a half with five busy sessions becomes five readable stretches and four
/// breaks ("4 months 16 d" is not drawn as 24,000 empty pixels).
struct TimelineScale {
    /// A stretch of time drawn to scale: from `start` to `end`, at `x` pixels.
    struct Segment {
        var start: Microseconds
        var end: Microseconds
        var x: Double
        var width: Double
    }

    /// A cut-out stretch between two segments: `skipped` long, drawn at `x`, `width` wide.
    struct Break {
        var skipped: Microseconds
        var x: Double
        var width: Double
    }

    private(set) var segments: [Segment] = []
    private(set) var breaks: [Break] = []
    /// The drawing's width in pixels.
    private(set) var width: Double = 0
    /// Pixels a second within the segments.
    private(set) var pixelsPerSecond: Double = 60

    /// An idle stretch longer than this is cut out.
    static let idleCut: Microseconds = 60 * StreamTime.perSecond
    /// Room kept on each side of what is drawn.
    static let padding: Microseconds = StreamTime.perSecond
    static let breakWidth = 36.0
    /// A segment of one moment (a lone drop) still gets this much room.
    static let minimumSegmentWidth = 24.0

    /// A scale for `busy`, the stretches in which something is drawn (a bar, a drop, a
    /// waiting line), from `start` to `end`; the drawing at most `maxWidth` pixels wide.
    init(busy: [(start: Microseconds, end: Microseconds)], start: Microseconds, end: Microseconds, maxWidth: Double) {
        var stretches = busy.map { (max(start, $0.start - Self.padding), min(end, $0.end + Self.padding)) }
        if stretches.isEmpty { stretches = [(start, end)] }
        stretches.sort { $0.0 < $1.0 }
        var merged: [(Microseconds, Microseconds)] = []
        for stretch in stretches {
            if let last = merged.last, stretch.0 - last.1 <= Self.idleCut {
                merged[merged.count - 1].1 = max(last.1, stretch.1)
            } else {
                merged.append(stretch)
            }
        }
        let active = merged.reduce(0.0) { $0 + StreamTime.seconds($1.1 - $1.0) }
        var breakWidth = Self.breakWidth
        var minimum = Self.minimumSegmentWidth
        var fixed = Double(merged.count - 1) * breakWidth + Double(merged.count) * minimum
        if fixed > maxWidth * 0.8 {
            // Very many stretches: their breaks and least widths shrink together.
            let shrink = maxWidth * 0.8 / fixed
            breakWidth *= shrink
            minimum *= shrink
            fixed *= shrink
        }
        pixelsPerSecond = active > 0 ? min(60, (maxWidth - fixed) / active) : 60
        var x = 0.0
        for (index, stretch) in merged.enumerated() {
            if index > 0 {
                breaks.append(Break(skipped: stretch.0 - merged[index - 1].1, x: x, width: breakWidth))
                x += breakWidth
            }
            let width = max(minimum, StreamTime.seconds(stretch.1 - stretch.0) * pixelsPerSecond)
            segments.append(Segment(start: stretch.0, end: stretch.1, x: x, width: width))
            x += width
        }
        self.width = x
    }

    /// The x of `time`: within its segment to scale; a time in a break at the break's middle.
    func x(_ time: Microseconds) -> Double {
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].start <= time { low = middle } else { high = middle - 1 }
        }
        let segment = segments[low]
        if time < segment.start { return segment.x }
        if time > segment.end {
            return low + 1 < segments.count ? breaks[low].x + breaks[low].width / 2 : segment.x + segment.width
        }
        let span = segment.end - segment.start
        let fraction = span > 0 ? Double(time - segment.start) / Double(span) : 0.5
        return segment.x + fraction * segment.width
    }
}
