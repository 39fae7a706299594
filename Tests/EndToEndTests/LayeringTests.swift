import Foundation
import Testing

/// The folders of `Sources/ToastPipeline` depend on each other one way only (the README, "Where
/// things are"). They are one Swift module, so the compiler does not hold these arrows; this
/// test does: a type named in a folder must be declared in that folder or in one it may use.
@Suite struct LayeringTests {
    /// Each folder and the folders it may use.
    static let allowed: [String: Set<String>] = [
        "Unsafe": [],
        "Model": ["Unsafe"],
        "Trace": ["Model", "Unsafe"],
        "Config": ["Model", "Unsafe"],
        "Input": ["Model", "Unsafe"],
        "Host": ["Model", "Unsafe", "Config", "Trace"],
        "Engine": ["Model", "Unsafe", "Config", "Trace", "Host"],
        "Stages": ["Model", "Unsafe", "Config", "Trace", "Engine"],
        "Output": ["Model", "Unsafe", "Config", "Trace", "Engine"],
        "Diff": ["Model", "Unsafe", "Engine"],
        "Desktop": ["Model", "Unsafe", "Engine"],
        "Lua": ["Model", "Unsafe", "Config", "Trace", "Input", "Engine", "Stages"],
        "CLI": ["Model", "Unsafe", "Config", "Trace", "Input", "Host", "Engine", "Stages", "Output", "Diff",
                "Desktop", "Lua"],
    ]

    static let sources = root + "/Sources/ToastPipeline"

    /// The Swift files of each folder, their text without comments and string literals.
    static func folders() throws -> [String: [(file: String, code: String)]] {
        var result: [String: [(file: String, code: String)]] = [:]
        let manager = FileManager.default
        for folder in try manager.contentsOfDirectory(atPath: sources) {
            guard let files = manager.enumerator(atPath: sources + "/" + folder) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: sources + "/" + folder + "/" + file, encoding: .utf8)
                result[folder, default: []].append((folder + "/" + file, codeOnly(text)))
            }
        }
        return result
    }

    /// The text with `//` comments and string literals blanked (roughly: enough to find names).
    static func codeOnly(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var out = ""
            var inString = false
            var previous: Character = " "
            for character in line {
                if !inString && character == "/" && previous == "/" { out.removeLast(); break }
                if character == "\"" && previous != "\\" { inString.toggle(); out.append(" ") }
                else { out.append(inString ? " " : character) }
                previous = character
            }
            return out
        }.joined(separator: "\n")
    }

    /// Names declared at the top level of a file (types and functions), by folder.
    static func declarations(in folders: [String: [(file: String, code: String)]]) -> [String: String] {
        let pattern = try! NSRegularExpression(
            pattern: #"^(?:(?:public|package|final|indirect)\s+)*(?:struct|class|enum|protocol|typealias|actor|func)\s+(\w+)"#,
            options: .anchorsMatchLines)
        var owner: [String: String] = [:]
        var ambiguous: Set<String> = []
        for (folder, files) in folders {
            for (_, code) in files {
                let range = NSRange(code.startIndex..., in: code)
                for match in pattern.matches(in: code, range: range) {
                    guard let nameRange = Range(match.range(at: 1), in: code) else { continue }
                    let name = String(code[nameRange])
                    if let other = owner[name], other != folder { ambiguous.insert(name) }
                    owner[name] = folder
                }
            }
        }
        for name in ambiguous { owner[name] = nil }
        return owner
    }

    @Test func everyFolderUsesOnlyTheFoldersBelowIt() throws {
        let folders = try Self.folders()
        #expect(Set(folders.keys) == Set(Self.allowed.keys), "a new folder needs its place in `allowed`")
        let owner = Self.declarations(in: folders)
        #expect(owner["Toast"] == "Model" && owner["Pipeline"] == "Engine" && owner["LuaRuntime"] == "Lua",
                "the scan finds the declarations")
        let word = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        var wrong: [String] = []
        for (folder, files) in folders {
            let mayUse = (Self.allowed[folder] ?? []).union([folder])
            for (file, code) in files {
                var named: Set<String> = []
                for match in word.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    guard let range = Range(match.range, in: code) else { continue }
                    named.insert(String(code[range]))
                }
                for name in named.sorted() {
                    if let home = owner[name], !mayUse.contains(home) { wrong.append("\(file) uses \(name) from \(home)/") }
                }
            }
        }
        #expect(wrong == [])
    }
}
