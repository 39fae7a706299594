import Foundation
import Testing

/// docs/plugins.md shows whole files of Examples/CustomStage, which `Scripts/test` builds and
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
            #expect(block.header.hasPrefix("// Examples/CustomStage/"), "a block names its file: \(block.header)")
            let path = String(block.header.dropFirst(3))
            let file = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            #expect(block.body == file, "docs/plugins.md shows \(path) as it is")
        }
    }

    @Test func theStagesAndTheirTestsAreAllShown() throws {
        let shown = Set(try Self.swiftBlocks().map(\.header))
        for path in ["Package.swift", "Sources/CustomStages/ShoutStage.swift", "Sources/CustomStages/PerSourceCapStage.swift",
                     "Sources/CustomStages/Registration.swift", "Sources/my-toastscript/main.swift",
                     "Tests/CustomStagesTests/PerSourceCapTests.swift"] {
            #expect(shown.contains("// Examples/CustomStage/" + path))
        }
    }
}
