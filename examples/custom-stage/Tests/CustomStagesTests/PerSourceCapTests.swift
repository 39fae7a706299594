import Testing
import ToastPipeline
import ToastPipelineTesting
import CustomStages

/// `per_source_cap` and `shout`, set up by a script as a user would, with exact records.
@Suite struct PerSourceCapTests {
    @Test func theFourthToastOfASourceWithinTheWindowIsDroppedAndAnErrorIsNot() throws {
        let harness = try StageHarness(registry: .withCustomStages, script: """
            config{ per_source_cap = { limit = 3, window = 10 }, stages = { "per_source_cap", "shout" } }
            """)
        for second in 0..<4 {
            harness.show(Toast(id: "s\(second)", message: "Sync \(second)", role: "warning", source: "sync"),
                         at: .seconds(second))
        }
        // Over the cap too, but an error: the cap's declared spare lets it through.
        harness.show(Toast(id: "boom", message: "Sync failed", role: "error", source: "sync"), at: .seconds(4))
        harness.show(Toast(id: "later", message: "Sync again", source: "sync"), at: .seconds(12))
        #expect(harness.finish() == [])
        #expect(harness.lines == [
            "t=0 present id=s0 message=\"Sync 0\" role=warning placement=top policy=enqueue priority=0 duration=3 waited=0 source=\"sync\"",
            "t=3 dismiss id=s0 reason=timeout shown=3",
            "t=3 present id=s1 message=\"Sync 1\" role=warning placement=top policy=enqueue priority=0 duration=3 waited=2 source=\"sync\"",
            "t=3 drop id=s3 message=\"Sync 3\" role=warning stage=per_source_cap reason=capped",
            "t=6 dismiss id=s1 reason=timeout shown=3",
            "t=6 present id=s2 message=\"Sync 2\" role=warning placement=top policy=enqueue priority=0 duration=3 waited=4 source=\"sync\"",
            "t=9 dismiss id=s2 reason=timeout shown=3",
            "t=9 present id=boom message=\"SYNC FAILED\" role=error placement=top policy=enqueue priority=0 duration=3 waited=5 source=\"sync\"",
            "t=12 dismiss id=boom reason=timeout shown=3",
            "t=12 present id=later message=\"Sync again\" role=info placement=top policy=enqueue priority=0 duration=3 waited=0 source=\"sync\"",
            "t=15 dismiss id=later reason=timeout shown=3",
        ])
    }

    @Test func aMistakeInItsSettingsIsReportedAtTheConfigCall() {
        #expect(throws: ScriptLoadError(message: "script:1: config: per_source_cap.limit must be a whole number ≥ 1, not 2.5")) {
            try StageHarness(registry: .withCustomStages, script: "config{ per_source_cap = { limit = 2.5 } }")
        }
        #expect(throws: ScriptLoadError(message: "script:1: config: unknown setting per_source_cap.windw; did you mean \"window\"?")) {
            try StageHarness(registry: .withCustomStages, script: "config{ per_source_cap = { windw = 5 } }")
        }
    }
}
