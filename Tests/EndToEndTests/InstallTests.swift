import Foundation
import Testing

/// `Scripts/install PREFIX` puts the binary, a man page and a bash completion in place, the
/// last two written from `--help`.
@Suite struct InstallTests {
    @Test func installsTheBinaryAManPageAndACompletionThatKnowEveryOption() throws {
        let prefix = NSTemporaryDirectory() + "toastscript-install-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let install = try runShell("TOASTSCRIPT_BIN='\(binary)' Scripts/install '\(prefix)'")
        #expect(install.status == 0, "\(install.stderr)")
        let installed = try runShell("'\(prefix)/bin/toastscript' --version")
        #expect(installed.stdout.hasPrefix("toastscript 0.1.0"))

        let help = try runBinary(["--help"]).stdout
        let options = help.split(separator: "\n").filter { $0.drop { $0 == " " }.hasPrefix("-") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init)
        }
        #expect(["--input", "--events", "--tz", "--max-line-bytes", "--help", "--version"].allSatisfy(options.contains), "\(options)")
        let manual = try String(contentsOfFile: prefix + "/share/man/man1/toastscript.1", encoding: .utf8)
        #expect(manual.hasPrefix(".TH TOASTSCRIPT 1"))
        for option in options { #expect(manual.contains("\\fB" + option.replacingOccurrences(of: "-", with: "\\-") + "\\fR"), "\(option)") }
        for section in [".SH SYNOPSIS", ".SH OPTIONS", ".SH EXAMPLES", ".SH EXIT STATUS", ".SH SEE ALSO"] {
            #expect(manual.contains(section))
        }
        #expect(manual.contains("\\fB143\\fR"))

        let completion = prefix + "/share/bash-completion/completions/toastscript"
        func complete(_ words: String) throws -> String {
            try runShell("""
                source '\(completion)'
                COMP_WORDS=(\(words)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _toastscript
                echo "${COMPREPLY[*]}"
                """).stdout
        }
        #expect(try complete("toastscript --format ''") == "text json speech html\n")
        #expect(try complete("toastscript --clo") == "--clock\n")
        #expect(try complete("toastscript -") .split(separator: " ").count == options.count + 2)
    }
}
