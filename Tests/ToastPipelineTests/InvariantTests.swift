import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// The promise of docs/events.md ("Records") on long random streams: every toast that comes
/// in ends in exactly one `drop`, or one `present` followed by one `dismiss`, and records come
/// in time order.
@Suite struct InvariantTests {
    /// A small deterministic generator (SplitMix64), so failures replay.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random events of every kind, with explicit ids that repeat, delays, drags and bad lines.
    static func randomStream(count: Int, seed: UInt64) -> String {
        var random = SeededGenerator(state: seed)
        var time = 0.0
        var text = ""
        let messages = ["Saved", "Sync failed", "New message", "Offline", "Copied"]
        let roles = ["info", "success", "warning", "error"]
        for _ in 0..<count {
            time += Double(Int.random(in: 0...1500, using: &random)) / 1000
            let at = Bool.random(using: &random) ? #","at":\#(time)"# : ""
            let id = Int.random(in: 0..<10, using: &random) == 0 ? #","id":"x\#(Int.random(in: 0..<5, using: &random))""# : ""
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<60:
                var fields = #""message":"\#(messages.randomElement(using: &random)!)","role":"\#(roles.randomElement(using: &random)!)""#
                if Bool.random(using: &random) { fields += #","policy":"\#(["enqueue", "replace", "stack"].randomElement(using: &random)!)""# }
                if Int.random(in: 0..<4, using: &random) == 0 { fields += #","after":\#(Double(Int.random(in: 0...40, using: &random)) / 10)"# }
                if Int.random(in: 0..<5, using: &random) == 0 { fields += #","duration":\#(["null", "0", "1", "\"short\"", "7.5"].randomElement(using: &random)!)"# }
                if Int.random(in: 0..<4, using: &random) == 0 { fields += #","priority":\#(Int.random(in: -2...3, using: &random))"# }
                if Bool.random(using: &random) { fields += #","source":"s\#(Int.random(in: 0..<3, using: &random))""# }
                if Int.random(in: 0..<6, using: &random) == 0 { fields += #","placement":"\#(["top", "center", "bottom"].randomElement(using: &random)!)""# }
                text += "{\(fields)\(at)\(id)}\n"
            case 60..<68: text += #"{"type":"tap"\#(at)\#(id)}"# + "\n"
            case 68..<74: text += #"{"type":"swipe"\#(at)\#(id)}"# + "\n"
            case 74..<78: text += #"{"type":"long_press"\#(at)\#(id)}"# + "\n"
            case 78..<86: text += #"{"type":"dismiss"\#(at)\#(id)}"# + "\n"
            case 86..<88: text += #"{"type":"dismiss_all"\#(at)}"# + "\n"
            case 88..<95:
                let phase = Bool.random(using: &random) ? "begin" : "end"
                text += #"{"type":"drag","phase":"\#(phase)","dy":\#(Int.random(in: -60...60, using: &random))\#(at)\#(id)}"# + "\n"
            case 95..<98: text += #"{"type":"tick"\#(at)}"# + "\n"
            default: text += ["not json", #"{"message":""}"#, #"{"type":"show","role":"nope","message":"m"}"#, ""].randomElement(using: &random)! + "\n"
            }
        }
        return text
    }

    /// Runs `input` through a pipeline built as the CLI builds it and checks the records.
    static func check(_ input: String, scripts: [String] = [], drain: Bool = true) throws -> (records: Int, problems: [String]) {
        let runtime = try LuaRuntime()
        for (index, source) in scripts.enumerated() { try runtime.load(source: source, name: "script\(index)") }
        let log = RecordLog()
        let pipeline = try Pipeline(scripts: runtime.loaded, output: log)
        var decoder = EventDecoder(roles: runtime.settings.roles, defaultPolicy: runtime.settings.queue.policy,
                                   defaultDuration: runtime.settings.queue.duration)
        var toastsIn: [String: Int] = [:]
        for (index, line) in input.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var bytes = Array(line.utf8)
            let result = bytes.withUnsafeMutableBufferPointer { buffer in
                EventDecoder.isBlank(UnsafeBufferPointer(buffer)) ? nil : decoder.decodeJSON(UnsafeBufferPointer(buffer), number: index + 1)
            }
            guard case .success(let event)? = result else { continue }
            if case .show(let toast) = event.kind { toastsIn[toast.id, default: 0] += 1 }
            pipeline.handle(event)
        }
        pipeline.finish(drain: drain)
        if runtime.generatedIDs.count > 0 {
            for number in 1...runtime.generatedIDs.count { toastsIn["e\(number)", default: 0] += 1 }
        }
        // The emit test's hook brings in one "undo" toast per tap.
        let taps = log.records.filter { if case .dismiss(_, _, .tap, _) = $0 { return true } else { return false } }.count
        if scripts.contains(where: { $0.contains("id = 'undo'") }) && taps > 0 { toastsIn["undo"] = taps }
        var problems = RecordInvariant.violations(in: log.records, toastsIn: toastsIn)
        // Every record is strict JSON.
        for line in log.jsonLines.prefix(20_000) {
            var bytes = Array(line.utf8)
            let parsed = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
                var scanner = JSONScanner(UnsafeBufferPointer(buffer))
                return (try? scanner.parseValue()) != nil && { scanner.skipWhitespace(); return scanner.isAtEnd }()
            }
            if !parsed { problems.append("not JSON: \(line)") }
        }
        return (log.records.count, problems)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomStreamsKeepTheInvariant(seed: UInt64) throws {
        let script = """
            config{ rate_limit = { limit = 3, window = 4, summary = true }, queue = { limit = 2, max_visible = 2 } }
            """
        let (records, problems) = try Self.check(Self.randomStream(count: 50_000, seed: seed), scripts: seed == 1 ? [] : [script])
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(records > 40_000, "most of the 30,000 shows end in two records")
    }

    @Test func emittedToastsKeepTheInvariant() throws {
        let script = """
            local drops = 0
            rule(function(t) if t.message == 'Offline' and t.source == 's1' then emit{ message = 'Reconnecting', role = 'warning' } end end)
            on('drop', function(t, info)
              drops = drops + 1
              if drops % 7 == 0 then emit{ message = 'Hidden: ' .. drops, after = 0.5 } end
            end)
            on('dismiss', function(t, info) if info.reason == 'tap' then emit{ message = 'Undo?', duration = 1, id = 'undo' } end end)
            config{ rate_limit = { limit = 2, window = 3, summary = true } }
            """
        let (records, problems) = try Self.check(Self.randomStream(count: 30_000, seed: 4), scripts: [script])
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(records > 30_000)
    }

    @Test func randomStreamsKeepTheInvariantWithoutDrain() throws {
        let (_, problems) = try Self.check(Self.randomStream(count: 20_000, seed: 9), drain: false)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test(arguments: ["steady", "bursty"])
    func benchWorkloadsKeepTheInvariant(profile: String) throws {
        let generator = packageRoot.appendingPathComponent("bench/workload.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", generator, "--n", "100000", "--seed", "7", "--profile", profile]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let rules = try String(contentsOfFile: packageRoot.appendingPathComponent("bench/rules.lua").path,
                               encoding: .utf8)
        let (records, problems) = try Self.check(String(decoding: data, as: UTF8.self), scripts: [rules])
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(records > 100_000)
    }
}

/// The package's root folder, found from this file's place.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
