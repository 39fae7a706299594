import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// A line's level (docs/events.md, "Levels in text logs"): the rules on lines as real programs
/// write them, those that must not match among them, and what the decoder makes of a level.
@Suite struct LevelTests {
    /// Real-looking lines and the level each names (nil: none), by the program that wrote it.
    static let corpus: [(line: String, level: LogLevel?)] = [
        // syslog <PRI> (the kernel, a journal stream, rsyslog forwarding): severity = PRI mod 8
        ("<11>sshd[912]: error: maximum authentication attempts exceeded", .error),
        ("<0>kernel: Kernel panic - not syncing", .critical),
        ("<2>kernel: CPU0: Core temperature above threshold", .critical),
        ("<4>systemd[1]: Unit backup.service entered failed state", .warning),
        ("<30>dbus-daemon[700]: Successfully activated service", .info),
        ("<191>app: debug chatter", .debug),
        ("<6>kernel: usb 1-1: new high-speed USB device", .info),
        ("<192>not a priority: too large", nil),
        ("<1234>four digits is no priority", nil),
        // journald, as `journalctl -o short` and `-o cat` print it (the level is in the text)
        ("Nov 28 09:14:04 host backup.sh[4242]: ERROR: disk /dev/sdb1 not mounted", .error),
        ("Nov 28 09:14:05 host systemd[1]: Started Daily apt upgrade and clean activities.", nil),
        ("Nov 28 09:14:06 host kernel: [ 12.345678] EXT4-fs (sda1): mounted filesystem", nil),
        ("Nov 28 09:14:07 host sshd[912]: error: kex_exchange_identification: Connection closed", nil),
        // nginx error log
        ("2026/11/28 09:14:05 [error] 1234#0: *5 connect() failed (111: Connection refused)", .error),
        ("2026/11/28 09:14:06 [warn] 1234#0: *7 an upstream response is buffered to a temporary file", .warning),
        ("2026/11/28 09:14:07 [crit] 1234#0: *9 SSL_do_handshake() failed", .critical),
        ("2026/11/28 09:14:08 [emerg] 1#1: bind() to 0.0.0.0:80 failed (98: Address already in use)", .critical),
        ("2026/11/28 09:14:09 [notice] 1#1: signal process started", .info),
        // Python's logging: the default format, and a common custom one
        ("ERROR:root:payment failed", .error),
        ("WARNING:urllib3.connectionpool:Retrying (Retry(total=2))", .warning),
        ("CRITICAL:app:database gone", .critical),
        ("2026-11-28 09:14:05,123 - billing - ERROR - refund 42 failed", .error),
        ("2026-11-28 09:14:05,456 INFO [worker-3] job 17 done", .info),
        // Go: log/slog's text handler, logrus, zap's console encoder
        ("time=2026-11-28T09:14:06Z level=WARN msg=\"disk almost full\" free=2%", .warning),
        ("time=2026-11-28T09:14:06Z level=ERROR msg=\"upload failed\" err=\"EOF\"", .error),
        ("time=\"2026-11-28T09:14:06Z\" level=error msg=\"connection reset\"", .error),
        ("time=2026-11-28T09:14:06Z LEVEL=\"Info\" msg=ready", .info),
        ("ts=2026-11-28T09:14:06Z lvl=debug caller=main.go:12 msg=tick", .debug),
        ("2026-11-28T09:14:06.000Z\tERROR\tserver/main.go:42\trequest failed", .error),
        ("2026/11/28 09:14:06 listening on :8080", nil),
        // Java: logback's and Spring Boot's default patterns, java.util.logging
        ("2026-11-28 09:14:07.123  WARN 4242 --- [main] c.e.Backup : slow disk", .warning),
        ("09:14:07.456 [http-nio-8080-exec-1] ERROR c.e.web.Controller - request failed", .error),
        ("2026-11-28 09:14:07.789 DEBUG 4242 --- [main] o.s.b.StartupInfoLogger : Running", .debug),
        ("SEVERE: Servlet.service() for servlet [dispatcher] threw exception", .error),
        ("Nov 28, 2026 9:14:07 AM org.apache.catalina.startup.Catalina start", nil),
        // glog: its level is a letter before the date, which is no level word
        ("E1128 09:14:08.000000  4242 server.cc:12] RPC failed", nil),
        ("I1128 09:14:08.000001  4242 server.cc:40] serving", nil),
        // Running text that must not match
        ("no error found in 12 files", nil),
        ("Error opening cache (it will be rebuilt)", nil),
        ("build finished with 0 errors and 0 warnings", nil),
        ("an (error) in brackets is still a level", .error),
        ("The INFORMATION desk opens at nine", .info),
        ("set the level=verbose for more", nil),
        ("one two three four five six seven eight ERROR ninth word is too far", nil),
        ("one two three four five six seven ERROR: the eighth word counts", .error),
        ("[ERROR]: bracketed with a colon", .error),
        ("[Error opening] file", nil),
        ("ERRORS are not a word we know", nil),
        ("warning: lower case words need brackets", nil),
        ("\tFATAL after a tab", .critical),
    ]

    @Test func everyLineOfTheCorpusHasItsLevel() {
        #expect(Self.corpus.count >= 40)
        for (line, expected) in Self.corpus {
            #expect(TextLevel.read(Array(line.utf8))?.level == expected, "\(line)")
        }
    }

    @Test func aSyslogPriorityIsTakenOffTheMessageAndTheToastGetsItsLevelAndRole() throws {
        var decoder = EventDecoder()
        let lines: [(text: String, message: String, role: String, level: String?)] = [
            ("<11>sshd: boom", "sshd: boom", "error", "error"),
            ("<12>", "<12>", "warning", "warning"),
            ("2026 [crit] disk", "2026 [crit] disk", "error", "critical"),
            ("DEBUG tick", "DEBUG tick", "info", "debug"),
            ("plain line", "plain line", "info", nil),
        ]
        for (number, expected) in lines.enumerated() {
            let event = try Array(expected.text.utf8).withUnsafeBufferPointer { try decoder.decodeText($0, number: number + 1).get() }
            guard case .show(let toast) = event.kind else {
                Issue.record("not a show: \(expected.text)")
                continue
            }
            #expect(toast.message == expected.message)
            #expect(toast.role == expected.role)
            #expect(toast.extra.first { $0.name == "level" }?.value == expected.level.map(JSONValue.string))
        }
    }

    @Test func levelsOffReadsNoLevel() throws {
        var decoder = EventDecoder()
        decoder.readsLevels = false
        let event = try Array("<11>ERROR boom".utf8).withUnsafeBufferPointer { try decoder.decodeText($0, number: 1).get() }
        guard case .show(let toast) = event.kind else { throw Failure("not a show") }
        #expect(toast.message == "<11>ERROR boom")
        #expect(toast.role == "info")
        #expect(toast.extra.isEmpty)
    }

    /// A JSON show without `role`: its `level`, else `severity`, else `PRIORITY`; both decode
    /// paths alike (the one-pass path for common lines, and the general one).
    @Test(arguments: [true, false])
    func aJSONShowWithoutARoleTakesItFromItsLevel(commonPath: Bool) throws {
        let cases: [(line: String, role: String)] = [
            (#"{"message":"a","level":"ERROR"}"#, "error"),
            (#"{"message":"b","severity":"warning","n":1}"#, "warning"),
            (#"{"message":"c","PRIORITY":"3"}"#, "error"),
            (#"{"message":"d","PRIORITY":2}"#, "error"),
            (#"{"message":"e","level":"error","role":"success"}"#, "success"),
            (#"{"message":"f","level":"verbose","severity":"crit"}"#, "error"),
            (#"{"message":"g","level":"nope","PRIORITY":6}"#, "info"),
            (#"{"message":"h","level":"Warn","role":null}"#, "warning"),
            (#"{"message":"i","priority":5,"PRIORITY":"12"}"#, "info"),
        ]
        for readsLevels in [true, false] {
            var decoder = EventDecoder()
            decoder.takesCommonShows = commonPath
            decoder.readsLevels = readsLevels
            // Seen once, the extra names take the one-pass path from then on.
            decoder.namesChecked = ["level", "severity", "PRIORITY", "n"]
            for (number, expected) in cases.enumerated() {
                let event = try Array(expected.line.utf8).withUnsafeBufferPointer { try decoder.decodeJSON($0, number: number + 1).get() }
                guard case .show(let toast) = event.kind else { throw Failure("not a show: \(expected.line)") }
                let role = readsLevels || expected.role == "success" ? expected.role : "info"
                #expect(toast.role == role, "\(expected.line), levels \(readsLevels)")
            }
        }
    }

    @Test func luaLevelOfReadsALineAsTextInputDoes() {
        let result = runCLI(["--format", "json", "--input", "text", "--clock", "stream", "--levels", "off"], input: "x\n", scripts: [
            """
            for _, line in ipairs({ "<11>a", "2026 [warn] b", "level=debug c", "no error" }) do
              log(line .. " = " .. tostring(level_of(line)))
            end
            rule("drop", function(t) return false end)
            """,
        ])
        #expect(result.status == 0)
        #expect(result.stderr.filter { $0.contains(" = ") } == [
            "<11>a = error", "2026 [warn] b = warning", "level=debug c = debug", "no error = nil",
        ])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
