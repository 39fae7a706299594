import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// Issue 6's accounting on random streams mixing good and hostile lines: `--stats` and the
/// records agree, every toast that came in ends exactly once, and the dead-letter file holds
/// exactly the rejected lines, byte for byte.
@Suite struct AccountingTests {
    /// Good lines, each a show with its own id (so the test knows what came in).
    static func goodLine(_ index: Int, random: inout InvariantTests.SeededGenerator) -> [UInt8] {
        let extras = [#""#, #","policy":"stack""#, #","after":0.5"#, #","duration":null"#, #","policy":"replace""#]
        let extra = extras.randomElement(using: &random)!
        return Array(#"{"id":"g\#(index)","message":"m\#(Int.random(in: 0..<4, using: &random))","at":\#(index)\#(extra)}"#.utf8)
    }

    /// Lines that must be rejected, of every kind the input can get wrong.
    static let badLines: [[UInt8]] = [
        Array("not json".utf8), Array("[1]".utf8), Array("{".utf8), Array(#"{"message":""}"#.utf8),
        Array(#"{"message":"x","role":"nope"}"#.utf8), Array(#"{"message":"x","at":NaN}"#.utf8),
        Array(#"{"message":"x","at":1e400}"#.utf8), Array(#"{"type":"drag"}"#.utf8),
        Array(#"{"message":"\#u{1}"}"#.utf8), [0xFF, 0xFE], [0x00], [0xC3, 0x28],
        Array(#"{"message":"x","priority":1.5}"#.utf8), Array(String(repeating: "z", count: 300).utf8),
        Array(#"{"message":"\#(String(repeating: "y", count: 300))"}"#.utf8),
    ]

    /// Lines that are neither events nor rejected.
    static let blankLines: [[UInt8]] = [[], Array(" \t".utf8), [0x0D]]

    /// Interactions: events, but no toast comes in.
    static let interactions: [[UInt8]] = [
        Array(#"{"type":"tap"}"#.utf8), Array(#"{"type":"dismiss_all"}"#.utf8), Array(#"{"type":"tick"}"#.utf8),
        Array(#"{"type":"drag","phase":"end","dy":-40}"#.utf8),
    ]

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func statsRecordsAndDeadLetterAgree(seed: UInt64) throws {
        var random = InvariantTests.SeededGenerator(state: seed)
        var input: [UInt8] = []
        var rejected: [UInt8] = []
        var rejectedNumbers: [Int] = []
        var toastsIn: [String: Int] = [:]
        var events = 0
        var blanks = 0
        let count = 3_000
        for number in 1...count {
            // CRLF endings now and then (kept in the dead-letter file as read); the last line
            // has no newline.
            let crlf = Int.random(in: 0..<8, using: &random) == 0
            let line: [UInt8]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                line = Self.goodLine(number, random: &random)
                toastsIn["g\(number)", default: 0] += 1
                events += 1
            case 5..<7:
                line = Self.badLines.randomElement(using: &random)!
                rejected += line + (crlf && number < count ? [0x0D, 0x0A] : [0x0A])
                rejectedNumbers.append(number)
            case 7:
                line = Self.blankLines.randomElement(using: &random)!
                blanks += 1
            default:
                line = Self.interactions.randomElement(using: &random)!
                events += 1
            }
            input += line
            if number < count { input += crlf ? [0x0D, 0x0A] : [0x0A] }
        }

        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let deadLetter = directory + "/dead.jsonl"
        let output = MemorySink()
        var errors: [String] = []
        let environment = CommandEnvironment(standardInput: MemorySource(input), standardOutput: output,
                                             writeError: { errors.append($0) })
        // --verbose: every rejection is reported, none only counted.
        let status = Toastscript.run(arguments: ["--format", "json", "--stats", "--verbose", "--max-line-bytes", "200",
                                                 "--dead-letter", deadLetter], environment: environment)
        #expect(status == 65)

        let rejections = errors.filter { $0.hasPrefix("toastscript: input line ") }
        #expect(rejections.map { Int($0.dropFirst(24).prefix { $0.isNumber }) ?? 0 } == rejectedNumbers)
        #expect(errors.contains("  lines read        \(count) (\(blanks) blank)"))
        #expect(errors.contains("  events            \(events)"))
        #expect(errors.contains("  rejected lines    \(rejectedNumbers.count)"))
        #expect(errors.last == "toastscript: \(rejectedNumbers.count) input lines rejected (--dead-letter has every rejected line)")
        #expect(count == events + rejectedNumbers.count + blanks)

        let kept = try [UInt8](Data(contentsOf: URL(fileURLWithPath: deadLetter)))
        #expect(kept == rejected, "the dead-letter file holds exactly the rejected lines")

        // Every toast that came in ends in one drop, or one present and then one dismiss.
        var endings: [String: [String]] = [:]
        for line in output.text.split(separator: "\n") {
            var bytes = Array(line.utf8)
            let members = bytes.withUnsafeMutableBufferPointer { buffer -> [JSONMember] in
                var scanner = JSONScanner(UnsafeBufferPointer(buffer))
                guard case .object(let members)? = try? scanner.parseValue() else { return [] }
                return members
            }
            func field(_ name: String) -> String { members.first { $0.name == name }?.value.stringValue ?? "?" }
            endings[field("id"), default: []].append(field("event"))
        }
        #expect(Set(endings.keys) == Set(toastsIn.keys))
        #expect(endings.values.allSatisfy { $0 == ["drop"] || $0 == ["present", "dismiss"] })
    }

    /// A regular file is read and decoded on a second thread (`ReadAhead`); it must give exactly
    /// what the one-thread loop gives: records, messages, statistics and dead letters.
    @Test(arguments: [5, 6] as [UInt64])
    func readingAheadGivesWhatTheOneThreadLoopGives(seed: UInt64) throws {
        var random = InvariantTests.SeededGenerator(state: seed)
        var input: [UInt8] = []
        for number in 1...5_000 {
            let kind = Int.random(in: 0..<10, using: &random)
            input += kind < 6 ? Self.goodLine(number, random: &random)
                : kind < 8 ? Self.badLines.randomElement(using: &random)!
                : kind < 9 ? Self.blankLines.randomElement(using: &random)! : Self.interactions.randomElement(using: &random)!
            input.append(0x0A)
        }
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let events = directory + "/events.jsonl"
        try Data(input).write(to: URL(fileURLWithPath: events))
        func run(fromFile: Bool) throws -> (status: Int32, output: [UInt8], errors: [String], deadLetter: [UInt8]) {
            let deadLetter = directory + "/dead-\(fromFile).jsonl"
            let output = MemorySink()
            var errors: [String] = []
            let environment = CommandEnvironment(standardInput: MemorySource(input), standardOutput: output,
                                                 writeError: { errors.append($0) })
            let arguments = ["--format", "json", "--stats", "--max-line-bytes", "200", "--dead-letter", deadLetter,
                             "--lua-budget", "100000"] + (fromFile ? ["--events", events] : [])
            let script = directory + "/rules.lua"
            try "rule(function(t) if t.message == 'm3' then error('no m3') end end)".write(toFile: script, atomically: true, encoding: .utf8)
            let status = Toastscript.run(arguments: arguments + [script], environment: environment)
            return (status, output.bytes, errors.filter { !$0.hasPrefix("  events/s") },
                    try [UInt8](Data(contentsOf: URL(fileURLWithPath: deadLetter))))
        }
        let inline = try run(fromFile: false)
        let ahead = try run(fromFile: true)
        #expect(ahead.status == inline.status)
        #expect(ahead.output == inline.output)
        #expect(ahead.errors == inline.errors)
        #expect(ahead.deadLetter == inline.deadLetter)
        #expect(inline.errors.contains { $0.contains("no m3") } && inline.errors.contains { $0.contains("input line") })
    }
}
