import Foundation
import Testing

/// docs/plugins.md shows whole files of examples/custom-stage, which `Scripts/test` builds and
/// tests: every Swift block there names its file on its first line and must be that file, so
/// what a reader copies compiles and passes.
@Suite struct PluginDocsTests {
    /// The fenced `swift` blocks of the page: (first line, the rest).
    static func swiftBlocks() throws -> [(header: String, body: String)] {
        let page = try String(contentsOfFile: root + "/docs/plugins.md", encoding: .utf8)
        var blocks: [(String, String)] = []
        var current: [String]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append((lines.first ?? "", lines.dropFirst().joined(separator: "\n") + "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func everySwiftBlockIsAFileOfTheExamplePackage() throws {
        let blocks = try Self.swiftBlocks()
        #expect(blocks.count >= 6)
        for block in blocks {
            #expect(block.header.hasPrefix("// examples/custom-stage/"), "a block names its file: \(block.header)")
            let path = String(block.header.dropFirst(3))
            let file = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            #expect(block.body == file, "docs/plugins.md shows \(path) as it is")
        }
    }

    /// Every source file of the package is on the page: its blocks, copied in order into a
    /// package of their own, are the package `Scripts/test` builds and tests.
    @Test func everySourceFileOfThePackageIsShown() throws {
        let shown = Set(try Self.swiftBlocks().map(\.header))
        let sources = root + "/examples/custom-stage/Sources"
        let files = try #require(FileManager.default.enumerator(atPath: sources)?.allObjects as? [String])
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 7)
        for file in files.sorted() {
            #expect(shown.contains("// examples/custom-stage/Sources/" + file), "docs/plugins.md does not show Sources/\(file)")
        }
    }

    /// The guide's `quiet_hours` reads the hour as the run shows times: local, or UTC with
    /// `--tz utc`. At 11:00 UTC it is 06:00 in New York: quiet there, not in UTC.
    @Test func quietHoursFollowTz() throws {
        let script = #"config{ quiet_hours = { from = 22, to = 7 }, stages = { "quiet_hours" } }"#
        let event = #"{"at":1764586800,"message":"Like"}"# + "\n"   // 2025-12-01 11:00 UTC
        let newYork = try runBinary(["--format", "json", "-e", script], stdin: event, environment: ["TZ": "America/New_York"],
                                    program: DocsTests.customBinary)
        #expect(newYork.stdout.hasPrefix(#"{"event":"drop","t":1764586800,"id":"t1","message":"Like","role":"info","stage":"quiet_hours","reason":"quiet_hours"}"#),
                "\(newYork.stdout)\(newYork.stderr)")
        let utc = try runBinary(["--format", "json", "--tz", "utc", "-e", script], stdin: event, environment: ["TZ": "America/New_York"],
                                program: DocsTests.customBinary)
        #expect(utc.stdout.hasPrefix(#"{"event":"present","t":1764586800,"id":"t1","message":"Like""#), "\(utc.stdout)")
    }

    @Test func theStagesAndTheirTestsAreAllShown() throws {
        let shown = Set(try Self.swiftBlocks().map(\.header))
        for path in ["Package.swift", "Sources/CustomStages/ShoutStage.swift", "Sources/CustomStages/PerSourceCapStage.swift",
                     "Sources/CustomStages/Registration.swift", "Sources/my-toastscript/main.swift",
                     "Tests/CustomStagesTests/PerSourceCapTests.swift"] {
            #expect(shown.contains("// examples/custom-stage/" + path))
        }
    }

    /// The files that make the plugin API: what a stage author writes against.
    static let apiFiles = ["Sources/ToastCore/Engine/StageContext.swift", "Sources/ToastCore/Engine/ToastStage.swift",
                           "Sources/ToastCore/Engine/PluginStage.swift", "Sources/ToastCore/Config/PluginSettings.swift",
                           "Sources/ToastCore/Config/DefaultSpare.swift",
                           "Sources/ToastCore/Model/StateRepresentable.swift",
                           "Sources/ToastPipelineTesting/StageHarness.swift", "Sources/ToastPipelineTesting/TestRecord.swift"]

    /// The names the API files declare public (functions, properties, types, cases).
    static func publicNames() throws -> Set<String> {
        let declaration = try NSRegularExpression(pattern: #"public (?:static )?(?:final )?(?:func|var|let|struct|class|enum|protocol|case|typealias) +([A-Za-z_][A-Za-z0-9_]*)"#)
        var names: Set<String> = []
        for file in apiFiles {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    /// The guide's tables are the API: every member a table names is declared public, and every
    /// public name of the plugin API is in the guide.
    @Test func theGuidesTablesAndTheAPIAgree() throws {
        let page = try String(contentsOfFile: root + "/docs/plugins.md", encoding: .utf8)
        let names = try Self.publicNames()
        #expect(names.count > 40)
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let member = try NSRegularExpression(pattern: #"`\.?(?:static let |associatedtype )?([A-Za-z][A-Za-z0-9_]*)"#)
        var named: Set<String> = []
        for row in rows {
            let first = String(row.dropFirst(2).prefix { $0 != "|" })
            for match in member.matches(in: first, range: NSRange(first.startIndex..., in: first)) {
                if let range = Range(match.range(at: 1), in: first) { named.insert(String(first[range])) }
            }
        }
        #expect(named.count > 40)
        // Initializers, and the requirements of the public protocols `ToastStage` and
        // `PluginStage` (which carry no `public` of their own).
        let declaredElsewhere: Set<String> = ["init", "process", "timerFired", "reload", "forNewScreen", "isIdle", "Settings",
                                              "TimerValue", "saveState", "restoreState", "saveTimerValue",
                                              "restoreTimerValue", "defaultSpare"]
        for name in named.sorted() where !declaredElsewhere.contains(name) {
            #expect(names.contains(name), "the guide's table names `\(name)`, which the API does not declare")
        }
        for name in names.sorted() {
            #expect(page.contains(name), "`\(name)` is public in the plugin API and not in docs/plugins.md")
        }
    }
}
