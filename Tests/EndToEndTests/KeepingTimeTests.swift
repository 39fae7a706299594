import Foundation
import Testing

/// Long and live runs (docs/events.md, "The clock" and "Screens"; docs/lua.md): what a
/// summary stands for in `--explain`, a rule's misspelt field, and screens forgotten exactly
/// when nothing in them is left. The follow clock and idle replay are in `LiveRunTests`.
@Suite struct KeepingTimeTests {
    @Test func explainListsTheIdsADigestOrSummaryStandsFor() throws {
        let digest = try runBinary(["--explain", "e1", "--input", "text", "examples/ci-failures.lua"], stdinFile: "examples/ci-failures.log",
                                   environment: ["TZ": "UTC"])
        #expect(digest.stdout.contains("\n    stands for t5, t6, t7, t8, t9, t10, t11, t12, t13, t14 and 1 more (11 toasts)\n"),
                "\(digest.stdout)")
        let summary = try runBinary(["--explain", "e1", "examples/flaky-sync.lua", "-e", "config{ rate_limit = { spare = false } }"],
                                    stdinFile: "examples/flaky-sync.jsonl")
        #expect(summary.stdout.hasPrefix(#"e1  "3 more from sync" (error, from sync), made by rate_limit during input line 14"#
                                         + "\n    stands for t7, t9, t12 (3 toasts)\n"), "\(summary.stdout)")
    }

    @Test func aMisspeltFieldInARuleIsAnExtraFieldWithOneWarningPerRuleAndName() throws {
        let script = #"rule("upgrade", function(t) t.rol = "error"; t.sourc = "ci" end) rule("again", function(t) t.rol = "x" end)"#
        let result = try runBinary(["--format", "json", "-e", script], stdin: #"{"message":"a"}"# + "\n" + #"{"message":"b","at":5}"# + "\n")
        #expect(result.status == 0)
        #expect(result.stderr == """
            toastscript: rule "upgrade": field "rol" is not a known field; did you mean "role"? (kept as an extra field)
            toastscript: rule "upgrade": field "sourc" is not a known field; did you mean "source"? (kept as an extra field)
            toastscript: rule "again": field "rol" is not a known field; did you mean "role"? (kept as an extra field)

            """)
        let first = try #require(try jsonRecords(result.stdout).first)
        #expect(first["role"] as? String == "info")
        #expect((first["extra"] as? [String: Any])?["rol"] as? String == "x")
    }

    /// SPEC §10.3 to the letter: a screen whose only toast was held and then cancelled holds
    /// nothing and is forgotten at the next event, so a new screen ends no other screen's toast.
    @Test func aScreenWhoseHeldToastWasCancelledIsForgotten() throws {
        let result = try runBinary(["--format", "json", "-e", "config{ debounce = { window = 0.5 }, screens = { by = 'user', limit = 2 } }"],
                                   stdin: [#"{"at":0,"user":"a","message":"x"}"#, #"{"at":1,"user":"b","message":"y"}"#,
                                           #"{"at":1,"type":"dismiss","id":"t2","user":"b"}"#, #"{"at":1,"user":"c","message":"z"}"#]
                                    .joined(separator: "\n") + "\n")
        let records = try jsonRecords(result.stdout).map { "\($0["t"] ?? "") \($0["event"] ?? "") \($0["id"] ?? "") \($0["reason"] ?? "")" }
        #expect(records == ["0.5 present t1 ", "1 drop t2 cancelled", "1.5 present t3 ", "3.5 dismiss t1 timeout", "4.5 dismiss t3 timeout"])
    }

    /// A digest window that is open but holds nothing keeps its screen: a toast of its group
    /// on that screen within the window is held in it, not shown as a new window's first.
    @Test func anOpenEmptyDigestWindowKeepsItsScreen() throws {
        let result = try runBinary(["--format", "json", "-e", "config{ digest = { window = 10 }, screens = { by = 'user' } }"],
                                   stdin: [#"{"at":0,"user":"a","message":"x","source":"ci"}"#,
                                           #"{"at":5,"user":"b","message":"other"}"#,
                                           #"{"at":6,"user":"a","message":"y","source":"ci"}"#].joined(separator: "\n") + "\n")
        let presents = try jsonRecords(result.stdout).filter { $0["event"] as? String == "present" }.map { "\($0["t"] ?? "") \($0["id"] ?? "")" }
        #expect(presents == ["0 t1", "5 t2", "10 t3"])
    }
}
