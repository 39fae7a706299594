import Foundation
import Testing
@testable import ToastCore
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// `--trace` and `--explain`: a trace record for every stage, rule and host decision, in time
/// order with the records, and nothing else changed.
@Suite struct TraceTests {
    /// (stage or rule, verdict) of each trace line, and the record kind of each record line.
    private func steps(_ lines: [String]) -> [String] {
        lines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let event = object["event"] as? String else { return nil }
            guard event == "trace" else { return "\(event) \(object["id"] ?? "")" }
            let who = (object["rule"] as? String).map { "rule \($0)" } ?? (object["stage"] as? String ?? "?")
            var step = "  \(object["id"] ?? "") \(who): \(object["verdict"] ?? "")"
            if let fields = object["fields"] as? [String] { step += " " + fields.joined(separator: ",") }
            return step
        }
    }

    @Test func everyStageOnceEachRuleOnceAndTheHostsDecisionsBeforeTheirRecords() {
        let result = runCLI(["--trace", "--format", "json"], input: #"{"message":"Saved","role":"error"}"# + "\n", scripts: ["""
            rule("keep", function(t) end)
            rule("shout", function(t) t.message = t.message:upper() end)
            """])
        #expect(result.status == 0)
        #expect(steps(result.lines) == [
            "  t1 rule keep: pass",
            "  t1 rule shout: change message",
            "  t1 dedup: pass",
            "  t1 rate_limit: skip",
            "  t1 priority: change priority",
            "  t1 style: change symbol,glyph,color",
            "  t1 announce: change announcement",
            "  t1 host: queued",
            "  t1 host: presented",
            "present t1",
            "  t1 host: dismissed",
            "dismiss t1",
        ])
        #expect(result.lines[1] == #"{"event":"trace","t":0,"id":"t1","stage":"rules","verdict":"change","rule":"shout","fields":["message"]}"#)
    }

    @Test func aDropNamesItsStageReasonAndWhy() {
        let input = """
            {"at":0,"message":"Saved","role":"success"}
            {"at":1,"message":"Saved","role":"success"}
            {"at":2,"message":"noise","level":"debug"}

            """
        let lines = runCLI(["--trace", "--format", "json"], input: input, scripts: ["""
            config{ dedup = { window = 3, fields = { "message", "role" } } }
            rule("quiet debug", function(t) if t.level == "debug" then return false, "debug only" end end)
            """]).lines
        #expect(lines.contains(#"{"event":"trace","t":1,"id":"t2","stage":"dedup","verdict":"drop","reason":"duplicate","of":"t1","because":"same message and role as t1 at 0 s, within the 3 s window"}"#))
        #expect(lines.contains(#"{"event":"trace","t":2,"id":"t3","stage":"rules","verdict":"drop","rule":"quiet debug","reason":"rule","note":"debug only"}"#))
        // The decision comes just before the record it causes.
        let drop = lines.firstIndex(of: #"{"event":"drop","t":1,"id":"t2","message":"Saved","role":"success","stage":"dedup","reason":"duplicate","of":"t1"}"#)
        #expect(drop.map { lines[$0 - 1].contains(#""verdict":"drop""#) } == true)
    }

    @Test func theHostsDecisionsCarryTheirDetails() {
        let input = """
            {"at":0,"id":"a","message":"One","duration":null}
            {"at":1,"id":"b","message":"Two"}
            {"at":2,"id":"c","message":"Three"}
            {"at":3,"id":"d","message":"Later","after":2}
            {"at":4,"type":"drag","id":"a","phase":"begin"}
            {"at":4.5,"type":"drag","id":"a","phase":"end","dy":3}
            {"at":6,"id":"e","message":"Now","policy":"replace"}

            """
        let lines = runCLI(["--trace", "--format", "json"], input: input, scripts: ["config{ queue = { limit = 1 } }"]).lines
        let host = lines.filter { $0.hasPrefix(#"{"event":"trace""#) && $0.contains(#""stage":"host""#) }
        #expect(host == [
            #"{"event":"trace","t":0,"id":"a","stage":"host","verdict":"queued","position":1,"priority":0,"waiting":1,"because":"place 1 in the waiting line (priority 0, then arrival)"}"#,
            #"{"event":"trace","t":0,"id":"a","stage":"host","verdict":"presented","waited":0,"visible":1,"waiting":0,"because":"shown at once (policy enqueue: one at a time)"}"#,
            #"{"event":"trace","t":1,"id":"b","stage":"host","verdict":"queued","position":1,"priority":0,"waiting":1,"because":"place 1 in the waiting line (priority 0, then arrival)"}"#,
            #"{"event":"trace","t":2,"id":"c","stage":"host","verdict":"queued","position":2,"priority":0,"waiting":2,"because":"place 2 in the waiting line (priority 0, then arrival)"}"#,
            #"{"event":"trace","t":2,"id":"b","stage":"host","verdict":"evicted","reason":"evicted","by":"c","waiting":1,"because":"the waiting line holds 1 and c arrived; the lowest priority, oldest toast goes"}"#,
            #"{"event":"trace","t":3,"id":"d","stage":"host","verdict":"delayed","until":5,"waiting":1,"because":"its after of 2 s holds it back until 5 s"}"#,
            #"{"event":"trace","t":4,"id":"a","stage":"host","verdict":"paused","waiting":1,"because":"a drag holds it: no timeout runs"}"#,
            #"{"event":"trace","t":4.5,"id":"a","stage":"host","verdict":"resumed","waiting":1,"because":"the drag ended short of a swipe"}"#,
            #"{"event":"trace","t":5,"id":"d","stage":"host","verdict":"queued","position":2,"priority":0,"waiting":2,"because":"place 2 in the waiting line (priority 0, then arrival)"}"#,
            #"{"event":"trace","t":5,"id":"c","stage":"host","verdict":"evicted","reason":"evicted","by":"d","waiting":1,"because":"the waiting line holds 1 and d arrived; the lowest priority, oldest toast goes"}"#,
            #"{"event":"trace","t":6,"id":"a","stage":"host","verdict":"replaced","by":"e","waiting":1,"because":"e has policy replace"}"#,
            #"{"event":"trace","t":6,"id":"e","stage":"host","verdict":"presented","waited":0,"visible":1,"waiting":1,"because":"shown at once (policy replace)"}"#,
            #"{"event":"trace","t":9,"id":"e","stage":"host","verdict":"dismissed","reason":"timeout","shown":3,"waiting":1,"because":"its duration ran out after 3 s on screen"}"#,
            #"{"event":"trace","t":9,"id":"d","stage":"host","verdict":"presented","waited":4,"visible":1,"waiting":0,"because":"shown after waiting 4 s (policy enqueue: one at a time)"}"#,
            #"{"event":"trace","t":12,"id":"d","stage":"host","verdict":"dismissed","reason":"timeout","shown":3,"waiting":0,"because":"its duration ran out after 3 s on screen"}"#,
        ])
    }

    /// The records of a traced run are those of the same run untraced, and each record follows
    /// the decision that caused it.
    @Test(arguments: [("app-session.jsonl", "app-session.lua"), ("flaky-sync.jsonl", "flaky-sync.lua")])
    func tracingChangesNoRecordAndEachRecordFollowsItsDecision(_ example: (String, String)) throws {
        let input = try String(contentsOfFile: examplesDirectory + example.0, encoding: .utf8)
        let script = try String(contentsOfFile: examplesDirectory + example.1, encoding: .utf8)
        let plain = runCLI(["--format", "json"], input: input, scripts: [script])
        let traced = runCLI(["--format", "json", "--trace"], input: input, scripts: [script])
        #expect(traced.status == plain.status)
        #expect(traced.lines.filter { !$0.hasPrefix(#"{"event":"trace""#) } == plain.lines)
        var lastVerdict: [String: String] = [:]
        for line in traced.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try #require(object["id"] as? String)
            switch object["event"] as? String {
            case "trace": lastVerdict[id] = object["verdict"] as? String
            case "present": #expect(lastVerdict[id] == "presented", "\(line)")
            case "dismiss": #expect(["dismissed", "replaced"].contains(lastVerdict[id] ?? ""), "\(line)")
            case "drop": #expect(["drop", "evicted"].contains(lastVerdict[id] ?? ""), "\(line)")
            default: Issue.record("unexpected line \(line)")
            }
        }
    }

    @Test func explainKeepsOnlyTheToastsAskedAboutAndNamesAnIdThatNeverCame() {
        let input = """
            {"at":0,"id":"keep","message":"One"}
            {"at":1,"id":"other","message":"Two"}

            """
        let result = runCLI(["--explain", "keep", "--explain", "gone", "--format", "json"], input: input)
        #expect(result.status == 0)
        #expect(!result.lines.isEmpty && result.lines.allSatisfy { $0.contains(#""id":"keep""#) })
        #expect(result.lines.contains { $0.hasPrefix(#"{"event":"dismiss""#) })
        #expect(result.stderr == ["toastscript: --explain gone: no toast with this id came through"])
        let story = runCLI(["--explain", "other"], input: input)
        #expect(story.lines.first == #"other  "Two" (info), input line 2"#)
        #expect(story.lines.last == "           6  off screen: timeout after 3 s")
    }

    @Test func aStoryOnTheWallClockGivesTheTimeOfDay() {
        let story = runCLI(["--clock", "wall", "--no-drain", "--explain", "a"], input: #"{"id":"a","message":"x"}"# + "\n")
        #expect(story.lines.count > 2)
        #expect(story.lines.dropFirst().allSatisfy { $0.range(of: #"^ +\d\d:\d\d:\d\d\.\d{3}  "#, options: .regularExpression) != nil },
                "\(story.lines)")
    }

    @Test func traceAndExplainRefuseFormatsThatCannotShowThem() {
        #expect(runCLI(["--trace", "--format", "speech"], input: "").stderr.first == "toastscript: --trace writes text or json, not speech")
        #expect(runCLI(["--explain", "t1", "--format", "html"], input: "").status == ExitStatus.usage)
    }

    @Test func aToastsTextCannotActOnTheTerminalThroughItsTrace() {
        let result = runCLI(["--trace"], input: #"{"id":"a\u001b[2Jb","message":"x"}"# + "\n")
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(result.lines.contains { $0.contains(#"· a\u001b[2Jb host: queued"#) })
    }
}

let examplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path + "/examples/"
