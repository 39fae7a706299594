import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// How times and spans are told to a person, and where a time goes across the HTML timeline.
@Suite struct TimeDisplayTests {
    static let utc = TimeDisplay(zone: .utc)
    static let second = StreamTime.perSecond

    @Test func streamTimesAreSecondsAndEpochTimesAreDates() {
        #expect(Self.utc.clock(3_500_000) == "3.5")
        #expect(Self.utc.moment(3_500_000) == "3.5 s")
        // 2026-11-28 09:14:02.250 UTC.
        let epoch: Microseconds = 1_795_857_242 * Self.second + 250_000
        #expect(Self.utc.clock(epoch) == "2026-11-28 09:14:02.250")
        #expect(Self.utc.moment(epoch) == "2026-11-28 09:14:02.250")
        #expect(Self.utc.shortTimeOfDay(epoch) == "09:14:02")
        #expect(Self.utc.shortTimeOfDay(1_795_857_240 * Self.second) == "09:14")
        // On the wall clock: the time of day from the origin.
        let wall = TimeDisplay(zone: .utc, timeOfDayOrigin: epoch)
        #expect(wall.clock(Self.second) == "09:14:03.250")
        #expect(wall.moment(Self.second) == "09:14:03.250")
    }

    static let spans: [(seconds: Double, text: String)] = [
        (0.5, "0.5 s"), (59, "59 s"), (60, "1 min"), (90, "1 min 30 s"), (19_200, "5 h 20 min"),
        (259_192, "3 d"), (280_800, "3 d 6 h"), (86_459, "1 d"),
    ]

    @Test func spansAreTwoUnitsRoundedToTheSmaller() {
        for (seconds, text) in Self.spans {
            #expect(SpanText.describe(StreamTime.microseconds(fromSeconds: seconds) ?? 0) == text, "\(seconds)")
        }
    }

    @Test func idleStretchesAreCutOutAndTheDrawingStaysWithinItsWidth() {
        let day = 86_400 * Self.second
        let busy: [(start: Microseconds, end: Microseconds)] = [(0, 10 * Self.second), (3 * day, 3 * day + 5 * Self.second)]
        let scale = TimelineScale(busy: busy, start: 0, end: 3 * day + 5 * Self.second, maxWidth: 16_000)
        #expect(scale.segments.count == 2)
        #expect(scale.breaks.count == 1)
        // The break skips what lies between the two stretches, padded by a second each side.
        #expect(scale.breaks.first?.skipped == 3 * day - 12 * Self.second)
        #expect(scale.width <= 16_000)
        #expect(scale.pixelsPerSecond == 60)
        // Times map in order, and a time in the break to the break's middle.
        #expect(scale.x(0) < scale.x(5 * Self.second) && scale.x(5 * Self.second) < scale.x(3 * day))
        let cut = scale.breaks[0]
        #expect(scale.x(day) == cut.x + cut.width / 2)
    }

    @Test func veryManyStretchesShrinkTheirBreaksToFit() {
        // 2,000 one-second stretches an hour apart: far more than 16,000 pixels of breaks.
        let hour = 3_600 * Self.second
        let busy = (0..<2_000).map { (start: Microseconds($0) * hour, end: Microseconds($0) * hour + Self.second) }
        let scale = TimelineScale(busy: busy, start: 0, end: 2_000 * hour, maxWidth: 16_000)
        #expect(scale.segments.count == 2_000)
        #expect(scale.width <= 16_000)
    }

    @Test func aTemplateFillsTheNamesItKnowsAndLeavesTheRest() {
        let filled = Template.fill("{count} from {group}: {unknown} {open") { name in
            switch name {
            case "count": "3"
            case "group": "ci"
            default: nil
            }
        }
        #expect(filled == "3 from ci: {unknown} {open")
    }
}
