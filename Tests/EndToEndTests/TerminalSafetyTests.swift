import Foundation
import Testing

/// A line in a watched log must not be able to act on the terminal (or a screen reader's pipe):
/// every control, DEL, C1, bidi and line-separator character that reaches `text` or `speech`
/// output, through any field, is written as a visible escape, and one record stays one line.
@Suite struct TerminalSafetyTests {
    /// Every character the output must never carry raw.
    static let unsafe: [Unicode.Scalar] = (0x00...0x1F).map { Unicode.Scalar($0)! } + [Unicode.Scalar(0x7F)!]
        + (0x80...0x9F).map { Unicode.Scalar($0)! }
        + (0x202A...0x202E).map { Unicode.Scalar($0)! } + (0x2066...0x2069).map { Unicode.Scalar($0)! }
        + [Unicode.Scalar(0x2028)!, Unicode.Scalar(0x2029)!]

    /// All of them in one string, as JSON `\uXXXX` escapes and as Lua `\u{XXXX}` escapes.
    static let json = unsafe.map { String(format: "\\u%04x", $0.value) }.joined()
    static let lua = unsafe.map { String(format: "\\u{%X}", $0.value) }.joined()

    /// Shows carrying them in the message, the subtitle and the id; a role whose name, glyph and
    /// label carry them; a rule whose name and note carry them.
    static let events = [
        #"{"id":"i\#(json)d","message":"m\#(json)m","subtitle":"s\#(json)s","role":"odd"}"#,
        #"{"message":"drop me \#(json)","at":5}"#,
    ].joined(separator: "\n") + "\n"
    static let script = """
        role("odd", { glyph = "g\(lua)", label = "L\(lua)" })
        rule("r\(lua)", function(t)
          if t.message:find("drop me", 1, true) then return false, "n\(lua)" end
          t.role = t.message:sub(1, 1) == "m" and "odd\(lua)" or t.role
        end)
        role("odd\(lua)", { glyph = "G\(lua)", label = "L\(lua)" })
        """

    private func run(_ format: String) throws -> BinaryResult {
        let directory = NSTemporaryDirectory() + "toastscript-safety-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.script.write(toFile: directory + "/rules.lua", atomically: true, encoding: .utf8)
        try Self.events.write(toFile: directory + "/events.jsonl", atomically: true, encoding: .utf8)
        return try runBinary(["--format", format, "--verbose", "--color", "always", directory + "/rules.lua",
                              "--events", directory + "/events.jsonl"])
    }

    /// The characters of `output` that must not be there: everything unsafe except the newline
    /// that ends each line, and the escape character of the colors toastscript itself writes.
    private func rawUnsafe(in output: String) -> [UInt32] {
        let withoutColors = output.replacing(try! Regex("\u{1B}\\[[0-9;]*m"), with: "")
        return withoutColors.unicodeScalars.filter { $0 != "\n" && Self.unsafe.contains($0) }.map(\.value)
    }

    @Test func textRecordsCarryNoRawControlOrBidiCharacterAndStayOneLineEach() throws {
        let result = try run("text")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(rawUnsafe(in: result.stdout) == [])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 3, "one line each for present, dismiss and drop:\n\(result.stdout)")
        // Shown visibly, as escapes.
        let escapes = #"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\t\n\u000b\u000c\r"#
        #expect(result.stdout.contains("m" + escapes))
        #expect(result.stdout.contains(#"\u001b\u001c\u001d\u001e\u001f\u007f\u0080"#))
        #expect(result.stdout.contains(#"\u009f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029s"#))
        #expect(rawUnsafe(in: result.stderr) == [])
    }

    @Test func speechCarriesNoRawControlOrBidiCharacterAndStaysOneLinePerToast() throws {
        let result = try run("speech")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(rawUnsafe(in: result.stdout) == [])
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stdout.hasPrefix(#"L\u0000"#))
    }

    @Test func jsonKeepsItsOwnEscapes() throws {
        let result = try run("json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(rawUnsafe(in: result.stdout).allSatisfy { $0 >= 0x7F }, "JSON escapes C0; the rest is valid JSON text")
        #expect(result.stdout.contains(#""message":"m\u0000\u0001"#))
    }

    @Test func messagesOnStderrQuoteInputSafely() throws {
        let result = try runBinary([], stdin: #"{"message":"x","role":"\u001b[2J\u0007"}"# + "\n")
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix(#"toastscript: input line 1: unknown role "\u001b[2J\u0007" (known:"#))
    }
}
