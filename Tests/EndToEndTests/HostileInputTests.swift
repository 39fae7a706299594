import Foundation
import Testing

/// The built binary on one stream holding every kind of hostile line issue 6 lists: each bad
/// line is rejected with its number and kept byte for byte in the dead-letter file, and every
/// other line is handled as if the bad ones were not there.
@Suite struct HostileInputTests {
    /// One input line: its bytes, and the message it is rejected with (nil: accepted).
    struct Line {
        var bytes: [UInt8]
        var rejection: String?
        var newline: [UInt8] = [0x0A]
    }

    static let longMessage = String(repeating: "é", count: 50_000)  // 100,000 bytes

    static func show(_ message: String, at seconds: Int, extra: String = "") -> [UInt8] {
        Array(#"{"message":"\#(message)","at":\#(seconds)\#(extra)}"#.utf8)
    }

    static let hostileLines: [Line] = [
        Line(bytes: [0xEF, 0xBB, 0xBF] + show("after a byte order mark", at: 0)),
        Line(bytes: Array("not json".utf8), rejection: "invalid JSON at column 1: unexpected 'n', expected a value"),
        Line(bytes: Array("[1,2]".utf8), rejection: "not a JSON object"),
        Line(bytes: Array(#"{"message":"bad "#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), rejection: "not valid UTF-8"),
        Line(bytes: Array(#"{"message":"nul"#.utf8) + [0x00] + Array(#""}"#.utf8),
             rejection: "invalid JSON at column 16: control character 0x0 in a string"),
        Line(bytes: [0x00], rejection: "invalid JSON at column 1: unexpected byte 0x0, expected a value"),
        Line(bytes: show("crlf", at: 10), newline: [0x0D, 0x0A]),
        Line(bytes: Array(#"{"message":"first","message":"duplicate keys: the last wins","at":20}"#.utf8)),
        Line(bytes: Array(#"{"message":"huge time","at":1e400}"#.utf8), rejection: "number out of range at column 29"),
        Line(bytes: Array(#"{"message":"deep","x":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 100_000)
                + Array(repeating: UInt8(ascii: "]"), count: 100_000) + [UInt8(ascii: "}")],
             rejection: "invalid JSON: nested deeper than 256 levels"),
        Line(bytes: show(String(repeating: "x", count: 3 << 20), at: 25),
             rejection: "line of 3145750 bytes is longer than --max-line-bytes (1048576)"),
        Line(bytes: show(longMessage, at: 30)),
        Line(bytes: []),
        Line(bytes: Array(" \t\r".utf8)),
        Line(bytes: show(#"escaped \u0000 nul"#, at: 40)),
        Line(bytes: show("last line, no newline", at: 50), newline: []),
    ]

    @Test func everyBadLineIsRejectedAndEveryOtherLineHandled() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ts-hostile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = directory.appendingPathComponent("events.jsonl").path
        let deadLetter = directory.appendingPathComponent("dead.jsonl").path
        _ = FileManager.default.createFile(atPath: events, contents: Data(Self.hostileLines.flatMap { $0.bytes + $0.newline }))

        let result = try runBinary(["--format", "json", "--stats", "--events", events, "--dead-letter", deadLetter])

        #expect(result.status == 65)
        let rejections = Self.hostileLines.enumerated().compactMap { index, line in
            line.rejection.map { "toastscript: input line \(index + 1): \($0)" }
        }
        let errorLines = result.stderr.split(separator: "\n").map(String.init)
        #expect(Array(errorLines.prefix(rejections.count)) == rejections)
        #expect(errorLines.contains("  lines read        16 (2 blank)"))
        #expect(errorLines.contains("  events            6"))
        #expect(errorLines.contains("  rejected lines    8"))

        let expectedRecords = [
            (0, "after a byte order mark"), (10, "crlf"), (20, "duplicate keys: the last wins"),
            (30, Self.longMessage), (40, #"escaped \u0000 nul"#), (50, "last line, no newline"),
        ].enumerated().flatMap { index, shown in
            let id = "t\(index + 1)"
            let present = #"{"event":"present","t":\#(shown.0),"id":"\#(id)","message":"\#(shown.1)","role":"info","placement":"top","policy":"enqueue","priority":0,"duration":3,"symbol":"info.circle.fill","glyph":"ℹ","color":"blue","announcement":"\#(shown.1)","waited":0}"#
            return [present, #"{"event":"dismiss","t":\#(shown.0 + 3),"id":"\#(id)","reason":"timeout","shown":3}"#]
        }
        // A show rejected after it was read as a JSON object (the `1e400` one) still counts for
        // implicit ids; lines that are not JSON objects do not.
        let ids = [1, 2, 3, 5, 6, 7]
        let renumbered = expectedRecords.enumerated().map { index, record in
            record.replacingOccurrences(of: #""id":"t\#(index / 2 + 1)""#, with: #""id":"t\#(ids[index / 2])""#)
        }
        #expect(result.stdout.split(separator: "\n").map(String.init) == renumbered)

        let rejected: [UInt8] = Self.hostileLines.filter { $0.rejection != nil }.flatMap { $0.bytes + [UInt8(0x0A)] }
        let kept = try [UInt8](Data(contentsOf: URL(fileURLWithPath: deadLetter)))
        #expect(kept.count == rejected.count)
        #expect(kept == rejected, "the dead-letter file holds exactly the rejected lines")
    }
}
