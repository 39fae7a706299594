import Foundation
import Testing

/// `Scripts/install PREFIX` puts the binary, the manual pages and a bash completion in place;
/// the pages pass both manual linters and know every option `--help` lists.
@Suite struct InstallTests {
    /// The options `--help` lists: `--input`, …, and the one-dash ones (`-e`).
    static func helpOptions() throws -> [String] {
        let help = try runBinary(["--help"]).stdout
        return help.split(separator: "\n").filter { $0.drop { $0 == " " }.hasPrefix("-") }.compactMap { line in
            // `-q, --quiet`: the long name; `-e CHUNK`: the one-dash name.
            let words = line.split(separator: " ")
            return words.first.map { $0.hasSuffix(",") ? String(words[1]) : String($0) }
        }
    }

    @Test func installsTheBinaryTheManualPagesAndACompletionThatKnowEveryOption() throws {
        let prefix = NSTemporaryDirectory() + "toastscript-install-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let install = try runShell("TOASTSCRIPT_BIN='\(binary)' Scripts/install '\(prefix)'")
        #expect(install.status == 0, "\(install.stderr)")
        let installed = try runShell("'\(prefix)/bin/toastscript' --version")
        #expect(installed.stdout.hasPrefix("toastscript 0.1.0"))

        let options = try Self.helpOptions()
        #expect(["--input", "--events", "--tz", "--max-line-bytes", "--quiet", "-e", "--help", "--version"].allSatisfy(options.contains),
                "\(options)")
        let manual = try String(contentsOfFile: prefix + "/share/man/man1/toastscript.1", encoding: .utf8)
        #expect(manual == (try String(contentsOfFile: root + "/man/toastscript.1", encoding: .utf8)))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man7/toastscript-lua.7"))
        // Each option has its own entry in OPTIONS.
        let optionsSection = try #require(manual.components(separatedBy: ".SH OPTIONS\n").last?.components(separatedBy: ".SH ").first)
        let entries = optionsSection.components(separatedBy: ".TP\n").dropFirst().map { $0.prefix { $0 != "\n" } }
        for option in options {
            let roff = option.replacingOccurrences(of: "-", with: "\\-")
            #expect(entries.contains { $0.split(separator: " ").contains(Substring(roff)) }, "\(option) has no entry in toastscript(1)")
        }

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
        // Every option and the short forms of -q, -h and -V.
        #expect(try complete("toastscript -").split(separator: " ").count == options.count + 3)
    }

    @Test(arguments: ["toastscript.1", "toastscript-lua.7"])
    func aManualPagePassesBothLintersWithoutAWarning(_ page: String) throws {
        let path = root + "/man/" + page
        let groff = try runShell("groff -ww -z -man '\(path)'")
        #expect(groff.status == 0)
        #expect(groff.stdout + groff.stderr == "")
        let mandoc = try runShell("mandoc -T lint '\(path)'")
        #expect(mandoc.status == 0)
        #expect(mandoc.stdout + mandoc.stderr == "")
        // The sections a reader looks for, in the usual order.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let wanted = page.hasSuffix(".1")
            ? ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]
            : ["NAME", "SYNOPSIS", "DESCRIPTION", "EXAMPLES", "SEE ALSO"]
        let sections = text.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
        #expect(sections.filter(wanted.contains) == wanted)
    }

    @Test func theLuaPageNamesEveryGlobalAScriptCanCall() throws {
        let text = try String(contentsOfFile: root + "/man/toastscript-lua.7", encoding: .utf8)
        for global in ["config{...}", "rule(fn), rule(name, fn)", "role(name, spec)", "on(event, fn)", "emit(table)", "now()", "log(...)",
                       "parse(fn)", "parse_time(text [, format])", "after(seconds, fn)", "vars",
                       "json.encode(value), json.decode(text)"] {
            #expect(text.contains(".SS " + global), "\(global)")
        }
    }
}
