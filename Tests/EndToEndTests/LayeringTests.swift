import Foundation
import Testing

/// The modules depend on each other one way only, and the compiler holds those arrows
/// (`Package.swift`). Inside a module the folders depend on each other one way only too (the
/// README, "Where things are"); this test holds those: a type named in a folder must be declared
/// in that folder or in one it may use.
@Suite struct LayeringTests {
    /// Each folder (`Module/Folder`) and the folders it may use.
    static let allowed: [String: Set<String>] = {
        let core = ["Unsafe", "Model", "Trace", "Config", "Host", "Engine", "Stages"].map { "ToastCore/" + $0 }
        let rules: [String: [String]] = [
            "ToastCore/Unsafe": [],
            "ToastCore/Model": ["ToastCore/Unsafe"],
            "ToastCore/Trace": ["ToastCore/Model", "ToastCore/Unsafe"],
            "ToastCore/Config": ["ToastCore/Model", "ToastCore/Unsafe"],
            "ToastCore/Host": ["ToastCore/Model", "ToastCore/Unsafe", "ToastCore/Config", "ToastCore/Trace"],
            "ToastCore/Engine": ["ToastCore/Model", "ToastCore/Unsafe", "ToastCore/Config", "ToastCore/Trace",
                                 "ToastCore/Host"],
            "ToastCore/Stages": ["ToastCore/Model", "ToastCore/Unsafe", "ToastCore/Config", "ToastCore/Trace",
                                 "ToastCore/Engine"],
            "ToastIO/Unsafe": ["ToastCore/Unsafe"],
            "ToastIO/Input": core + ["ToastIO/Unsafe", "ToastIO/Output"],
            "ToastIO/Output": core,
            "ToastIO/Desktop": core,
            "ToastIO/Redis": core + ["ToastIO/Output"],
            "ToastLua/Lua": core + ["ToastIO/Input"],
            "ToastCLI/Diff": core,
            "ToastCLI/State": core + ["ToastIO/Input", "ToastIO/Output", "ToastLua/Lua"],
            // A consumer keeps its state in Redis as a state file keeps it: rows of a SavedRun.
            "ToastCLI/Redis": core + ["ToastIO/Input", "ToastIO/Output", "ToastIO/Redis", "ToastCLI/State"],
        ]
        var allowed = rules.mapValues(Set.init)
        allowed["ToastCLI/CLI"] = Set(rules.keys)
        return allowed
    }()

    static let sources = root + "/Sources"

    /// The Swift files of each folder of the library's modules, their text without comments and
    /// string literals.
    static func folders() throws -> [String: [(file: String, code: String)]] {
        var result: [String: [(file: String, code: String)]] = [:]
        let manager = FileManager.default
        for module in ["ToastCore", "ToastIO", "ToastLua", "ToastCLI"] {
            for folder in try manager.contentsOfDirectory(atPath: sources + "/" + module) where !folder.hasSuffix(".swift") {
                let path = module + "/" + folder
                guard let files = manager.enumerator(atPath: sources + "/" + path) else { continue }
                for case let file as String in files where file.hasSuffix(".swift") {
                    let text = try String(contentsOfFile: sources + "/" + path + "/" + file, encoding: .utf8)
                    result[path, default: []].append((path + "/" + file, codeOnly(text)))
                }
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
        #expect(owner["Toast"] == "ToastCore/Model" && owner["Pipeline"] == "ToastCore/Engine"
                    && owner["LuaRuntime"] == "ToastLua/Lua",
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

/// What the README says of the code is what the code is: the public types it lists, and the
/// files that reach each C library.
@Suite struct ReadmeClaimsTests {
    static func swiftFiles(under folder: String) -> [String] {
        let base = root + "/" + folder
        return ((FileManager.default.enumerator(atPath: base)?.allObjects as? [String]) ?? [])
            .filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }.sorted()
    }

    @Test func theReadmeListsEveryPublicTypeAndNoOther() throws {
        let declaration = try NSRegularExpression(pattern: #"(?m)^(?:public|open) (?:final |indirect )?(?:class|struct|enum|protocol|typealias|actor) ([A-Za-z][A-Za-z0-9]*)"#)
        var declared: Set<String> = []
        for module in ["ToastCore", "ToastIO", "ToastLua", "ToastPipeline", "ToastCLI", "ToastPipelineTesting"] {
            for file in Self.swiftFiles(under: "Sources/" + module) {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text) { declared.insert(String(text[range])) }
                }
            }
        }
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "What a program that imports `ToastPipeline` and `ToastCLI` sees"))
        let paragraph = readme[start.lowerBound...].components(separatedBy: "\n\n")[0]
        let named = Set(try NSRegularExpression(pattern: "`([A-Z][A-Za-z0-9]*)`")
            .matches(in: String(paragraph), range: NSRange(paragraph.startIndex..., in: paragraph))
            .compactMap { Range($0.range(at: 1), in: paragraph).map { String(paragraph[$0]) } })
            .subtracting(["ToastPipeline", "ToastCLI", "ToastPipelineTesting"])
        #expect(declared.subtracting(named).sorted() == [], "public, and not in the README's list")
        #expect(named.subtracting(declared).sorted() == [], "in the README's list, and not public")
    }

    /// An Unsafe/ folder holds only what touches raw memory or threads, and each of its files
    /// says, in a comment, why it is safe to use ("Safe to use…", "Safe for any buffer…",
    /// "Shared by the threads…: what both touch is guarded…").
    @Test func everyUnsafeFileSaysWhyItIsSafe() throws {
        let files = Self.swiftFiles(under: "Sources").filter { $0.contains("/Unsafe/") }
        #expect(files.count > 30)
        for file in files {
            let comments = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n")
                .filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: " ")
            let says = ["Safe ", "safe ", "safe:", "Safe:", "Shared by the", "Unsafe only"].contains { comments.contains($0) }
            #expect(says, "\(file) does not say why it is safe")
        }
    }

    /// A file a reader can hold: none of the sources is over 700 lines.
    @Test func noSourceFileIsOver700Lines() throws {
        for file in Self.swiftFiles(under: "Sources") {
            let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 701, "\(file) has \(lines - 1) lines")
        }
    }

    @Test func onlyTheFilesTheReadmeNamesReachHiredisAndLua() throws {
        func importing(_ module: String) throws -> [String] {
            try Self.swiftFiles(under: "Sources").filter {
                try String(contentsOfFile: root + "/" + $0, encoding: .utf8).contains("import \(module)\n")
            }
        }
        #expect(try importing("CSQLite") == ["Sources/ToastCLI/State/Unsafe/SQLiteDatabase.swift"])
        #expect(try importing("CHiredis") == ["Sources/ToastIO/Redis/Unsafe/RedisCommands.swift",
                                              "Sources/ToastIO/Redis/Unsafe/RedisConnection.swift"])
        #expect(try (importing("CLua") + importing("CLuaBridge")).sorted() == ["Sources/ToastLua/Lua/Unsafe/LuaStack.swift",
                                                                             "Sources/ToastLua/Lua/Unsafe/LuaState.swift"])
    }
}
