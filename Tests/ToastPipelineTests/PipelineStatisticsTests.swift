import Testing
@testable import ToastCore

/// The run's counts: each dismissal reason counted under its own name.
@Suite struct PipelineStatisticsTests {
    @Test func everyDismissReasonIsCountedUnderItsOwnName() {
        var counts = PipelineStatistics.DismissCounts()
        for (number, reason) in DismissReason.allCases.enumerated() {
            #expect(reason.place == number)
            for _ in 0...number { counts.add(reason) }
        }
        let expected = Dictionary(uniqueKeysWithValues: DismissReason.allCases.enumerated().map { ($1.rawValue, $0 + 1) })
        #expect(counts.byReason == expected)
        #expect(PipelineStatistics.DismissCounts().byReason.isEmpty)
    }
}
