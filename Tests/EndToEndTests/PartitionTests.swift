import Foundation
import Testing

/// Partitions past one process (docs/scale.md): a stream split by screen, each part run by its
/// own toastscript, gives every screen the records one run over the whole stream gives it.
@Suite struct PartitionTests {
    static let script = "config{ screens = { by = 'user' }, rate_limit = { limit = 1, window = 5, key = 'user' } }"
    static let parts = 4

    /// A stream of 40 users' toasts and interactions, every event with `at`, explicit ids, and
    /// every interaction naming its screen: bursts (the rate limit), repeats (dedup), taps,
    /// dismisses by id, long lines of waiting toasts.
    static let stream: [(user: String, line: String)] = {
        var generator = SplitMix(seed: 29)
        var events: [(String, String)] = []
        var time = 0.0
        var shown: [String: [String]] = [:]
        for index in 0..<1_200 {
            time += Double(generator.next() % 400) / 1000
            let user = "u\(generator.next() % 40)"
            let at = String(format: "%.3f", time)
            switch generator.next() % 10 {
            case 0 where !(shown[user]?.isEmpty ?? true):
                events.append((user, #"{"at":\#(at),"type":"tap","user":"\#(user)"}"#))
            case 1 where !(shown[user]?.isEmpty ?? true):
                let id = shown[user]?.randomElement(using: &generator) ?? ""
                events.append((user, #"{"at":\#(at),"type":"dismiss","id":"\#(id)","user":"\#(user)"}"#))
            default:
                let id = "\(user)-\(index)"
                let message = ["Saved", "Sync failed", "Upload done", "New message \(index % 7)"][Int(generator.next() % 4)]
                let role = ["info", "success", "error", "warning"][Int(generator.next() % 4)]
                shown[user, default: []].append(id)
                events.append((user, #"{"at":\#(at),"id":"\#(id)","message":"\#(message)","role":"\#(role)","user":"\#(user)"}"#))
            }
        }
        return events
    }()

    /// The part a screen goes to: any function of the screen alone will do.
    static func part(of user: String) -> Int {
        Int(user.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0x7fff_ffff) % parts
    }

    /// Records by screen, each record's JSON line as written.
    static func recordsByScreen(_ output: String) throws -> [String: [String]] {
        var byScreen: [String: [String]] = [:]
        for line in output.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byScreen["\(record["screen"] ?? "none")", default: []].append(String(line))
        }
        return byScreen
    }

    static func wholeRun() throws -> [String: [String]] {
        let whole = try runBinary(["--format", "json", "-e", script],
                                  stdin: stream.map(\.line).joined(separator: "\n") + "\n")
        #expect(whole.status == 0, "\(whole.stderr)")
        return try recordsByScreen(whole.stdout)
    }

    @Test func fourProcessesGiveEveryScreenTheRecordsOfOneRun() throws {
        let whole = try Self.wholeRun()
        #expect(whole.count == 40)
        #expect(whole.values.contains { $0.contains { $0.contains("rate_limited") } }, "the stream exercises the rate limit")
        #expect(whole.values.contains { $0.contains { $0.contains("\"tap\"") } }, "and taps")
        // Four processes at once, each fed its part.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("partitions-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var processes: [(Process, Pipe, URL)] = []
        for part in 0..<Self.parts {
            let input = directory.appendingPathComponent("part\(part).jsonl")
            let lines = Self.stream.filter { Self.part(of: $0.user) == part }.map(\.line)
            try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--format", "json", "-e", Self.script]
            process.standardInput = try FileHandle(forReadingFrom: input)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            processes.append((process, output, input))
        }
        var merged: [String: [String]] = [:]
        for (process, output, _) in processes {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            try merged.merge(Self.recordsByScreen(String(decoding: data, as: UTF8.self))) { $0 + $1 }
        }
        #expect(merged.keys.sorted() == whole.keys.sorted())
        for (screen, records) in whole {
            #expect(merged[screen] == records, "screen \(screen)")
        }
    }

    /// The same through Redis Streams, as docs/scale.md runs it: a producer shards the events
    /// by screen into one stream per part, and one consumer per part reads its stream through a
    /// consumer group and writes its records to a stream of its own, all four at once.
    @Test func redisStreamsOnePerPartGiveTheSameRecords() throws {
        let whole = try Self.wholeRun()
        let server = try RedisServer()
        for part in 0..<Self.parts {
            try server.add(to: "events:\(part)", field: "line", Self.stream.filter { Self.part(of: $0.user) == part }.map(\.line))
        }
        let consumers = try (0..<Self.parts).map { part in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--redis", server.socket, "--from", "events:\(part)", "--group", "toasts", "--consumer", "shard\(part)",
                                 "--to", "records:\(part)", "--once", "-q", "-e", Self.script]
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return process
        }
        var merged: [String: [String]] = [:]
        for (part, consumer) in consumers.enumerated() {
            consumer.waitUntilExit()
            #expect(consumer.terminationStatus == 0, "shard \(part)")
            try merged.merge(Self.recordsByScreen(try server.records(of: "records:\(part)").joined(separator: "\n"))) { $0 + $1 }
        }
        #expect(merged.keys.sorted() == whole.keys.sorted())
        for (screen, records) in whole {
            #expect(merged[screen] == records, "screen \(screen)")
        }
    }
}

/// A small seeded generator, so the stream is the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
