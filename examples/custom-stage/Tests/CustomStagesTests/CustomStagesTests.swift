import Foundation
import Testing
import ToastCLI
import ToastPipeline
import ToastPipelineTesting
@testable import CustomStages

/// The two example stages, through the stage harness and through the whole command.
@Suite struct CustomStagesTests {
    static let hour = Duration.seconds(3_600)
    /// 2025-11-28 00:00 UTC.
    static let midnight = Duration.seconds(1_764_288_000)

    @Test func quietHoursDropsOutsideKeptRolesAndSumsUpAtTheEnd() throws {
        let harness = try StageHarness(registry: .withCustomStages, script: """
            config{ quiet_hours = { from = 22, to = 7 }, stages = { "quiet_hours" } }
            """)
        harness.show(Toast(id: "day", message: "Lunch"), at: Self.midnight + Self.hour * 12)
        harness.show(Toast(id: "n1", message: "Like"), at: Self.midnight + Self.hour * 23)
        harness.show(Toast(id: "n2", message: "Disk", role: "error"), at: Self.midnight + Self.hour * 24)
        harness.show(Toast(id: "n3", message: "Comment"), at: Self.midnight + Self.hour * 30)
        #expect(harness.finish() == [])
        let shown = "placement=top policy=enqueue priority=0 duration=3 waited=0"
        #expect(harness.lines == [
            "t=1764331200 present id=day message=\"Lunch\" role=info \(shown)",
            "t=1764331203 dismiss id=day reason=timeout shown=3",
            "t=1764370800 drop id=n1 message=\"Like\" role=info stage=quiet_hours reason=quiet_hours",
            "t=1764374400 present id=n2 message=\"Disk\" role=error \(shown)",
            "t=1764374403 dismiss id=n2 reason=timeout shown=3",
            "t=1764396000 drop id=n3 message=\"Comment\" role=info stage=quiet_hours reason=quiet_hours",
            "t=1764399600 present id=e1 message=\"2 notifications during quiet hours\" role=info \(shown) source=\"quiet_hours\"",
            "t=1764399603 dismiss id=e1 reason=timeout shown=3",
        ])
    }

    /// A stage that holds, through the harness alone: night_hold holds toasts until the night
    /// ends; a dismiss cancels a held one; the end of a run without the drain ends the rest.
    @Test func nightHoldKeepsToastsUntilMorning() throws {
        let harness = try StageHarness(registry: .withCustomStages, script: """
            config{ night_hold = { from = 22, to = 7 }, stages = { "night_hold" } }
            """)
        harness.show(Toast(id: "n1", message: "Like"), at: Self.midnight + Self.hour * 23)
        harness.show(Toast(id: "n2", message: "Comment"), at: Self.midnight + Self.hour * 24)
        harness.show(Toast(id: "n3", message: "Share"), at: Self.midnight + Self.hour * 25)
        harness.send(.dismiss(target: "n2"), at: Self.midnight + Self.hour * 26)
        #expect(harness.finish() == [])
        let shown = "placement=top policy=enqueue priority=0 duration=3"
        // Released at 07:00, in the order they came; n2 was cancelled while held.
        #expect(harness.lines == [
            "t=1764381600 drop id=n2 message=\"Comment\" role=info stage=night_hold reason=cancelled",
            "t=1764399600 present id=n1 message=\"Like\" role=info \(shown) waited=0",
            "t=1764399603 dismiss id=n1 reason=timeout shown=3",
            "t=1764399603 present id=n3 message=\"Share\" role=info \(shown) waited=3",
            "t=1764399606 dismiss id=n3 reason=timeout shown=3",
        ])
        #expect(harness.statistics.stages.first { $0.name == "night_hold" }.map { ($0.held, $0.released) } ?? (0, 0) == (3, 2))

        let cut = try StageHarness(registry: .withCustomStages, script: """
            config{ night_hold = { from = 22, to = 7 }, stages = { "night_hold" } }
            """)
        cut.show(Toast(id: "n1", message: "Like"), at: Self.midnight + Self.hour * 23)
        #expect(cut.finish(drain: false) == [])
        #expect(cut.lines == ["t=1764370800 drop id=n1 message=\"Like\" role=info stage=night_hold reason=host_removed"])
    }

    /// `--state`: a run restarted in the night (`restart()` saves it and restores it into a new
    /// run, as `toastscript --state` does) still lets the held toasts go on in the morning, as
    /// the run that never stopped does. Without `saveState()` the restarted stage would know of
    /// no toast and release none.
    @Test func nightHoldKeepsWhatItHoldsAcrossARestart() throws {
        func run(restartingAt restart: Int?) throws -> [String] {
            let harness = try StageHarness(registry: .withCustomStages, script: """
                config{ night_hold = { from = 22, to = 7 }, stages = { "night_hold" } }
                """)
            for (index, hour) in [20, 23, 24, 25, 31, 33].enumerated() {
                if index == restart { try harness.restart() }
                harness.show(Toast(id: "n\(index)", message: "Toast \(index)"), at: Self.midnight + Self.hour * hour)
            }
            #expect(harness.finish() == [])
            return harness.lines
        }
        let whole = try run(restartingAt: nil)
        #expect(whole.filter { $0.contains("present") }.count == 6)
        for restart in 1...5 {
            #expect(try run(restartingAt: restart) == whole, "restarted before toast \(restart)")
        }
    }

    /// Plugin API 3.1 in one stage: the night's hours from the clock helpers (`clockTime`,
    /// `nextTime`), a role map setting (`release_as`, checked as roles are), a typed timer, and
    /// a held toast changed before it goes on, traced as a change.
    @Test func nightHoldReleasesAWarningAsInfoByMorning() throws {
        let harness = try StageHarness(registry: .withCustomStages, script: """
            config{ night_hold = { from = 22, to = 7, release_as = { warning = "info" } }, stages = { "night_hold" } }
            """)
        harness.show(Toast(id: "w", message: "Disk at 85 %", role: "warning"), at: Self.midnight + Self.hour * 23)
        #expect(harness.finish() == [])
        #expect(harness.lines == [
            "t=1764399600 present id=w message=\"Disk at 85 %\" role=info placement=top policy=enqueue priority=0 duration=3 waited=0",
            "t=1764399603 dismiss id=w reason=timeout shown=3",
        ])
        do {
            _ = try StageHarness(registry: .withCustomStages, script: """
                config{ night_hold = { release_as = { warning = "infoo" } }, stages = { "night_hold" } }
                """)
            Issue.record("a misspelt role was taken")
        } catch {
            #expect("\(error)".contains(#"config: night_hold.release_as.warning: unknown role "infoo"; did you mean "info"?"#), "\(error)")
        }
    }

    @Test func downgradeLetsToastsThroughQuietly() {
        var settings = QuietHoursStage.Settings()
        (settings.from, settings.to, settings.mode) = (1, 2, "downgrade")
        let harness = StageHarness(QuietHoursStage.self, settings: settings)
        harness.show(Toast(id: "a", message: "Ping"), at: Self.midnight + .seconds(5_400))
        #expect(harness.finish() == [])
        #expect(harness.records.first?.placement == "bottom")
        #expect(harness.records.first?.duration == .seconds(2))
        #expect(harness.records.first?.priority == Int.min)
    }

    @Test(arguments: [
        ("config{ quiet_hours = { from = 25 } }", "script:1: config: quiet_hours.from must be a whole number ≥ 0 and ≤ 23, not 25"),
        ("config{ quiet_hours = { mode = 'mute' } }",
         "script:1: config: quiet_hours.mode must be one of \"drop\", \"downgrade\", not \"mute\""),
        ("config{ quiet_hours = { keep = 'error' } }", "script:1: config: quiet_hours.keep must be a list of strings, not \"error\""),
        ("config{ quiet_hours = { form = 21 } }", "script:1: config: unknown setting quiet_hours.form; did you mean \"from\"?"),
        ("config{ escalate = { count = 0 } }", "script:1: config: escalate.count must be a whole number ≥ 1, not 0"),
        ("config{ escalate = { count = 2.5 } }", "script:1: config: escalate.count must be a whole number ≥ 1, not 2.5"),
        ("config{ escalate = { to = 'panic' } }",
         "script:1: config: escalate.to: unknown role \"panic\" (known: error, info, success, warning; "
            + "a role of your own is defined before this config call)"),
        ("config{ escalate = 3 }", "script:1: config: escalate must be a table of settings, not a number"),
    ])
    func settingsMistakesAreReportedAtTheConfigCall(source: String, message: String) throws {
        #expect(throws: ScriptLoadError(message: message)) { try StageHarness(registry: .withCustomStages, script: source) }
    }

    @Test func escalateTurnsTheNthWarningOfASourceIntoAnError() throws {
        let harness = try StageHarness(registry: .withCustomStages, script: """
            config{ escalate = { count = 2, window = 10 }, stages = { "escalate" } }
            """)
        harness.show(Toast(id: "w1", message: "Hot", role: "warning", source: "cpu"), at: .seconds(0))
        harness.show(Toast(id: "w2", message: "Wet", role: "warning", source: "disk"), at: .seconds(5))
        harness.show(Toast(id: "w3", message: "Hotter", role: "warning", source: "cpu"), at: .seconds(9))
        harness.show(Toast(id: "w4", message: "Hottest", role: "warning", source: "cpu"), at: .seconds(30))
        #expect(harness.finish() == [])
        let roles = harness.records.filter { $0.kind == .present }.map { "\($0.id):\($0.role ?? "")" }
        #expect(roles == ["w1:warning", "w2:warning", "w3:error", "w4:warning"])
    }

    /// However many sources pass by, it remembers about those active within one window.
    @Test func escalateKeepsItsMemoryBounded() {
        let stage = EscalateStage(settings: EscalateStage.Settings())
        let harness = StageHarness(stages: [(EscalateStage.name, stage)])
        for index in 0..<10_000 {
            harness.show(Toast(id: "w\(index)", message: "Hot", role: "warning", source: "host\(index)"),
                         at: .seconds(index))
        }
        harness.finish(drain: false)
        #expect(stage.sourcesRemembered <= 2 * 61)
    }

    /// With screens on, per_source_cap counts each screen's sources apart (`forNewScreen()`).
    @Test func perSourceCapCountsPerScreen() throws {
        let harness = try StageHarness(registry: .withCustomStages, script: """
            config{ screens = { by = 'user' }, per_source_cap = { limit = 1, window = 10 }, stages = { 'per_source_cap' } }
            """)
        for (index, user) in ["alice", "bob", "alice"].enumerated() {
            harness.show(Toast(id: "s\(index)", message: "Sync \(index)", duration: .seconds(1), source: "sync",
                               extra: [JSONMember("user", .string(user))]), at: .seconds(index))
        }
        // By 20 alice's window has passed: her source may pass again.
        harness.show(Toast(id: "s3", message: "Sync 3", duration: .seconds(1), source: "sync",
                           extra: [JSONMember("user", .string("alice"))]), at: .seconds(20))
        #expect(harness.finish() == [])
        #expect(harness.records.filter { $0.kind == .drop }.map(\.id) == ["s2"])
        #expect(harness.records.filter { $0.kind == .present }.map(\.id) == ["s0", "s1", "s3"])
    }

    /// The custom command, as `my-toastscript` runs it: its --help lists its stages, and
    /// night_hold lets the night's toast go on at seven.
    @Test func theCustomCommandHoldsAndListsItsStages() throws {
        func run(_ arguments: [String], input: String = "") -> (status: Int32, output: String) {
            let output = MemorySink()
            let environment = CommandEnvironment(standardInput: MemorySource(Array(input.utf8)), standardOutput: output,
                                                 writeError: { _ in }, programName: "my-toastscript")
            return (Toastscript.run(arguments: arguments, environment: environment, registry: .withCustomStages), output.text)
        }
        #expect(run(["--help"]).output.contains(
            "  rules debounce dedup digest rate_limit priority style announce per_source_cap shout quiet_hours escalate night_hold host\n"))
        let script = #"config{ stages = { "rules", "night_hold", "dedup", "priority", "style", "announce" } }"#
        let night = run(["--format", "json", "-e", script], input: #"{"at":1764370800,"message":"Like"}"# + "\n")
        #expect(night.status == 0)
        #expect(night.output.hasPrefix(#"{"event":"present","t":1764399600,"id":"t1","message":"Like""#))
    }

    @Test func theCustomCommandRunsTheExampleAsExpected() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let events = try Data(contentsOf: directory.appendingPathComponent("examples/night.jsonl"))
        let output = MemorySink()
        var errors: [String] = []
        let environment = CommandEnvironment(standardInput: MemorySource(Array(events)), standardOutput: output,
                                             writeError: { errors.append($0) }, programName: "my-toastscript")
        let status = Toastscript.run(arguments: ["--format", "json", directory.appendingPathComponent("examples/night.lua").path],
                                     environment: environment, registry: .withCustomStages)
        let expected = try String(contentsOf: directory.appendingPathComponent("examples/night.expected"), encoding: .utf8)
        #expect(status == 0)
        #expect(errors == [])
        #expect(output.text == expected)
    }
}
