import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastCLI

/// What `Scripts/fuzz state` found, kept as tests (Fuzz/findings/): each input is read as the
/// fuzz target reads it, and what the target asserts is checked here, where a failure names
/// the assertion instead of trapping.
@Suite struct StateFuzzFindingsTests {
    private final class Discard: RecordWriter {
        func write(_ record: consuming Record) {}
    }

    /// The fuzz target's run (Fuzz/StateTarget.swift).
    private func makePipeline(screens: Bool) -> Pipeline {
        var settings = PipelineSettings()
        settings.screens = screens ? ScreenSettings(by: "source") : nil
        var debounce = DebounceSettings()
        debounce.window = 2_000_000
        var digest = DigestSettings()
        digest.window = 30_000_000
        var rateLimit = RateLimitSettings()
        rateLimit.summary = true
        let stages: [(name: String, stage: any ToastStage)] = [
            ("rules", RulesStage()), ("debounce", DebounceStage(settings: debounce)), ("dedup", DedupStage(settings: DedupSettings())),
            ("digest", DigestStage(settings: digest)), ("rate_limit", RateLimitStage(settings: rateLimit)),
            ("priority", PriorityStage()), ("style", StyleStage()), ("announce", AnnounceStage()),
        ]
        return Pipeline(settings: settings, stages: stages, output: Discard())
    }

    static let findings = ((try? FileManager.default.contentsOfDirectory(atPath: root + "/Fuzz/findings")) ?? [])
        .filter { $0.hasPrefix("state-") }.sorted()

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: findings)
    func aFindingKeepsWhatTheTargetAsserts(_ name: String) throws {
        let text = try String(contentsOfFile: Self.root + "/Fuzz/findings/" + name, encoding: .utf8)
        let fields = text.split(separator: "\n").map { line -> (name: String, value: String) in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        guard let (saved, commit) = try? RedisStateHash.savedRun(fields: fields) else { return }
        // A run read is written as fields that read back, and are written alike again.
        func runFields(_ run: SavedRun) -> [String] {
            var hash = RedisStateHash(fresh: true)
            let changes = hash.changes(run: run, rows: SavedRowChanges(), key: "state", commit: commit)
            return changes.set.map { $0.field + "\t" + String(decoding: $0.value, as: UTF8.self) }
        }
        let written = runFields(saved)
        let again = try RedisStateHash.savedRun(fields: written.map { line in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        })
        let readBack = try #require(again, "a run it wrote reads back")
        let rewritten = runFields(readBack.run)
        #expect(rewritten == written, "a run read back is written alike: \(Set(rewritten).symmetricDifference(written).sorted())")
        guard let state = saved.pipeline else { return }
        for screens in [false, true] {
            let pipeline = makePipeline(screens: screens)
            guard (try? pipeline.restore(from: state)) != nil else { continue }
            let rows = try pipeline.savedRows()
            let before = try pipeline.savedState()
            // The screens' rows as text, read one at a time by the restore, as from a state file.
            var kept: [SavedRowID: JSONValue] = [:]
            var screenRows = SavedScreenRows()
            for row in rows.written {
                if row.id.kind == .screen { screenRows.append(serial: row.id.number, text: Array(row.text)) } else { kept[row.id] = row.value }
            }
            let saved = try Pipeline.savedPipeline(fromRows: kept, screenRows: screenRows, stages: pipeline.stageNames)
            let again = makePipeline(screens: screens)
            try again.restore(from: saved)
            let after = JSONText.encode(try again.savedState()), expected = JSONText.encode(before)
            let same = after.commonPrefix(with: expected).count
            #expect(after == expected, "screens: \(screens): they part at character \(same)")
            // The restored run goes on: a toast, a tap, a save and the drain.
            pipeline.handle(Event(.show(Toast(id: "fuzz", message: "after the restore", role: "error")), at: pipeline.now))
            pipeline.handle(Event(.tap(target: nil), at: pipeline.now))
            _ = try? pipeline.savedState()
            pipeline.finish(drain: true)
        }
    }

    /// The fuzz seeds of states whose keys are hexadecimal (as earlier builds wrote them) and
    /// their twins with the same keys readable (Fuzz/state-seeds/*-readable.state): both restore
    /// into the same run, which saves its keys readable.
    @Test(arguments: ["screens", "service"])
    func aStateOfHexadecimalKeysRestoresAsItsReadableTwin(_ seed: String) throws {
        func restored(_ file: String, screens: Bool) throws -> String {
            let text = try String(contentsOfFile: Self.root + "/Fuzz/state-seeds/" + file, encoding: .utf8)
            let fields = text.split(separator: "\n").map { line -> (name: String, value: String) in
                let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
            let state = try #require(try RedisStateHash.savedRun(fields: fields)?.run.pipeline)
            let pipeline = makePipeline(screens: screens)
            try pipeline.restore(from: state)
            return JSONText.encode(try pipeline.savedState())
        }
        let screens = seed == "screens"
        let fromHexadecimal = try restored(seed + ".state", screens: screens)
        #expect(fromHexadecimal == (try restored(seed + "-readable.state", screens: screens)))
        #expect(fromHexadecimal.contains(#""key":["#))
    }
}
