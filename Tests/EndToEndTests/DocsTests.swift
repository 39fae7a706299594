import Foundation
import Testing

/// Docs are tested like code: every fenced `lua` block of README.md and docs/ runs as a script
/// on the events shown after it (a `jsonl` block, or `text` lines), or on a small stream of its
/// own, and where an `output` block follows, the records must be that, byte for byte. A block
/// that is a piece of a script on purpose says so in its fence (`lua fragment`) and is only
/// compiled. The README's shell sessions (`$ command`, then what it prints) run as shown, and
/// the man pages' Lua examples run too.
@Suite struct DocsTests {
    struct Block: CustomTestStringConvertible, Sendable {
        let file: String
        let line: Int
        /// The fence's words after `lua`: `text` (the input is text lines), `fragment`.
        let words: [String]
        let code: String
        let events: String?
        let text: String?
        let output: String?
        var testDescription: String { "\(file):\(line)" }
    }

    static let documents = ["README.md"] + ((try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? [])
        .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    /// The `lua` blocks of a Markdown file (their fence's words: `text`, `syslog` or `logfmt`
    /// for the input format, `multiline`, `fragment`), each with the `jsonl`, `text` and `output` blocks
    /// that follow it (with nothing but blank lines between).
    static func blocks(in file: String) -> [Block] {
        guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { return [] }
        let lines = text.components(separatedBy: "\n")
        var fences: [(line: Int, info: [String], body: String, end: Int)] = []
        var index = 0
        while index < lines.count {
            guard lines[index].hasPrefix("```") else { index += 1; continue }
            let info = lines[index].dropFirst(3).split(separator: " ").map(String.init)
            var body: [String] = []
            var end = index + 1
            while end < lines.count && !lines[end].hasPrefix("```") { body.append(lines[end]); end += 1 }
            fences.append((index + 1, info, body.joined(separator: "\n") + "\n", end))
            index = end + 1
        }
        var blocks: [Block] = []
        for (position, fence) in fences.enumerated() where fence.info.first == "lua" {
            var events: String?, textInput: String?, output: String?
            var last = fence.end
            for next in fences[(position + 1)...] {
                let between = lines[(last + 1)..<(next.line - 1)]
                guard between.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) else { break }
                switch next.info.first {
                case "jsonl": events = next.body
                case "text": textInput = next.body
                case "output": output = next.body
                default: break
                }
                guard ["jsonl", "text", "output"].contains(next.info.first ?? "") else { break }
                last = next.end
            }
            blocks.append(Block(file: file, line: fence.line, words: Array(fence.info.dropFirst()), code: fence.body,
                                events: events, text: textInput, output: output))
        }
        return blocks
    }

    static let allBlocks = documents.flatMap(blocks(in:))

    /// The example plugin's `my-toastscript` (examples/custom-stage), which `Scripts/test` builds.
    static let customBinary = ProcessInfo.processInfo.environment["TOASTSCRIPT_CUSTOM_BIN"]
        ?? root + "/examples/custom-stage/.build/debug/my-toastscript"

    /// A small stream for a block that shows no events of its own.
    static let someEvents = """
        {"at":0,"message":"Saved","role":"success","source":"editor"}
        {"at":1,"message":"Upload failed","subtitle":"No connection","role":"error","source":"uploads"}
        {"at":2,"message":"cache warmed","level":"debug","source":"cache"}
        {"at":3,"message":"Disk almost full","role":"warning","source":"backup"}
        {"at":4,"type":"tap"}

        """
    static let someLines = """
        2026-11-28 09:14:04 install jq:amd64 <none> 1.6-2.1
        {"message":"a text line that holds JSON"}
        2026-11-28 09:14:05 status installed jq:amd64 1.6-2.1

        """

    @Test(arguments: allBlocks)
    func everyLuaBlockRuns(_ block: Block) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ts-docs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("block.lua").path
        if block.words.contains("fragment") {
            // A piece of a script: it compiles.
            try ("return function(...)\n" + block.code + "\nend\n").write(toFile: script, atomically: true, encoding: .utf8)
        } else {
            try block.code.write(toFile: script, atomically: true, encoding: .utf8)
        }
        // The input format a block reads its `text` lines as: its fence's word, or JSON.
        let format = ["text", "syslog", "logfmt"].first(where: block.words.contains)
        let textInput = format != nil
        let input = textInput ? (block.text ?? Self.someLines) : (block.events ?? Self.someEvents)
        // The plugin guide's blocks place the example plugin's stages: they run on its binary.
        let program = block.file == "docs/plugins.md" ? Self.customBinary : binary
        #expect(FileManager.default.isExecutableFile(atPath: program), "build examples/custom-stage (Scripts/test does)")
        let run = try runBinary(["--clock", "stream", "--format", "json"] + (format.map { ["--input", $0] } ?? [])
                                + (block.words.contains("multiline") ? ["--multiline"] : []) + [script],
                                stdin: input, environment: ["TZ": "UTC", "TOASTSCRIPT_NOW": "1796558400"], program: program)
        #expect(run.status == 0, "\(block.file):\(block.line): \(run.stderr)")
        if let output = block.output {
            #expect(run.stdout == output, "\(block.file):\(block.line)")
        }
    }

    @Test func fragmentsAreFewAndEveryDocumentsLuaIsFenced() throws {
        #expect(Self.allBlocks.filter { $0.words.contains("fragment") }.count <= 3)
        #expect(Self.allBlocks.count >= 20)
        // An indented block that starts like Lua would escape the test: there is none.
        for file in Self.documents {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            var inFence = false
            for (index, line) in lines.enumerated() {
                if line.hasPrefix("```") { inFence.toggle(); continue }
                guard !inFence, line.hasPrefix("    "), index == 0 || lines[index - 1].isEmpty else { continue }
                let code = line.dropFirst(4)
                let looksLikeLua = ["config{", "rule(", "role(", "on(", "emit{", "parse(", "local ", "after("]
                    .contains { code.hasPrefix($0) }
                #expect(!looksLikeLua, "\(file):\(index + 1) is Lua in an indented block: fence it as ```lua")
            }
        }
    }

    /// The README's shell sessions: each `$ command` runs in a scratch folder (where
    /// `Scripts/toastscript` is the built binary), and prints what the README shows; `$ cat FILE`
    /// makes FILE of what it shows.
    @Test func theReadmeSessionsPrintWhatTheyShow() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ts-readme-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Scripts"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let wrapper = directory.appendingPathComponent("Scripts/toastscript").path
        try "#!/bin/sh\nexec '\(binary)' \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        _ = try runShell("chmod +x '\(wrapper)'")
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8).components(separatedBy: "\n")
        var sessions = 0
        var index = 0
        while index < readme.count {
            guard readme[index].hasPrefix("    $ ") else { index += 1; continue }
            sessions += 1
            while index < readme.count, readme[index].hasPrefix("    $ ") {
                var command = String(readme[index].dropFirst(6))
                index += 1
                while command.hasSuffix("\\"), index < readme.count {
                    command = String(command.dropLast()) + " " + readme[index].trimmingCharacters(in: .whitespaces)
                    index += 1
                }
                var shown: [String] = []
                while index < readme.count, readme[index].hasPrefix("    "), !readme[index].hasPrefix("    $ ") {
                    shown.append(String(readme[index].dropFirst(4)))
                    index += 1
                }
                let expected = shown.map { $0 + "\n" }.joined()
                if command.hasPrefix("cat "), !command.contains("|") {
                    try expected.write(to: directory.appendingPathComponent(String(command.dropFirst(4))), atomically: true, encoding: .utf8)
                    continue
                }
                let run = try runShell("cd '\(directory.path)' && NO_COLOR=1 \(command)")
                #expect(run.stdout == expected, "README: $ \(command)")
            }
        }
        #expect(sessions >= 2)
    }

    /// The man pages' examples of Lua (`.EX` … `.EE` blocks that hold a script) run.
    @Test func theManPagesLuaExamplesRun() throws {
        let page = try String(contentsOfFile: root + "/man/toastscript-lua.7", encoding: .utf8)
        let blocks = page.components(separatedBy: ".EX\n").dropFirst().compactMap { $0.components(separatedBy: ".EE").first }
            .map { $0.replacingOccurrences(of: "\\e", with: "\\").replacingOccurrences(of: "\\-", with: "-")
                .replacingOccurrences(of: "\\(dq", with: "\"").replacingOccurrences(of: "\\(aq", with: "'") }
            .filter { ["rule(", "config{", "role(", "on("].contains(where: $0.contains) }
        #expect(blocks.count >= 3)
        for block in blocks {
            let run = try runBinary(["--clock", "stream", "--format", "json", "-e", block], stdin: Self.someEvents)
            #expect(run.status == 0, "\(block)\n\(run.stderr)")
        }
        // The masking example masks whole addresses, dots, pluses and underscores included.
        let mask = try #require(blocks.first { $0.contains("mask") })
        let masked = try runBinary(["--format", "json", "-e", mask],
                                   stdin: #"{"message":"mail j.smith+tag@example.com or maria_lopez@mail.example.org"}"# + "\n")
        #expect(masked.stdout.contains(#""message":"mail *** or ***""#), "\(masked.stdout)")
    }
}
