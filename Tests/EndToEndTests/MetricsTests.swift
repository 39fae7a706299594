import Foundation
import Testing

/// `--metrics` as Prometheus and an operator meet it: Debian's `promtool check metrics` on what
/// it serves, a real `prometheus` scraping it on loopback, the counters against `--stats`,
/// `/health` while Redis is retried, and hostile clients that must never stop or change the run.
@Suite(.serialized) struct MetricsTests {
    final class Folder {
        let path = NSTemporaryDirectory() + "toastscript-metrics-\(UUID().uuidString.prefix(8))"
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { path + "/" + name }
    }

    /// Sticky toasts, each on screen at once (no timer fires while the run waits), then a tap.
    static func events(_ count: Int) -> String {
        (1...count).map { #"{"message":"m\#($0 % 17)","at":\#($0),"duration":null,"source":"s\#($0 % 3)"}"# }.joined(separator: "\n")
            + "\n"
    }

    static let stackEverything = #"config{ queue = { policy = "stack", max_visible = 100000, limit = 100000 } }"#

    /// The shell's helpers: `port` (the port the note names), `scrape PATH`, `waitfor TEXT FILE`.
    static let helpers = """
        waitfor() { for i in $(seq 500); do grep -q "$1" "$2" 2>/dev/null && return; sleep 0.01; done; echo "never: $1"; }
        port() { grep -o '127.0.0.1:[0-9]*' err | head -1; }
        scrape() { curl -s --max-time 5 "http://$(port)$1"; }
        """

    @Test func whatItServesPassesPromtoolAndItsCountersAreTheStats() throws {
        let folder = try Folder()
        try Self.events(500).write(toFile: folder.file("log.jsonl"), atomically: true, encoding: .utf8)
        let run = try runShell("""
            cd '\(folder.path)'; \(Self.helpers)
            '\(binary)' --follow log.jsonl --state st --metrics 127.0.0.1:0 --format json --output out -e '\(Self.stackEverything)' 2> err & pid=$!
            waitfor 'metrics serves' err
            for i in $(seq 500); do scrape /metrics | grep -q '^toastscript_input_lines_total 500$' && break; sleep 0.01; done
            # The state's gauges come with the first checkpoint after the lines (a second at most).
            for i in $(seq 300); do scrape /metrics | grep -q '^toastscript_state_rows ' && break; sleep 0.01; done
            scrape /metrics > metrics.txt
            promtool check metrics < metrics.txt; echo "promtool $?"
            kill -USR1 $pid; waitfor 'stats so far' err; sleep 0.2
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(run.stdout.contains("promtool 0\n"), "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.hasSuffix("status 143\n"))
        let metrics = (try? String(contentsOfFile: folder.file("metrics.txt"), encoding: .utf8)) ?? ""
        let stats = (try? String(contentsOfFile: folder.file("err"), encoding: .utf8)) ?? ""
        func metric(_ line: String) -> String? {
            metrics.split(separator: "\n").first { $0.hasPrefix(line + " ") }.map { String($0.split(separator: " ").last ?? "") }
        }
        func stat(_ name: String) -> String? {
            stats.split(separator: "\n").first { $0.hasPrefix("  " + name + " ") }
                .map { String($0.dropFirst(2 + name.count).drop { $0 == " " }.prefix { $0 != " " }) }
        }
        #expect(metric("toastscript_input_lines_total") == "500" && stat("lines read") == "500", "\(stats)")
        #expect(metric("toastscript_events_total") == stat("events"))
        #expect(metric("toastscript_toasts_total") == stat("toasts in"))
        #expect(metric("toastscript_input_lines_rejected_total") == stat("rejected lines"))
        #expect(metric(#"toastscript_toasts_shown_total{role="info"}"#) == "500", "\(metrics)")
        #expect(Int(metric("toastscript_state_rows") ?? "") ?? 0 > 10, "\(metrics)")
        #expect(Int(metric("toastscript_state_bytes") ?? "") ?? 0 > 4096)
        #expect(metric("toastscript_toasts_visible") == "500")
        #expect(metric(#"toastscript_stage_drops_total{stage="dedup",reason="duplicate"}"#) == nil, "sticky toasts of one message a window apart")
        #expect(metrics.contains("# TYPE process_resident_memory_bytes gauge\n"))
    }

    @Test func aRealPrometheusScrapesItAndAnswersWithItsCounters() throws {
        let folder = try Folder()
        try Self.events(200).write(toFile: folder.file("log.jsonl"), atomically: true, encoding: .utf8)
        let run = try runShell("""
            cd '\(folder.path)'; \(Self.helpers)
            '\(binary)' --follow log.jsonl --metrics 127.0.0.1:0 --format json --output out -e '\(Self.stackEverything)' 2> err & pid=$!
            waitfor 'metrics serves' err
            web=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
            printf 'global:\\n  scrape_interval: 1s\\nscrape_configs:\\n  - job_name: toastscript\\n    static_configs:\\n      - targets: ["%s"]\\n' "$(port)" > prometheus.yml
            prometheus --config.file=prometheus.yml --storage.tsdb.path=data --web.listen-address=127.0.0.1:$web > prometheus.log 2>&1 & prom=$!
            answer=""
            for i in $(seq 150); do
                answer=$(curl -s --max-time 2 "http://127.0.0.1:$web/api/v1/query?query=toastscript_input_lines_total")
                echo "$answer" | grep -q '"200"\\]' && break
                sleep 0.1
            done
            echo "$answer"
            kill $prom; wait $prom
            kill -TERM $pid; wait $pid
            """)
        #expect(run.stdout.contains(#""__name__":"toastscript_input_lines_total""#), "\(run.stdout)")
        #expect(run.stdout.contains(#""job":"toastscript""#))
        #expect(run.stdout.contains(#","200"]"#), "\(run.stdout)")
    }

    @Test func badRequestsNeverStopOrChangeTheRun() throws {
        let folder = try Folder()
        try Self.events(300).write(toFile: folder.file("log.jsonl"), atomically: true, encoding: .utf8)
        // The same run without --metrics: its records are the ones to have.
        let plain = try runShell("""
            cd '\(folder.path)'; \(Self.helpers)
            '\(binary)' --follow log.jsonl --state plain.state --format json --output plain.jsonl -e '\(Self.stackEverything)' 2> plain.err & pid=$!
            waitfor '"m12","role"' plain.jsonl; sleep 0.5
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(plain.stdout == "status 143\n")
        let run = try runShell("""
            exec 2>&1
            cd '\(folder.path)'; \(Self.helpers)
            '\(binary)' --follow log.jsonl --state st --metrics 127.0.0.1:0 --format json --output out -e '\(Self.stackEverything)' 2> err & pid=$!
            waitfor 'metrics serves' err
            host=$(port | cut -d: -f1); p=$(port | cut -d: -f2)
            python3 - "$host" "$p" <<'PY'
            import socket, sys, time
            host, port = sys.argv[1], int(sys.argv[2])
            def ask(data, wait=2.0):
                s = socket.create_connection((host, port), timeout=wait)
                reply = b""
                try:
                    s.sendall(data)
                except ConnectionResetError:
                    return "closed"
                try:
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        reply += chunk
                except socket.timeout:
                    reply += b"(timeout)"
                except ConnectionResetError:
                    reply = reply or b"closed"
                s.close()
                # Closed without a word (a FIN, not a reset) is closed too.
                return reply.split(b"\\r\\n")[0].decode(errors="replace") or "closed"
            print("long:", ask(b"GET /metrics HTTP/1.1\\r\\nX: " + b"a" * 65536 + b"\\r\\n\\r\\n"))
            print("garbage:", ask(b"\\x00\\xff\\x1b[2J hello\\r\\n\\r\\n"))
            print("post:", ask(b"POST /metrics HTTP/1.1\\r\\n\\r\\n"))
            print("path:", ask(b"GET /secrets HTTP/1.1\\r\\n\\r\\n"))
            # 50 connections at once: 8 are kept (each closed after 5 s without a request), the
            # rest closed at once, and so is another while they stay.
            many = [socket.create_connection((host, port)) for _ in range(50)]
            time.sleep(0.5)
            print("while full:", ask(b"GET /health HTTP/1.1\\r\\n\\r\\n", wait=8.0))
            for s in many: s.close()
            time.sleep(0.5)
            # One byte a second: closed after 5 s.
            slow = socket.create_connection((host, port), timeout=10)
            start = time.monotonic()
            closed = False
            for byte in b"GET /metrics HTTP/1.1\\r\\n":
                try:
                    slow.sendall(bytes([byte]))
                    slow.settimeout(1.0)
                    if slow.recv(1) == b"":
                        closed = True
                        break
                except socket.timeout:
                    continue
                except OSError:
                    closed = True
                    break
            print("slow closed after", round(time.monotonic() - start), "s" if closed else "never")
            print("after:", ask(b"GET /health HTTP/1.1\\r\\n\\r\\n"))
            PY
            waitfor '"m12","role"' out; sleep 0.5
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        // Over 8 KiB: answered 431 and closed, or closed while the client still sends.
        #expect(run.stdout.contains("long: HTTP/1.1 431 Request Header Fields Too Large\n") || run.stdout.contains("long: closed\n"),
                "\(run.stdout)")
        #expect(run.stdout.contains("garbage: HTTP/1.1 400 Bad Request\n"))
        #expect(run.stdout.contains("post: HTTP/1.1 405 Method Not Allowed\n"))
        #expect(run.stdout.contains("path: HTTP/1.1 404 Not Found\n"))
        // While 8 idle connections are held, another is closed at once; under load the server may
        // have let some of the 50 go first, and the request is answered. Either way, at once.
        #expect(run.stdout.contains("while full: closed\n") || run.stdout.contains("while full: HTTP/1.1 200 OK\n"), "\(run.stdout)")
        // Closed at 5 s, seen by a client that sends a byte and listens for a second at a time.
        #expect((5...8).contains { run.stdout.contains("slow closed after \($0) s\n") }, "\(run.stdout)")
        #expect(run.stdout.contains("after: HTTP/1.1 200 OK\n"))
        #expect(run.stdout.hasSuffix("status 143\n"))
        let records = FileManager.default.contents(atPath: folder.file("out"))
        #expect(records != nil && records == FileManager.default.contents(atPath: folder.file("plain.jsonl")))
    }

    /// An address that is none is a usage error; a socket another run serves on is not taken.
    @Test func anAddressThatIsNoneOrIsTakenIsRefused() throws {
        for address in ["foo", "127.0.0.1:70000"] {
            let run = try runBinary(["--metrics", address])
            #expect(run.status == 2)
            #expect(run.stderr.hasPrefix("toastscript: --metrics takes HOST:PORT, [V6]:PORT or a socket's path "
                                         + "(/run/toastscript/metrics.sock), not '\(address)'\n"), "\(run.stderr)")
        }
        let folder = try Folder()
        try Self.events(3).write(toFile: folder.file("log.jsonl"), atomically: true, encoding: .utf8)
        let run = try runShell("""
            cd '\(folder.path)'; \(Self.helpers)
            '\(binary)' --follow log.jsonl --metrics ./m.sock --format json --output out 2> err & pid=$!
            waitfor 'metrics serves' err
            '\(binary)' --follow log.jsonl --metrics ./m.sock --format json --output out2 2>&1; echo "status $?"
            curl -s --unix-socket m.sock http://localhost/health
            kill -TERM $pid; wait $pid
            """)
        #expect(run.stdout == "toastscript: --metrics ./m.sock is served by another process (it answers there)\nstatus 1\nok\n",
                "\(run.stdout)")
    }

    /// docs/service.md's scrape config and alert rules, through promtool.
    @Test func theDocsScrapeConfigAndAlertRulesPassPromtool() throws {
        let folder = try Folder()
        let page = try String(contentsOfFile: root + "/docs/service.md", encoding: .utf8)
        let blocks = page.components(separatedBy: "```yaml\n").dropFirst().map { String($0.prefix { $0 != "`" }) }
        let config = try #require(blocks.first { $0.contains("scrape_configs:") })
        let rules = try #require(blocks.first { $0.contains("groups:") })
        try config.write(toFile: folder.file("prometheus.yml"), atomically: true, encoding: .utf8)
        try rules.write(toFile: folder.file("rules.yml"), atomically: true, encoding: .utf8)
        let checked = try runShell("cd '\(folder.path)'; promtool check config prometheus.yml 2>&1; echo \"config $?\"; "
                                   + "promtool check rules rules.yml 2>&1; echo \"rules $?\"")
        #expect(checked.stdout.contains("config 0\n") && checked.stdout.contains("rules 0\n"), "\(checked.stdout)")
        #expect(checked.stdout.contains("SUCCESS: 5 rules found"), "\(checked.stdout)")
    }

    @Test func healthIs503WhileRedisIsRetried() throws {
        let server = try RedisServer(keepsData: true)
        try server.add(to: "events", field: "event", [#"{"message":"first","duration":null}"#])
        let folder = try Folder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--redis", server.socket, "--from", "events", "--group", "g", "--consumer", "c1", "--to", "records",
                             "--redis-timeout", "30", "--metrics", "127.0.0.1:0"]
        _ = FileManager.default.createFile(atPath: folder.file("err"), contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("err")))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        func health() throws -> String {
            try runShell("cd '\(folder.path)'; \(Self.helpers)\nfor i in $(seq 300); do [ -n \"$(port)\" ] && break; sleep 0.01; done; curl -s -i --max-time 5 \"http://$(port)/health\"").stdout
        }
        #expect(try health().hasPrefix("HTTP/1.1 200 OK"))
        server.stop()
        var answer = ""
        for _ in 0..<50 {
            answer = try health()
            if answer.hasPrefix("HTTP/1.1 503") { break }
            usleep(100_000)
        }
        #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable"), "\(answer)")
        #expect(answer.contains("redis \(server.socket): "), "\(answer)")
        try server.start()
        for _ in 0..<100 {
            answer = try health()
            if answer.hasPrefix("HTTP/1.1 200") { break }
            usleep(100_000)
        }
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"), "\(answer)")
        // Its commits were timed.
        let metrics = try runShell("cd '\(folder.path)'; \(Self.helpers)\nscrape /metrics").stdout
        let commits = metrics.split(separator: "\n").first { $0.hasPrefix("toastscript_redis_commit_duration_seconds_count ") }
        #expect((commits?.split(separator: " ").last).flatMap { Int($0) } ?? 0 > 0, "\(metrics)")
    }
}
