import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// dedup, rate_limit, priority, style and announce (docs/lua.md, "config"), each through the
/// harness or as whole record streams.
@Suite struct DedupTests {
    let noRepeats = "config{ queue = { drop_repeats = false, policy = 'stack', max_visible = 10 } }"

    /// The dedup cache against a plain model: after thousands of inserts, updates and
    /// evictions in a table that grows and deletes without tombstones, exactly the most
    /// recently stored `capacity` keys are found, each with its last value.
    @Test func theDedupCacheKeepsExactlyTheMostRecentlyStoredKeys() {
        var cache = RecencyCache<Int>(capacity: 40)
        var model: [[UInt8]: Int] = [:]
        var order: [[UInt8]] = []
        var random = InvariantTests.SeededGenerator(state: 11)
        // Keys of many lengths, so that the table's key bytes are compacted (after every few
        // hundred evictions) with keys of every size moving.
        func key(_ number: Int) -> [UInt8] { Array(("k\(number)" + String(repeating: "x", count: number % 37)).utf8) }
        for step in 0..<20_000 {
            if step == 10_000 {
                cache.removeAll()
                model = [:]
                order = []
            }
            let key = key(Int.random(in: 0..<120, using: &random))
            key.withUnsafeBytes { bytes in
                let hash = RecencyCache<Int>.hash(bytes)
                if let slot = cache.slot(of: bytes, hash: hash) {
                    #expect(model[key] != nil)
                    cache.update(at: slot, step)
                } else {
                    #expect(model[key] == nil)
                    cache.insert(bytes, hash: hash, step)
                }
            }
            model[key] = step
            order.removeAll { $0 == key }
            order.append(key)
            if order.count > 40 { model[order.removeFirst()] = nil }
        }
        #expect(cache.count == 40)
        for number in 0..<120 {
            let key = key(number)
            let found = key.withUnsafeBytes { cache.slot(of: $0, hash: RecencyCache<Int>.hash($0)).map { cache.value(at: $0) } }
            #expect(found == model[key])
        }
    }

    @Test func theWindowCountsFromTheLastToastThatPassed() {
        let records = jsonRecords(lines(
            #"{"message":"X","at":0}"#, #"{"message":"X","at":2}"#, #"{"message":"X","at":4}"#,
            #"{"message":"X","at":5}"#, #"{"message":"X","at":6}"#))
        #expect(records == [
            present("0", "t1", "X"),
            drop("2", "t2", "X", stage: "dedup", "duplicate", of: "t1"),
            dismiss("3", "t1", "timeout", shown: "3"),
            drop("4", "t3", "X", stage: "dedup", "duplicate", of: "t1"),
            present("5", "t4", "X"),
            drop("6", "t5", "X", stage: "dedup", "duplicate", of: "t4"),
            dismiss("8", "t4", "timeout", shown: "3"),
        ])
    }

    @Test func aSteadyFloodPassesOncePerWindow() {
        let input = (0..<20).map { #"{"message":"flood","at":\#($0)}"# }.joined(separator: "\n") + "\n"
        let presents = jsonRecords(input, scripts: [noRepeats]).filter { $0.contains(#""event":"present""#) }
        #expect(presents.map { $0.contains(#""t":0,"#) || $0.contains(#""t":5,"#) || $0.contains(#""t":10,"#) || $0.contains(#""t":15,"#) } == [true, true, true, true])
    }

    @Test func anExplicitKeyReplacesTheFieldsAndAbsentDiffersFromEmpty() {
        let records = jsonRecords(lines(
            #"{"message":"A","key":"k"}"#, #"{"message":"B","key":"k","at":1}"#,
            #"{"message":"C","subtitle":"","at":2}"#, #"{"message":"C","at":2.5}"#,
            #"{"message":"k","at":3}"#), scripts: [noRepeats])
        let drops = records.filter { $0.contains(#""event":"drop""#) }
        #expect(drops == [drop("1", "t2", "B", stage: "dedup", "duplicate", of: "t1")])
    }

    @Test func fieldsWindowZeroAndCacheSettings() {
        let script = "config{ dedup = { fields = {'source'}, window = 0, cache = 2 } }\n" + noRepeats
        let records = jsonRecords(lines(
            #"{"message":"A","source":"s1"}"#, #"{"message":"B","source":"s1","at":100}"#,
            #"{"message":"C","source":"s2","at":101}"#, #"{"message":"D","source":"s3","at":102}"#,
            #"{"message":"E","source":"s1","at":103}"#, #"{"message":"F","at":104}"#, #"{"message":"G","at":105}"#),
            scripts: [script])
        let drops = records.filter { $0.contains(#""event":"drop""#) }
        // s1 is forgotten once s2 and s3 passed (cache 2): E passes; F passes (no source),
        // G duplicates F (null equals null).
        #expect(drops == [
            drop("100", "t2", "B", stage: "dedup", "duplicate", of: "t1"),
            drop("105", "t7", "G", stage: "dedup", "duplicate", of: "t6"),
        ])
    }

    @Test func cacheZeroRemembersNothing() {
        let records = jsonRecords(lines(#"{"message":"A"}"#, #"{"message":"A","at":1}"#),
                                  scripts: ["config{ dedup = { cache = 0 } }\n" + noRepeats])
        #expect(!records.contains { $0.contains("duplicate") })
    }

    @Test func theHarnessKeepsEveryToastAccountedFor() {
        let harness = StageHarness(stages: [("dedup", DedupStage(settings: DedupSettings()))])
        for second in 0..<30 {
            harness.show(Toast(id: "d\(second)", message: second % 3 == 0 ? "same" : "other \(second)"), at: .milliseconds(500 * second))
        }
        #expect(harness.finish() == [])
        #expect(harness.statistics.stages[0].dropped["duplicate"] == 7)
    }
}

/// The hash of the dedup and rate-limit keys: it reads exactly the key's bytes, every one of
/// them counts, and its low bits (the table's buckets) spread ordinary keys evenly.
@Suite struct SeededByteHashTests {
    private func hash(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes(SeededByteHash.hash)
    }

    @Test func theSameBytesHashAlikeWhereverTheyLieAndNothingAroundThemCounts() {
        var random = InvariantTests.SeededGenerator(state: 11)
        for length in 0...40 {
            let key = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            for shift in 0..<8 {
                // The key at another alignment, with different bytes before and after it.
                let buffer = (0..<shift).map { _ in UInt8.random(in: 0...255, using: &random) } + key
                    + (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
                let placed = buffer.withUnsafeBytes { SeededByteHash.hash(UnsafeRawBufferPointer(rebasing: $0[shift..<(shift + length)])) }
                #expect(placed == hash(key), "length \(length), shift \(shift)")
            }
        }
    }

    @Test func everyBitAndTheLengthChangeTheHash() {
        let key = Array("message\u{1F}Upload complete".utf8)
        let original = hash(key)
        for index in key.indices {
            for bit in 0..<8 {
                var changed = key
                changed[index] ^= 1 << bit
                #expect(hash(changed) != original, "byte \(index), bit \(bit)")
            }
        }
        let zeros = (0...17).map { hash([UInt8](repeating: 0, count: $0)) }
        #expect(Set(zeros).count == zeros.count)
    }

    @Test func ordinaryKeysSpreadEvenlyOverTheBuckets() {
        var buckets = [Int](repeating: 0, count: 4096)
        for number in 0..<100_000 {
            buckets[hash(Array("Disk \(number % 997) is almost full\u{1F}warning\u{1F}t\(number)".utf8)) & 4095] += 1
        }
        // About 24 keys a bucket; an even spread keeps the fullest under 60.
        #expect(buckets.max() ?? 0 < 60)
        #expect(buckets.min() ?? 0 > 2)
    }
}

@Suite struct RateLimitTests {
    let quiet = "config{ dedup = false, queue = { drop_repeats = false, policy = 'stack', max_visible = 100, limit = 100 } }"

    @Test func limitsEachGroupAndSummarisesTheDrops() {
        let script = quiet + "\nconfig{ rate_limit = { limit = 2, window = 10, summary = true } }"
        let records = jsonRecords(lines(
            #"{"message":"m1","source":"sync","at":0}"#, #"{"message":"m2","source":"sync","at":1}"#,
            #"{"message":"m3","source":"sync","at":2}"#, #"{"message":"m4","source":"sync","at":3}"#,
            #"{"message":"other","source":"ui","at":3}"#, #"{"message":"m5","source":"sync","at":4}"#),
            scripts: [script])
        #expect(records == [
            present("0", "t1", "m1", policy: "stack", source: "sync"),
            present("1", "t2", "m2", policy: "stack", source: "sync"),
            drop("2", "t3", "m3", stage: "rate_limit", "rate_limited"),
            dismiss("3", "t1", "timeout", shown: "3"),
            drop("3", "t4", "m4", stage: "rate_limit", "rate_limited"),
            present("3", "t5", "other", policy: "stack", source: "ui"),
            dismiss("4", "t2", "timeout", shown: "3"),
            drop("4", "t6", "m5", stage: "rate_limit", "rate_limited"),
            dismiss("6", "t5", "timeout", shown: "3"),
            present("12", "e1", "3 more from sync", policy: "stack", source: "sync", extra: #"{"count":3,"ids":["t3","t4","t6"]}"#),
            dismiss("15", "e1", "timeout", shown: "3"),
        ])
    }

    @Test func theSummaryCountsTheDropsOfItsRunAndFiresBeforeEventsAtItsTime() {
        let script = quiet + "\nconfig{ rate_limit = { limit = 1, window = 5, summary = true } }"
        let records = jsonRecords(lines(
            #"{"message":"a","at":0}"#, #"{"message":"b","at":1}"#, #"{"message":"c","at":4}"#,
            #"{"message":"d","at":6}"#), scripts: [script])
        // b starts a run at 1 (summary due 6); at 6 the summary fires first; a passed at 0,
        // so at 6 d passes (0 is not after 6 - 5 = 1).
        #expect(records.filter { $0.contains("more") }.map { String($0.prefix(60)) } == [
            String(present("6", "e1", "2 more notifications", policy: "stack").prefix(60)),
        ])
        #expect(records.contains(present("6", "t4", "d", policy: "stack")))
    }

    @Test func aDropAtExactlyTheSummaryTimeBelongsToTheNextSummary() {
        let script = quiet + "\nconfig{ rate_limit = { limit = 1, window = 5, summary = true } }"
        let records = jsonRecords(lines(
            #"{"message":"a","at":0}"#, #"{"message":"b","at":1}"#, #"{"message":"c","at":5}"#,
            #"{"message":"d","at":6}"#, #"{"message":"e","at":7}"#), scripts: [script])
        // a passes at 0, b dropped at 1 (summary at 6), c passes at 5 (0 left the window),
        // d at 6: the summary fires first, then d is dropped (c in window): a new run, due 11.
        let summaries = records.filter { $0.contains("more notifications") && $0.contains("present") }
        #expect(summaries.count == 2)
        #expect(summaries[0].contains(#""t":6,"id":"e1","message":"1 more notifications""#))
        #expect(summaries[1].contains(#""t":11,"id":"e2","message":"2 more notifications""#))
    }

    @Test func toastsWithoutTheKeyFieldShareOneGroupAndNoSummaryByDefault() {
        let script = quiet + "\nconfig{ rate_limit = { limit = 1, window = 5, key = 'role' } }"
        let records = jsonRecords(lines(
            #"{"message":"a","at":0}"#, #"{"message":"b","role":"error","at":0}"#, #"{"message":"c","at":1}"#),
            scripts: [script])
        #expect(records.filter { $0.contains("rate_limited") } == [drop("1", "t3", "c", stage: "rate_limit", "rate_limited")])
        #expect(!records.contains { $0.contains("more") })
    }

    @Test func theHarnessKeepsSummariesAccountedFor() {
        var settings = RateLimitSettings()
        settings.limit = 3
        settings.window = 2 * StreamTime.perSecond
        settings.summary = true
        let harness = StageHarness(stages: [("rate_limit", RateLimitStage(settings: settings))])
        for index in 0..<200 {
            harness.show(Toast(id: "r\(index)", message: "m\(index)", source: "s\(index % 3)"), at: .milliseconds(100 * index))
        }
        #expect(harness.finish() == [])
        #expect(harness.emittedCount > 0)
    }

    /// Thousands of one-off sources make the stage sweep its groups again and again; the one
    /// busy source keeps being found, limited and summarised exactly.
    @Test func aBusySourceIsLimitedExactlyAmongThousandsOfOneOffSources() {
        var settings = RateLimitSettings()
        settings.limit = 1
        settings.window = StreamTime.perSecond
        settings.summary = true
        let harness = StageHarness(stages: [("rate_limit", RateLimitStage(settings: settings))])
        for second in 0..<600 {
            for index in 0..<10 {
                harness.show(Toast(id: "o\(second)-\(index)", message: "once", source: "one-off \(second)-\(index)"),
                             at: .seconds(second) + .milliseconds(10 * index))
            }
            harness.show(Toast(id: "a\(second)", message: "busy", source: "busy"), at: .seconds(second) + .milliseconds(200))
            harness.show(Toast(id: "b\(second)", message: "busy", source: "busy"), at: .seconds(second) + .milliseconds(300))
        }
        #expect(harness.finish() == [])
        let drops = harness.records.filter { $0.kind == .drop && $0.stage == "rate_limit" }.map(\.id)
        #expect(drops == (0..<600).map { "b\($0)" })
        #expect(harness.emittedCount == 600)
        #expect(harness.statistics.stages[0].dropped == ["rate_limited": 600])
    }
}

/// The times a rate-limit group counts: one alone is kept without an array, two or more in
/// one; through any sequence of passes and windows moving on, it counts as a plain list would.
@Suite struct TimeWindowTests {
    @Test func itCountsAsAPlainListOfTimesWould() {
        var random = InvariantTests.SeededGenerator(state: 7)
        var window = TimeWindow()
        var model: [Microseconds] = []
        var now: Microseconds = 0
        for step in 0..<50_000 {
            now += Microseconds(Int.random(in: 0...3, using: &random))
            if Bool.random(using: &random) {
                window.append(now)
                model.append(now)
            } else {
                let horizon = now - Microseconds(Int.random(in: 0...12, using: &random))
                window.removeAll(atOrBefore: horizon)
                model.removeAll { $0 <= horizon }
            }
            #expect(window.count == model.count, "step \(step)")
        }
    }
}

@Suite struct StyleAndAnnounceTests {
    @Test func builtInRolesStyleAndAnnounce() {
        let records = jsonRecords(lines(
            #"{"message":"No connection.","subtitle":"Try again.","role":"error"}"#,
            #"{"message":"Upload complete","subtitle":"Ready to share","at":5}"#,
            #"{"message":"Careful","role":"warning","subtitle":"","at":10}"#))
        #expect(records[0] == present("0", "t1", "No connection.", role: "error", subtitle: "Try again.",
                                      announcement: "Error: No connection., Try again."))
        #expect(records[2] == present("5", "t2", "Upload complete", subtitle: "Ready to share",
                                      announcement: "Upload complete, Ready to share"))
        #expect(records[4] == present("10", "t3", "Careful", role: "warning", subtitle: "",
                                      announcement: "Warning: Careful"))
    }

    @Test func aRolePriorityOrdersTheLineAndShowsInTheRecord() {
        let script = "config{ roles = { error = { priority = 2 } }, dedup = false }"
        let records = jsonRecords(lines(
            #"{"message":"first"}"#, #"{"message":"info"}"#, #"{"message":"bad","role":"error"}"#,
            #"{"message":"own","role":"error","priority":-1}"#), scripts: [script])
        #expect(records[2] == present("3", "t3", "bad", role: "error", waited: "3", priority: 2))
        #expect(records.last?.contains(#""id":"t4""#) == true)
    }

    @Test func templatesRenderFieldsAndMissingOnesAsEmpty() {
        let roles = RoleTable.builtIn
        let toast = Toast(id: "x", message: "Disk full", role: "error", source: "backup",
                          extra: [JSONMember("count", .integer(3))])
        let style = roles["error"]!
        #expect(AnnounceStage.render("{label}! {message} ({source}, {count}, {nope}) {unclosed", toast: toast,
                                     style: style, roles: roles) == "Error! Disk full (backup, 3, ) {unclosed")
    }

    @Test func withoutThePriorityStageTheRolePriorityDoesNotApply() {
        let script = "config{ roles = { error = { priority = 2 } }, stages = {'rules','dedup','rate_limit','style','announce'} }"
        let records = jsonRecords(lines(#"{"message":"bad","role":"error"}"#), scripts: [script])
        #expect(records[0] == present("0", "t1", "bad", role: "error", priority: 0))
    }
}
