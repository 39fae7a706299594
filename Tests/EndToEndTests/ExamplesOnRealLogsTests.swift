import Foundation
import Testing

/// Examples that name a real log (`examples/dpkg.lua` reads /var/log/dpkg.log) on a log made
/// with a known truth: every error toast names a package dpkg left unfinished, and every such
/// package is shown — whatever the triggers' timing, and however slow a removal.
@Suite struct ExamplesOnRealLogsTests {
    /// A dpkg.log as apt writes it, and the packages it leaves unfinished.
    static func dpkgLog() -> (log: String, unfinished: [String]) {
        var lines: [String] = []
        var second = 0
        func line(_ text: String, after seconds: Int = 0) {
            second += seconds
            let minutes = second / 60, rest = second % 60
            lines.append(String(format: "2026-11-28 %02d:%02d:%02d ", 9 + minutes / 60, minutes % 60, rest) + text)
        }
        // apt's unpack run: an upgrade, a new package, and one that is never configured.
        line("startup archives unpack")
        line("upgrade libssl3:amd64 3.0.15-1 3.0.17-1")
        for state in ["half-configured", "unpacked", "half-installed"] { line("status \(state) libssl3:amd64 3.0.15-1") }
        line("status unpacked libssl3:amd64 3.0.17-1", after: 1)
        line("install man-db:amd64 <none> 2.11.2-2")
        line("status half-installed man-db:amd64 2.11.2-2")
        line("status unpacked man-db:amd64 2.11.2-2", after: 2)
        line("install broken-postinst:all <none> 1.0")
        line("status half-installed broken-postinst:all 1.0")
        line("status unpacked broken-postinst:all 1.0")
        line("install never-configured:all <none> 2.0")
        line("status half-installed never-configured:all 2.0")
        line("status unpacked never-configured:all 2.0")
        // apt's configure run: slow triggers (man-db's takes 40 s), a postinst that fails.
        line("startup packages configure", after: 1)
        for package in ["libssl3:amd64 3.0.17-1", "man-db:amd64 2.11.2-2"] {
            line("configure \(package) <none>")
            line("status unpacked \(package)")
            line("status half-configured \(package)")
        }
        line("status triggers-awaited libssl3:amd64 3.0.17-1")
        line("status installed man-db:amd64 2.11.2-2")
        line("trigproc man-db:amd64 2.11.2-2 <none>", after: 40)
        line("status half-configured man-db:amd64 2.11.2-2")
        line("status installed man-db:amd64 2.11.2-2", after: 4)
        line("status installed libssl3:amd64 3.0.17-1")
        line("configure broken-postinst:all 1.0 <none>")
        line("status unpacked broken-postinst:all 1.0")
        line("status half-configured broken-postinst:all 1.0")
        // Ten minutes later, a slow removal (50 s between its states), then a reinstall of
        // the broken package that works.
        line("startup packages remove", after: 600)
        line("status installed vim-tiny:amd64 2:9.0")
        line("remove vim-tiny:amd64 2:9.0 <none>")
        line("status half-configured vim-tiny:amd64 2:9.0")
        line("status half-installed vim-tiny:amd64 2:9.0", after: 50)
        line("status config-files vim-tiny:amd64 2:9.0", after: 50)
        return (lines.joined(separator: "\n") + "\n", ["broken-postinst", "never-configured"])
    }

    @Test func dpkgShowsAnErrorForEveryPackageLeftUnfinishedAndForNoOther() throws {
        let (log, unfinished) = Self.dpkgLog()
        let result = try runBinary(["--input", "text", "--format", "json", "examples/dpkg.lua"], stdin: log, environment: ["TZ": "UTC"])
        #expect(result.status == 0, "\(result.stderr)")
        let errors = try jsonRecords(result.stdout).filter { $0["event"] as? String == "present" && $0["role"] as? String == "error" }
        #expect(errors.map { $0["source"] as? String ?? "" }.sorted() == unfinished)
        #expect(errors.map { $0["message"] as? String ?? "" }.sorted() == [
            "broken-postinst was left half-configured", "never-configured was left unpacked",
        ])
        // Judged once dpkg went quiet: a minute after the failed configuration, before the removal.
        // (The second waits on screen behind the first: both came in then.)
        #expect(errors.allSatisfy { record in
            let shown = (record["t"] as? NSNumber)?.doubleValue ?? 0, waited = (record["waited"] as? NSNumber)?.doubleValue ?? 0
            return shown - waited == 1_795_856_508   // 09:01:48
        }, "\(errors)")
        // Every action is shown; nothing else is an error.
        let shown = try jsonRecords(result.stdout).filter { $0["event"] as? String == "present" }.map { $0["message"] as? String ?? "" }
        #expect(shown.filter { !$0.contains(" was left ") } == [
            "Upgraded libssl3 to 3.0.17-1", "Installed man-db", "Installed broken-postinst", "Installed never-configured",
            "Removed vim-tiny",
        ])
    }

    /// Read live (a pipe, the follow clock), a trigger that takes seconds is no error either:
    /// the package is judged when the log has been quiet for a minute, not when its state lasts
    /// (the example used to wait 2 seconds, and a 4-second trigger made an error).
    @Test func dpkgReadLiveWaitsForTheLogToGoQuiet() throws {
        let before = ["startup packages configure", "configure man-db:amd64 2.11.2-2 <none>",
                      "status unpacked man-db:amd64 2.11.2-2", "status half-configured man-db:amd64 2.11.2-2"]
        let after = ["status installed man-db:amd64 2.11.2-2"]
        func printed(_ lines: [String], at time: String) -> String {
            "printf '%s\\n' " + lines.map { "'2026-11-28 \(time) \($0)'" }.joined(separator: " ")
        }
        let result = try runShell("""
            (\(printed(before, at: "09:14:06")); sleep 3; \(printed(after, at: "09:14:10"))) \
              | TZ=UTC '\(binary)' --input text --format json examples/dpkg.lua
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "", "no toast: a configuration is no action, and it finished")
        #expect(result.stderr.contains("note: reading live input"), "\(result.stderr)")
    }
}
