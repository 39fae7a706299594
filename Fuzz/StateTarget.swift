// libFuzzer target: the state file's reader (`--state`) on arbitrary bytes, and the restore of
// what it reads into a run. Built by Scripts/fuzz together with the library sources into one
// module; seeded with state files from Fuzz/state-seeds/.

/// Records are not looked at here: the pipeline target checks them.
private final class Discard: RecordWriter {
    func write(_ record: consuming Record) {}
}

/// A run of the stages the seeds were saved with (examples/service.lua's, and with screens by
/// source as Fuzz/screens.lua has them), holding nothing.
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

/// What must hold for any bytes, read as a consumer's state hash (`field<TAB>value` lines; a
/// state file's tables hold the same rows): reading them gives a saved run or a reason, never a
/// trap; a run written as fields and read again is written alike; its pipeline, restored into a
/// run of the stages it names, either says what is wrong or goes on — an event, the drain, a
/// checkpoint — without a trap; and saved as rows, put together and restored again, it saves
/// as it did.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzState(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let fields = text.split(separator: "\n").map { line -> (name: String, value: String) in
        let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
    guard let (saved, commit) = try? RedisStateHash.savedRun(fields: fields) else { return 0 }
    func runFields(_ run: SavedRun) -> [(name: String, value: String)] {
        var hash = RedisStateHash(fresh: true)
        let changes = hash.changes(run: run, rows: SavedRowChanges(), key: "state", commit: commit)
        return changes.set.map { ($0.field, String(decoding: $0.value, as: UTF8.self)) }
    }
    let written = runFields(saved)
    guard let (again, _) = try? RedisStateHash.savedRun(fields: written) else { preconditionFailure("a run it wrote does not read back") }
    precondition(runFields(again).map { $0.name + "\t" + $0.value } == written.map { $0.name + "\t" + $0.value },
                 "a run read back is written alike")
    guard let state = saved.pipeline else { return 0 }
    for screens in [false, true] {
        let pipeline = makePipeline(screens: screens)
        guard (try? pipeline.restore(from: state)) != nil else { continue }
        // The same run as rows (a --state file's), put together again: it restores alike.
        if let rows = try? pipeline.savedRows(), let before = try? pipeline.savedState() {
            // The screens' rows as text, read one at a time by the restore, as from a state file.
            var kept: [SavedRowID: JSONValue] = [:]
            var screenRows = SavedScreenRows()
            for row in rows.written {
                if row.id.kind == .screen { screenRows.append(serial: row.id.number, text: Array(row.text)) } else { kept[row.id] = row.value }
            }
            guard let saved = try? Pipeline.savedPipeline(fromRows: kept, screenRows: screenRows, stages: pipeline.stageNames) else {
                preconditionFailure("rows a pipeline wrote do not go together")
            }
            let again = makePipeline(screens: screens)
            guard (try? again.restore(from: saved)) != nil else { preconditionFailure("rows a pipeline wrote do not restore") }
            // Compared as written: a float that is not a number equals no value, itself included.
            var written: [UInt8] = [], rewritten: [UInt8] = []
            JSONText.appendValue(before, to: &written)
            if let after = try? again.savedState() { JSONText.appendValue(after, to: &rewritten) }
            precondition(rewritten == written, "a run restored from its rows saves otherwise")
        }
        pipeline.handle(Event(.show(Toast(id: "fuzz", message: "after the restore", role: "error")), at: pipeline.now))
        pipeline.handle(Event(.tap(target: nil), at: pipeline.now))
        _ = try? pipeline.savedState()
        pipeline.finish(drain: true)
    }
    return 0
}
