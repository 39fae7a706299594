import Foundation
import Testing
import ToastPipeline
import ToastPipelineTesting
@testable import CustomStages

/// The two example stages, through the stage harness and through the whole command.
@Suite struct CustomStagesTests {
    static let hour = 3_600.0
    /// 2025-11-28 00:00 UTC.
    static let midnight = 1_764_288_000.0

    func quietHours(_ lua: String) throws -> QuietHoursStage {
        let runtime = try LuaRuntime(registry: .withCustomStages)
        try runtime.load(source: "config{ quiet_hours = \(lua) }", name: "test")
        let table = SettingsReader(runtime.settings.stageTables["quiet_hours"] ?? ConfigTable(), path: "quiet_hours")
        return QuietHoursStage(settings: try .init(table, roles: runtime.settings.roles))
    }

    @Test func quietHoursDropsOutsideKeptRolesAndSumsUpAtTheEnd() throws {
        let harness = StageHarness(stages: [("quiet_hours", try quietHours("{ from = 22, to = 7 }"))])
        harness.show(Toast(id: "day", message: "Lunch"), at: Self.midnight + 12 * Self.hour)
        harness.show(Toast(id: "n1", message: "Like"), at: Self.midnight + 23 * Self.hour)
        harness.show(Toast(id: "n2", message: "Disk", role: "error"), at: Self.midnight + 24 * Self.hour)
        harness.show(Toast(id: "n3", message: "Comment"), at: Self.midnight + 30 * Self.hour)
        #expect(harness.finish() == [])
        let lines = harness.log.jsonLines
        #expect(lines.contains(#"{"event":"drop","t":1764370800,"id":"n1","stage":"quiet_hours","reason":"quiet_hours"}"#))
        #expect(lines.contains { $0.contains(#""t":1764374400,"id":"n2""#) && $0.contains("present") })
        #expect(lines.contains { $0.contains(#""t":1764399600,"id":"e1","message":"2 notifications during quiet hours""#) })
        #expect(lines.filter { $0.contains("quiet hours") && $0.contains("present") }.count == 1)
    }

    @Test func downgradeLetsToastsThroughQuietly() throws {
        let harness = StageHarness(stages: [("quiet_hours", try quietHours("{ from = 1, to = 2, mode = 'downgrade' }"))])
        harness.show(Toast(id: "a", message: "Ping"), at: Self.midnight + 1.5 * Self.hour)
        #expect(harness.finish() == [])
        #expect(harness.log.jsonLines.first?.contains(#""placement":"bottom","policy":"enqueue","priority":-9223372036854775808,"duration":2"#) == true)
    }

    @Test func settingsMistakesAreReportedAtTheConfigCall() throws {
        let cases = [
            ("config{ quiet_hours = { from = 25 } }", "test:1: config: quiet_hours.from and quiet_hours.to are hours, 0 to 23"),
            ("config{ quiet_hours = { mode = 'mute' } }", "test:1: config: quiet_hours.mode must be \"drop\" or \"downgrade\", not \"mute\""),
            ("config{ quiet_hours = { keep = 'error' } }", "test:1: config: quiet_hours.keep must be a list of strings, not a string"),
            ("config{ escalate = { count = 0 } }", "test:1: config: escalate.count must be a whole number ≥ 1, not 0"),
            ("config{ escalate = { to = 'panic' } }", "test:1: config: escalate.to: unknown role \"panic\" (define it before this config call)"),
            ("config{ escalate = 3 }", "test:1: config: escalate must be a table of settings, not a number"),
        ]
        for (source, message) in cases {
            let runtime = try LuaRuntime(registry: .withCustomStages)
            #expect(throws: ScriptLoadError(message: message)) { try runtime.load(source: source, name: "test") }
        }
    }

    @Test func escalateTurnsTheNthWarningOfASourceIntoAnError() throws {
        let runtime = try LuaRuntime(registry: .withCustomStages)
        try runtime.load(source: "config{ escalate = { count = 2, window = 10 } }", name: "test")
        let table = SettingsReader(runtime.settings.stageTables["escalate"] ?? ConfigTable(), path: "escalate")
        let stage = EscalateStage(settings: try .init(table, roles: runtime.settings.roles))
        let harness = StageHarness(stages: [("escalate", stage), ("style", StyleStage())])
        harness.show(Toast(id: "w1", message: "Hot", role: "warning", source: "cpu"), at: 0)
        harness.show(Toast(id: "w2", message: "Wet", role: "warning", source: "disk"), at: 5)
        harness.show(Toast(id: "w3", message: "Hotter", role: "warning", source: "cpu"), at: 9)
        harness.show(Toast(id: "w4", message: "Hottest", role: "warning", source: "cpu"), at: 30)
        #expect(harness.finish() == [])
        let roles = harness.log.records.compactMap { record -> String? in
            if case .present(let toast, _, _) = record { return "\(toast.id):\(toast.role)" }
            return nil
        }
        #expect(roles == ["w1:warning", "w2:warning", "w3:error", "w4:warning"])
    }

    @Test func theCustomCommandRunsTheExampleAsExpected() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let events = try Data(contentsOf: directory.appendingPathComponent("examples/night.jsonl"))
        let output = MemorySink()
        var errors: [String] = []
        let environment = CommandEnvironment(standardInput: MemorySource(Array(events)), standardOutput: output,
                                             writeError: { errors.append($0) })
        let status = Toastscript.run(arguments: ["--format", "json", directory.appendingPathComponent("examples/night.lua").path],
                                     environment: environment, registry: .withCustomStages)
        let expected = try String(contentsOf: directory.appendingPathComponent("examples/night.expected"), encoding: .utf8)
        #expect(status == 0)
        #expect(errors == [])
        #expect(output.text == expected)
    }
}
