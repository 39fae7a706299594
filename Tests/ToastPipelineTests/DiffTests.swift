import Foundation
import Testing
@testable import ToastCore
@testable import ToastPipeline
@testable import ToastCLI

/// `toastscript diff OLD NEW`: the toasts whose fate differs between two script sets, grouped,
/// with diff(1)'s exit statuses.
@Suite struct DiffTests {
    static let input = """
        {"at":0,"id":"a","message":"Build passed","role":"success"}
        {"at":1,"id":"b","message":"cache warmed","level":"debug"}
        {"at":2,"id":"c","message":"index rebuilt","level":"debug"}
        {"at":5,"id":"d","message":"Deploy failed","role":"error"}

        """

    static let quietDebug = #"rule("quiet debug", function(t) if t.level == "debug" then return false end end)"#

    @Test func aNewRuleThatDropsIsOneGroupWithIdsAndMessages() {
        let result = runCLI(["diff", "none"], input: Self.input, scripts: [Self.quietDebug])
        #expect(result.status == 1)
        #expect(result.lines == [
            #"2 toasts now dropped by rule "quiet debug""#,
            #"  b  "cache warmed"  was: shown 3 s → 6 s (timeout); now: dropped by rule "quiet debug" at 1 s"#,
            #"  c  "index rebuilt"  was: shown 9 s → 12 s (timeout); now: dropped by rule "quiet debug" at 2 s"#,
            "",
            "1 toast shown at other times",
            #"  d  "Deploy failed"  was: shown 6 s → 9 s (timeout); now: shown 5 s → 8 s (timeout)"#,
            "",
            "3 of 4 toasts differ (OLD: none, NEW: rules.lua)",
        ])
    }

    @Test func theSameFatesExitZeroAndJSONEndsInASummary() {
        let same = runCLI(["diff"], input: Self.input, scripts: [Self.quietDebug, Self.quietDebug])
        #expect(same.status == 0)
        #expect(same.lines == ["0 of 4 toasts differ (OLD: rules.lua, NEW: script2.lua)"])
        let json = runCLI(["diff", "--format", "json"], input: Self.input, scripts: [Self.quietDebug, "-- nothing"])
        #expect(json.status == 1)
        #expect(json.lines.first == #"{"event":"diff","id":"b","message":"cache warmed","change":"now shown that were dropped by rule \"quiet debug\"","old":{"fate":"dropped","t":1,"stage":"rule","reason":"rule","rule":"quiet debug"},"new":{"fate":"presented","t":3,"dismissed":6,"reason":"timeout"}}"#)
        #expect(json.lines.last == #"{"event":"diff_summary","toasts":4,"differ":3,"groups":[{"change":"now shown that were dropped by rule \"quiet debug\"","count":2},{"change":"shown at other times","count":1}]}"#)
    }

    @Test func emittedToastsMatchByMessageNotByNumber() {
        let old = #"on("present", function(t) if t.id == "a" then emit{ message = "first" } end end)"#
        let new = #"on("present", function(t) if t.id == "a" then emit{ message = "extra" }; emit{ message = "first" } end end)"#
        let result = runCLI(["diff", "--format", "json"], input: Self.input, scripts: [old, new])
        let changes = result.lines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "diff" else { return nil }
            return "\(object["id"] ?? "") \(object["change"] ?? "")"
        }
        // e1 "first" of OLD is e2 "first" of NEW, with the same fate; NEW's e1 "extra" is new.
        #expect(changes == ["e1 only in NEW, dropped by the host (evicted)"])
    }

    @Test func aDirectoryLoadsItsScriptsInNameOrder() throws {
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try "config{ queue = { duration = 1 } }".write(toFile: directory + "/a.lua", atomically: true, encoding: .utf8)
        try "config{ queue = { duration = 2 } }".write(toFile: directory + "/b.lua", atomically: true, encoding: .utf8)
        try "not lua".write(toFile: directory + "/notes.txt", atomically: true, encoding: .utf8)
        #expect(try DiffCommand.scripts(of: directory) == [directory + "/a.lua", directory + "/b.lua"])
        // b.lua loads last, so the directory is the same as b.lua alone.
        #expect(runCLI(["diff", directory, directory + "/b.lua"], input: Self.input).status == 0)
        #expect(runCLI(["diff", directory, directory + "/a.lua"], input: Self.input).status == 1)
    }

    @Test func helpSaysWhatDiffDoesAndItsExitStatuses() {
        let help = runCLI(["diff", "--help"], input: "")
        #expect(help.status == 0)
        #expect(help.lines.first == "toastscript diff: run the same events through two script sets and show every toast whose fate differs.")
        #expect(help.stdout.contains("Exit status: 0 the fates are the same, 1 they differ, 2 a usage error"))
    }

    @Test func usageErrorsExitTwo() {
        let one = runCLI(["diff", "none"], input: Self.input)
        #expect(one.status == 2)
        #expect(one.stderr.first == "toastscript diff: diff takes two script sets, OLD and NEW, not 1")
        let missing = runCLI(["diff", "none", "/nonexistent/rules.lua"], input: Self.input)
        #expect(missing.status == 2)
        #expect(missing.stderr.first == #"toastscript diff: "/nonexistent/rules.lua" does not exist (a .lua file, a directory, or none)"#)
        #expect(runCLI(["diff", "none", "none", "--format", "html"], input: Self.input).status == 2)
        #expect(runCLI(["diff", "none", "none", "--clock", "wall"], input: Self.input).status == 2)
        let broken = runCLI(["diff", "none"], input: Self.input, scripts: ["rule("])
        #expect(broken.status == 2)
        #expect(broken.stderr.first?.hasPrefix("toastscript diff: NEW (rules.lua): rules.lua:1:") == true)
    }
}
