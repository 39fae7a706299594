import Foundation
import Testing

/// The built binary on logs read without code (docs/logs.md): syslog and logfmt with bad lines
/// among good ones, stack traces joined, live and from a file, and the options that cannot go
/// together.
@Suite struct LogInputTests {
    private func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "ts-logs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    private func messages(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix(#"{"event":"present""#) || line.hasPrefix(#"{"event":"drop""#),
                  let start = line.range(of: #""message":""#)?.upperBound,
                  let end = line[start...].range(of: #"","role""#)?.lowerBound else { return nil }
            return String(line[start..<end])
        }
    }

    @Test func badLinesAreRejectedAndNothingElseIsLost() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/app.log"
        let dead = directory + "/dead.log"
        var bytes: [UInt8] = Array(#"time=2026-12-06T10:00:00Z level=info msg="first""#.utf8) + [0x0A]
        bytes += Array(#"time=2026-12-06T10:00:01Z level=error msg="never closed"#.utf8) + [0x0A]
        bytes += Array("time=2026-12-06T10:00:02Z msg=".utf8) + Array(repeating: UInt8(ascii: "x"), count: 2_000) + [0x0A]
        bytes += Array("time=2026-12-06T10:00:03Z msg=latin1 name=".utf8) + [0x4A, 0xF6, 0x72, 0x67] + [0x0A]
        bytes += Array(#"time=2026-12-06T10:00:04Z level=warn msg="last""#.utf8) + [0x0A]
        _ = FileManager.default.createFile(atPath: log, contents: Data(bytes))
        let result = try runBinary(["--input", "logfmt", "--format", "json", "--max-line-bytes", "1000", "--events", log,
                                    "--dead-letter", dead, "--tz", "utc"])
        #expect(result.status == 65)
        #expect(result.stderr.split(separator: "\n").map(String.init) == [
            #"toastscript: input line 2: logfmt: the quoted value of "msg" has no closing quote"#,
            "toastscript: input line 3: line of 2030 bytes is longer than --max-line-bytes (1000)",
            "toastscript: warning: 1 text line was not valid UTF-8; its bad bytes are shown as U+FFFD (\u{FFFD})",
            "toastscript: 2 input lines rejected (--dead-letter has every rejected line; --stats counts them)",
        ])
        #expect(messages(result.stdout) == ["first", "latin1", "last"])
        #expect(result.stdout.contains(#""extra":{"name":"J\#u{FFFD}rg"}"#))
        let kept = try String(contentsOfFile: dead, encoding: .utf8).split(separator: "\n")
        #expect(kept.count == 2 && kept[0].hasSuffix("never closed") && kept[1].hasSuffix(String(repeating: "x", count: 2_000)))
    }

    @Test func binaryInputIsRefusedAsForText() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/binary.log"
        _ = FileManager.default.createFile(atPath: log, contents: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) }))
        let result = try runBinary(["--input", "syslog", "--events", log])
        #expect(result.status == 65)
        #expect(result.stderr.contains("looks binary"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func syslogTracesJoinByTheirMessage() throws {
        let log = """
            2026-12-06T10:00:04.902+01:00 shop-1 shop[812]: ERROR could not place order 812
            2026-12-06T10:00:04.903+01:00 shop-1 shop[812]: java.lang.IllegalStateException: could not save order 812
            2026-12-06T10:00:04.903+01:00 shop-1 shop[812]: \tat com.example.shop.OrderService.save(OrderService.java:42)
            2026-12-06T10:00:04.903+01:00 shop-1 shop[812]: Caused by: java.io.IOException: No space left on device
            2026-12-06T10:00:05.020+01:00 shop-1 shop[812]: INFO order 813 placed
            not syslog at all
              an indented line after it

            """
        let result = try runBinary(["--input", "syslog", "--multiline", "--format", "json"], stdin: log)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(messages(result.stdout).sorted() == [
            #"ERROR could not place order 812\njava.lang.IllegalStateException: could not save order 812\n\tat com.example.shop.OrderService.save(OrderService.java:42)\nCaused by: java.io.IOException: No space left on device"#,
            "INFO order 813 placed",
            #"not syslog at all\n  an indented line after it"#,
        ].sorted())
        #expect(result.stdout.contains(#""id":"t1","message":"ERROR could not"#) && result.stdout.contains(#""role":"error""#))
        #expect(result.stderr == "toastscript: 1 line was not syslog and was read as text\n")
    }

    @Test func aHeldEventGoesOnAfterHalfASecondOfQuietWhenLive() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try runShell("""
            fifo='\(directory)/in'; out='\(directory)/out'
            mkfifo "$fifo"
            '\(binary)' --input logfmt --multiline --format json --output "$out" < "$fifo" 2> "$out.err" & pid=$!
            exec 3> "$fifo"
            printf 'level=error msg="boom"\\n\\tat a.b(C.java:1)\\n' >&3
            sleep 1.5
            echo "quiet:"; cat "$out"
            printf 'msg=next\\n' >&3
            exec 3>&-
            wait $pid; echo "status $?"
            """)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let quiet = try #require(lines.firstIndex(of: "quiet:"))
        #expect(lines.count > quiet + 1 && lines[quiet + 1].contains(#""message":"boom\n\tat a.b(C.java:1)""#), "\(run.stdout)")
        #expect(lines.last == "status 0")
    }

    @Test(arguments: [
        (["--multiline"], "--multiline joins lines of a log; JSON lines are whole events (give --input text, syslog or logfmt)"),
        (["--multiline", "--input", "json"], "--multiline joins lines of a log; JSON lines are whole events (give --input text, syslog or logfmt)"),
        (["--input", "sylog"], "--input must be one of json, text, syslog, logfmt, not 'sylog'; did you mean 'syslog'?"),
    ])
    func optionsThatCannotGoTogetherAreRefused(arguments: [String], message: String) throws {
        let result = try runBinary(arguments, stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("toastscript: " + message), "\(result.stderr)")
    }

    @Test func multilineWithTheJournalIsRefused() throws {
        let result = try runBinary(["--multiline", "--journal", "--once"], stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("toastscript: --multiline joins lines of a log; the journal's entries are whole events"),
                "\(result.stderr)")
    }
}

/// Stack traces that real programs print, kept whole by `--multiline`: a Java program (compiled
/// with Debian's JDK) and a Python one log a line, then fail with a chained exception.
@Suite struct RealStackTraceTests {
    @Test func javaAndPythonTracesAreOneToastEach() throws {
        let directory = NSTemporaryDirectory() + "ts-traces-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            public class Shop {
                static void save(int order) throws java.io.IOException { throw new java.io.IOException("No space left on device"); }
                static void place(int order) {
                    try { save(order); } catch (java.io.IOException e) { throw new IllegalStateException("could not save order " + order, e); }
                }
                public static void main(String[] args) {
                    System.err.println("2026-12-06 10:00:00 INFO  [main] Shop - started");
                    try { place(812); } catch (IllegalStateException e) {
                        System.err.println("2026-12-06 10:00:04 ERROR [main] Shop - could not place order 812");
                        e.printStackTrace();
                    }
                }
            }
            """.write(toFile: directory + "/Shop.java", atomically: true, encoding: .utf8)
        try """
            import logging, sys
            logging.basicConfig(stream=sys.stderr, format="%(levelname)s:%(name)s:%(message)s")
            def charge():
                try:
                    {}["card"]
                except KeyError as error:
                    raise ValueError("card declined") from error
            try:
                charge()
            except ValueError:
                logging.exception("payment failed")
            logging.warning("retry queued")
            """.write(toFile: directory + "/pay.py", atomically: true, encoding: .utf8)
        let made = try runShell("""
            cd '\(directory)' && javac Shop.java && java -cp . Shop 2> app.log && python3 pay.py 2>> app.log && cat app.log
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let log = made.stdout
        // The log as the programs wrote it: a trace's lines under the line that logged it.
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.contains("Caused by: java.io.IOException: No space left on device"))
        #expect(lines.contains("The above exception was the direct cause of the following exception:"))
        let starts = lines.indices.filter { lines[$0].hasPrefix("2026-") || lines[$0].hasPrefix("INFO:") || lines[$0].hasPrefix("ERROR:")
                                            || lines[$0].hasPrefix("WARNING:") }
        let expected = starts.enumerated().map { position, start in
            let end = position + 1 < starts.count ? starts[position + 1] : lines.count
            var event = lines[start..<end].joined(separator: "\n")
            while event.hasSuffix("\n") { event.removeLast() }
            return event
        }
        #expect(expected.count == 4)

        let run = try runBinary(["--input", "text", "--multiline", "--format", "json", "-e",
                                 #"rule(function(t) log(t.role, t.message) return false end)"#], stdin: log)
        #expect(run.status == 0)
        let seen = run.stderr.split(separator: "\n").map(String.init)
        // `log` shows a newline as \n: one line each toast.
        #expect(seen == zip(["info", "error", "error", "warning"], expected).map { role, message in
            role + "\t" + message.replacingOccurrences(of: "\n", with: "\\n")
        }, "\(run.stderr)")
    }
}

/// One step off the path with the new input options: a restart that would read the rest of the
/// input otherwise, and a wall clock fixed to no time, are said, never taken in silence.
@Suite struct LogInputRestartTests {
    @Test func aRestartThatWouldReadTheInputOtherwiseIsRefused() throws {
        let directory = NSTemporaryDirectory() + "ts-reading-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/app.log", state = directory + "/state", out = directory + "/out"
        try "<13>1 2026-12-06T10:00:00Z h app - - - one\n".write(toFile: log, atomically: true, encoding: .utf8)
        func run(_ options: [String]) throws -> BinaryResult {
            try runBinary(options + ["--state", state, "--format", "json", "--events", log, "--output", out])
        }
        #expect(try run(["--input", "syslog"]).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        handle.write(Data("<13>1 2026-12-06T10:00:05Z h app - - - two\n".utf8))
        try handle.close()
        let written = try String(contentsOfFile: out, encoding: .utf8)
        for (options, asked) in [(["--input", "logfmt"], "--input logfmt"), (["--input", "syslog", "--multiline"], "--input syslog --multiline")] {
            let refused = try run(options)
            #expect(refused.status == 1)
            #expect(refused.stderr == "toastscript: --state \(state): its input was read with --input syslog; this run asks for \(asked); "
                    + "it was left as it is, and --state-reset starts afresh\n")
            #expect(try String(contentsOfFile: out, encoding: .utf8) == written)
        }
        let again = try run(["--input", "syslog"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains(#""message":"two""#))
    }

    @Test func aWallClockFixedToNoTimeIsSaid() throws {
        let result = try runBinary(["--input", "syslog", "--format", "json"], stdin: "Dec  6 10:00:00 h app: x\n",
                                   environment: ["TOASTSCRIPT_NOW": "yesterday"])
        #expect(result.status == 0)
        #expect(result.stderr == #"toastscript: warning: TOASTSCRIPT_NOW must be whole seconds since the epoch, not "yesterday"; the wall clock is read"# + "\n")
    }
}
