import Foundation
import Testing

/// A run as systemd runs it: the notify protocol heard on a socket the test listens on, the
/// priorities of lines when stderr is the journal, SIGUSR1's stats, and the docs' units checked
/// by `systemd-analyze verify`.
@Suite(.serialized) struct ServiceTests {
    final class Folder {
        let path = NSTemporaryDirectory() + "toastscript-service-\(UUID().uuidString.prefix(8))"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { path + "/" + name }
    }

    /// Listens as systemd's `NOTIFY_SOCKET` while `script` (bash, `$bin`, `$dir`, `$NOTIFY_SOCKET`
    /// exported) runs; returns each datagram with the milliseconds since the listening began.
    private func notices(in folder: Folder, _ script: String) throws -> (notices: [(ms: Int, text: String)], stdout: String) {
        let listener = """
            import socket, subprocess, sys, time, threading
            path = sys.argv[1]
            server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            server.bind(path)
            server.settimeout(0.2)
            start = time.monotonic()
            got = []
            done = threading.Event()
            def listen():
                while not done.is_set():
                    try:
                        data = server.recv(4096)
                    except socket.timeout:
                        continue
                    got.append((int((time.monotonic() - start) * 1000), data.decode()))
            thread = threading.Thread(target=listen)
            thread.start()
            run = subprocess.run(["bash", "-c", sys.argv[2]], capture_output=True, text=True)
            time.sleep(0.3)
            done.set()
            thread.join()
            for ms, text in got:
                print("NOTICE", ms, text.replace("\\n", "|"))
            print("STDOUT", run.stdout.replace("\\n", "|"))
            """
        try listener.write(toFile: folder.file("listen.py"), atomically: true, encoding: .utf8)
        let body = "export NOTIFY_SOCKET='\(folder.file("notify"))'; bin='\(binary)'; dir='\(folder.path)'; cd \"$dir\"\n" + script
        try body.write(toFile: folder.file("run.sh"), atomically: true, encoding: .utf8)
        let run = try runShell("python3 '\(folder.file("listen.py"))' '\(folder.file("notify"))' \"$(cat '\(folder.file("run.sh"))')\"")
        var notices: [(Int, String)] = []
        var stdout = ""
        for line in run.stdout.split(separator: "\n") {
            if line.hasPrefix("NOTICE ") {
                let parts = line.dropFirst(7).split(separator: " ", maxSplits: 1)
                notices.append((Int(parts[0]) ?? -1, parts.count > 1 ? String(parts[1]) : ""))
            } else if line.hasPrefix("STDOUT ") {
                stdout = String(line.dropFirst(7)).replacingOccurrences(of: "|", with: "\n")
            }
        }
        return (notices, stdout)
    }

    @Test func systemdHearsReadyStatusWatchdogReloadingAndStopping() throws {
        let folder = try Folder()
        let heard = try notices(in: folder, """
            echo '{"message":"one","at":0}' > log.jsonl
            # A first run saves a state, so that the second READY comes after a restore.
            "$bin" --follow log.jsonl --state st --format json --output out 2> err & pid=$!
            for i in $(seq 300); do grep -q '"one"' out 2>/dev/null && break; sleep 0.01; done
            kill -TERM $pid; wait $pid
            WATCHDOG_USEC=400000 "$bin" --follow log.jsonl --state st --format json --output out 2>> err & pid=$!
            sleep 1.2
            kill -HUP $pid
            sleep 0.4
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(heard.stdout == "status 143\n", "\(heard)")
        let texts = heard.notices.map(\.text)
        // Each run: READY with its first status, then (the second) the watchdog, a reload, the stop.
        #expect(texts.filter { $0 == "READY=1|STATUS=reading input" }.count == 2, "\(texts)")
        #expect(texts.filter { $0 == "STOPPING=1" }.count == 2, "\(texts)")
        let second = try #require(texts.lastIndex(of: "READY=1|STATUS=reading input"))
        let reloading = try #require(texts.firstIndex { $0.hasPrefix("RELOADING=1|MONOTONIC_USEC=") }, "\(texts)")
        #expect(reloading > second)
        #expect(Int(texts[reloading].dropFirst("RELOADING=1|MONOTONIC_USEC=".count)) ?? 0 > 0)
        #expect(texts[(reloading + 1)...].contains("READY=1"), "\(texts)")
        #expect(texts.last == "STOPPING=1")
        // The watchdog at half of WATCHDOG_USEC: every 200 ms while the run waits for input.
        let watchdog = heard.notices.filter { $0.text == "WATCHDOG=1" }.map(\.ms)
        #expect(watchdog.count >= 6, "\(heard.notices)")
        let gaps = zip(watchdog.dropFirst(), watchdog).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 <= 350 }, "\(gaps)")
    }

    @Test func linesBeginWithTheirPriorityWhenStderrIsTheJournal() throws {
        let folder = try Folder()
        let run = try runShell("""
            cd '\(folder.path)'
            printf '%s\\n' '{"message":"a"}' 'not json' '{"message":"b","sorce":1}' > in.jsonl
            : > err
            JOURNAL_STREAM="$(stat -c '%d:%i' err)" '\(binary)' --stats --events in.jsonl --format json \\
                -e 'rule(function(t) log("seen", t.message) end)' > /dev/null 2>> err
            cat err
            """)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.prefix(4) == [
            "<5>seen\ta",
            "<3>toastscript: input line 2: invalid JSON at column 1: unexpected 'n', expected a value",
            "<4>toastscript: input line 3: unknown field \"sorce\"; did you mean \"source\"? (kept as an extra field)",
            "<5>seen\tb",
        ], "\(run.stdout)")
        #expect(lines.contains("<5>toastscript: stats"))
        #expect(lines.contains { $0.hasPrefix("<5>  events ") })
        #expect(lines.last?.hasPrefix("<3>toastscript: 1 input line rejected") == true, "\(run.stdout)")
        // Without JOURNAL_STREAM (or naming another stream), no priorities.
        let plain = try runShell("""
            cd '\(folder.path)'; JOURNAL_STREAM=1:2 '\(binary)' --events in.jsonl --format json 2>&1 > /dev/null
            """)
        #expect(plain.stdout.hasPrefix("toastscript: input line 2:"), "\(plain.stdout)")
    }

    @Test func sigusr1WritesTheStatsSoFarAndTheRunGoesOn() throws {
        let folder = try Folder()
        let run = try runShell("""
            cd '\(folder.path)'
            for n in 1 2 3; do echo "{\\"message\\":\\"m$n\\",\\"at\\":$n,\\"policy\\":\\"replace\\"}" >> log.jsonl; done
            '\(binary)' --follow log.jsonl --format json --output out 2> err & pid=$!
            for i in $(seq 300); do grep -q '"m3"' out 2>/dev/null && break; sleep 0.01; done
            kill -USR1 $pid
            for i in $(seq 300); do grep -q 'stats so far' err && break; sleep 0.01; done
            echo '{"message":"m4","at":4,"policy":"replace"}' >> log.jsonl
            for i in $(seq 300); do grep -q '"m4"' out 2>/dev/null && break; sleep 0.01; done
            kill -TERM $pid; wait $pid; echo "status $?"
            cat err
            """)
        #expect(run.stdout.hasPrefix("status 143\n"), "\(run.stdout)")
        #expect(run.stdout.contains("toastscript: stats so far (SIGUSR1)\n  lines read        3 (0 blank)\n  events            3\n"),
                "\(run.stdout)")
        let out = (try? String(contentsOfFile: folder.file("out"), encoding: .utf8)) ?? ""
        #expect(out.contains(#""message":"m4""#), "the run went on after the stats")
    }

    /// Every unit in the docs, with the binary's path in place of /usr/local/bin's.
    @Test func everyUnitInTheDocsPassesSystemdAnalyzeVerify() throws {
        let folder = try Folder()
        var units = 0
        for document in ["README.md"] + ((try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []).map({ "docs/" + $0 })
            where document.hasSuffix(".md") {
            let text = try String(contentsOfFile: root + "/" + document, encoding: .utf8)
            for block in text.components(separatedBy: "```ini\n").dropFirst() {
                let unit = String(block.prefix { $0 != "`" })
                let name = try #require(unit.split(separator: "\n").first?.split(separator: "/").last?.split(separator: ":").first)
                let path = folder.file(String(name))
                try unit.replacingOccurrences(of: "/usr/local/bin/toastscript", with: binary).write(toFile: path, atomically: true, encoding: .utf8)
                let verify = try runShell("systemd-analyze verify '\(path)' 2>&1")
                #expect(verify.status == 0 && verify.stdout.isEmpty, "\(document) \(name): \(verify.stdout)")
                #expect(unit.contains("Type=notify") && unit.contains("WatchdogSec=") && unit.contains("SuccessExitStatus=130 143"),
                        "\(document) \(name)")
                units += 1
            }
        }
        #expect(units == 3)
    }
}
