import Foundation
import Testing

/// The defaults for a live system log: errors ahead of the noise, drops told, local time.
@Suite struct RealLogDefaultsTests {
    static let errorRule = #"rule(function(t) if t.message:find("ERROR") then t.role = "error" end end)"#

    @Test func anErrorInATextLogGoesAheadOfTheInfoLinesAndIsNeverEvicted() throws {
        let log = "starting\nstep 1\nERROR disk full\nstep 2\nstep 3\nstep 4\nstep 5\n"
        let result = try runBinary(["--input", "text", "--clock", "stream", "--verbose", "-e", Self.errorRule], stdin: log)
        #expect(result.status == 0)
        #expect(result.stdout == """
                    0  ℹ starting  (info, t1)
                    0    t2 dropped by host: evicted — "step 1"
                    0    t4 dropped by host: evicted — "step 2"
                    0    t5 dropped by host: evicted — "step 3"
                    3    t1 dismissed: timeout after 3s
                    3  ✖ ERROR disk full  (error, t3)
                    6    t3 dismissed: timeout after 3s
                    6  ℹ step 4  (info, t6)
                    9    t6 dismissed: timeout after 3s
                    9  ℹ step 5  (info, t7)
                   12    t7 dismissed: timeout after 3s

            """)
    }

    @Test func warningsAndErrorsCarryTheirRolesPriorities() throws {
        let input = """
            {"message":"a","role":"info"}
            {"message":"b","role":"success"}
            {"message":"c","role":"warning"}
            {"message":"d","role":"error"}
            {"message":"e","role":"error","priority":-1}

            """
        let result = try runBinary(["--format", "json"], stdin: input)
        let presents = try jsonRecords(result.stdout).filter { $0["event"] as? String == "present" }
        let priorities = presents.map { "\($0["message"] ?? "")=\($0["priority"] ?? "")" }
        // Shown in priority order once the first is gone: error, warning, then the rest; the
        // line holds three, so the lowest priority waiting (e) makes room.
        #expect(priorities == ["a=0", "d=2", "c=1", "b=0"])
    }

    // MARK: The run summary

    /// Runs `command` (bash) with stderr on a terminal of its own (`script`), returning what
    /// the terminal showed, without the terminal's carriage returns.
    private func onTerminal(_ command: String) throws -> String {
        let path = NSTemporaryDirectory() + "toastscript-terminal-\(UUID().uuidString.prefix(8)).sh"
        try command.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try runShell("script -qec 'bash \(path)' /dev/null")
        return run.stdout.replacingOccurrences(of: "\r", with: "")
    }

    private func scratch(_ files: [String: String]) throws -> String {
        let directory = NSTemporaryDirectory() + "toastscript-reallog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        return directory
    }

    static let summaryEvents = """
        {"message":"cache warmed","level":"debug"}
        {"message":"A"}
        {"message":"A"}
        {"message":"B"}
        {"message":"C"}
        {"message":"D"}
        {"message":"E"}

        """

    @Test func aRunWatchedOnATerminalEndsWithOneLineThatTellsTheDrops() throws {
        let directory = try scratch(["events.jsonl": Self.summaryEvents,
                                     "quiet.lua": #"rule("no debug", function(t) if t.level == "debug" then return false end end)"#])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let command = "'\(binary)' --format json \(directory)/quiet.lua --events \(directory)/events.jsonl > /dev/null"
        #expect(try onTerminal(command) == "toastscript: 7 toasts: 4 shown, 3 dropped (rule 1, dedup 1, host 1)\n")
        // With screens on, the line counts the screens too (the limit ends one of the three here).
        let screens = command.replacingOccurrences(of: "--format json", with: "-e 'config{ screens = { by = \"message\", limit = 2 } }' --format json")
        #expect(try onTerminal(screens) == "toastscript: 7 toasts: 5 shown, 2 dropped (rule 1, dedup 1); 5 screens (3 ended by the limit)\n")
        #expect(try onTerminal(command.replacingOccurrences(of: "--format json", with: "-q --format json")) == "")
        #expect(try onTerminal(command.replacingOccurrences(of: "--format json", with: "--quiet --format json")) == "")
        // Not on a terminal: stderr stays empty (a script reads it).
        let piped = try runBinary(["--format", "json", directory + "/quiet.lua", "--events", directory + "/events.jsonl"])
        #expect(piped.stderr == "")
    }

    @Test func aRunStoppedByASignalOnATerminalStillEndsWithTheSummary() throws {
        let shown = try onTerminal("""
            { echo '{"message":"deploying"}'; echo '{"message":"deploying"}'; sleep 3; } | timeout --preserve-status -s INT 0.5 '\(binary)' --clock stream > /dev/null
            echo "status ${PIPESTATUS[1]}"
            """)
        #expect(shown == "toastscript: 2 toasts: 1 shown, 1 dropped (dedup 1)\nstatus 130\n")
    }

    @Test func quietKeepsErrorsAndWarningsButNotNotes() throws {
        // A live text pipe gets a note about the wall clock; -q leaves it out, not the rejected line.
        let noted = try runShell("echo hello | '\(binary)' --input text --format json > /dev/null")
        #expect(noted.stderr.hasPrefix("toastscript: note: reading text from a pipe or terminal"))
        let quiet = try runShell("echo hello | '\(binary)' -q --input text --format json > /dev/null")
        #expect(quiet.stderr == "")
        let bad = try runBinary(["-q", "--format", "json"], stdin: #"{"mesage":"x","message":"y"}"# + "\n{oops\n")
        #expect(bad.stderr.hasPrefix(#"toastscript: input line 1: unknown field "mesage"; did you mean "message"?"#))
        #expect(bad.stderr.contains("toastscript: input line 2: invalid JSON at column 2: unexpected 'o', expected a member name\n"))
        #expect(bad.stderr.hasSuffix("toastscript: 1 input line rejected (--dead-letter FILE keeps rejected lines; --stats counts them)\n"))
    }

    // MARK: Local time

    /// Berlin's rules written out, so that no zone files are needed.
    static let berlin = ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"]
    static let parseStamps = #"parse(function(line) return { message = line, at = parse_time(line:sub(1, 19)) } end)"#

    @Test func parseTimeReadsATimeWithoutAnOffsetAsLocalAndTextShowsItAsWritten() throws {
        let log = "2026-11-28 09:14:02 upgrade libssl3\n2026-11-28 09:14:05+00:00 with an offset\n"
        let stamps = #"parse(function(line) return { message = line, at = parse_time(line:match("^%S+ %S+")) } end)"#
        let local = try runBinary(["--input", "text", "--format", "json", "-e", stamps], stdin: log, environment: Self.berlin)
        let times = try jsonRecords(local.stdout).filter { $0["event"] as? String == "present" }.map { $0["t"] as? Int }
        // 09:14:02 in Berlin is 08:14:02 UTC; an offset in the text wins.
        #expect(times == [1_795_857_242 - 3_600, 1_795_857_245])
        let utc = try runBinary(["--input", "text", "--format", "json", "--tz", "utc", "-e", stamps], stdin: log, environment: Self.berlin)
        let utcTimes = try jsonRecords(utc.stdout).filter { $0["event"] as? String == "present" }.map { $0["t"] as? Int }
        #expect(utcTimes == [1_795_857_242, 1_795_857_245])
        // Text shows the log's own times in the same zone: as written.
        let text = try runBinary(["--input", "text", "-e", stamps], stdin: log, environment: Self.berlin)
        #expect(text.stdout.hasPrefix("2026-11-28 09:14:02.000  ℹ 2026-11-28 09:14:02 upgrade libssl3  (info, t1)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("2026-11-28 10:14:05.000  ℹ 2026-11-28 09:14:05+00:00 with an offset"))
        let textUTC = try runBinary(["--input", "text", "--tz", "utc", "-e", stamps], stdin: log, environment: Self.berlin)
        #expect(textUTC.stdout.hasPrefix("2026-11-28 09:14:02.000  ℹ 2026-11-28 09:14:02 upgrade libssl3  (info, t1)\n"))
        #expect(textUTC.stdout.contains("2026-11-28 09:14:05.000  ℹ 2026-11-28 09:14:05+00:00 with an offset"))
    }

    static let epochEvents = """
        {"at":1795857242,"message":"Disk almost full","role":"warning"}
        {"at":1795857243.5,"message":"Disk almost full","role":"warning"}

        """

    @Test func explainAndDiffShowEpochTimesAsLocalDatesNeverRawSeconds() throws {
        let explain = try runBinary(["--explain", "t2"], stdin: Self.epochEvents, environment: Self.berlin)
        #expect(explain.stdout == """
            t2  "Disk almost full" (warning), input line 2
               2026-11-28 10:14:03.500  rules: pass: no rules
               2026-11-28 10:14:03.500  dedup: drop (duplicate of t1): same message, subtitle and role as t1 at 2026-11-28 10:14:02.000, within the 5 s window
               2026-11-28 10:14:03.500  dropped by dedup (duplicate of t1) — the end

            """)
        let directory = try scratch(["none.lua": "", "calm.lua": "config{ dedup = false, queue = { drop_repeats = false } }"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let diff = try runBinary(["diff", directory + "/none.lua", directory + "/calm.lua", "--tz", "utc"], stdin: Self.epochEvents,
                                 environment: Self.berlin)
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("was: dropped by dedup (duplicate) at 2026-11-28 09:14:03.500; now: shown 2026-11-28 09:14:05.000 → 2026-11-28 09:14:08.000 (timeout)"),
                "\(diff.stdout)")
        #expect(!diff.stdout.contains("17958"))
    }

    // MARK: Hints, -e, errors that say where

    @Test(arguments: ["2026-11-28 09:14:01 startup archives unpack", "1795857242 login", "[1, 2]", "\"quoted\"", "Build started"])
    func aFirstLineThatIsNotAnObjectSuggestsInputText(_ line: String) throws {
        let result = try runBinary(["--format", "json"], stdin: line + "\n")
        #expect(result.status == 65)
        #expect(result.stderr.contains("toastscript: hint: the input does not look like JSON Lines (its first line is not a JSON object); --input text shows each line as a message\n"))
    }

    @Test func inlineChunksRunAfterTheScriptFilesInTheirOrderAndAreNamedInErrors() throws {
        let directory = try scratch(["first.lua": "order = (order or '') .. 'file '\n"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let order = try runBinary(["--format", "json", "-e", "order = order .. '-e '", directory + "/first.lua",
                                   "-e", "order = order .. '-e#2'; rule(function(t) t.message = order end)"],
                                  stdin: #"{"message":"x"}"# + "\n")
        #expect(order.stderr == "")
        #expect(order.stdout.contains(#""message":"file -e -e#2""#))
        let broken = try runBinary(["-e", "rule(function(t) end)", "-e", "rule(function(t)\n  return t.\nend)"], stdin: "")
        #expect(broken.status == 1)
        #expect(broken.stderr == "toastscript: -e#2:3: <name> expected near 'end'\n    3 | end)\n")
    }

    @Test func aRulesErrorNamesTheRuleAndAStrictStopSaysSo() throws {
        let input = #"{"message":"a"}"# + "\n" + #"{"message":"b"}"# + "\n"
        let rule = #"rule("quiet debug", function(t) return t.level.name end)"#
        let named = try runBinary(["--format", "json", "-e", rule], stdin: input)
        #expect(named.status == 65)
        #expect(named.stderr.hasPrefix(#"toastscript: rule "quiet debug": -e:1: attempt to index a nil value (field 'level') (input line 1)"#))
        let strict = try runBinary(["--format", "json", "--strict", "-e", rule], stdin: input)
        #expect(strict.status == 65)
        #expect(strict.stderr == """
            toastscript: rule "quiet debug": -e:1: attempt to index a nil value (field 'level') (input line 1)
            toastscript: stopped by --strict at the first failed script call; the rest of the input was not read
            toastscript: 1 script call failed (--stats counts them by rule, hook and timer)

            """)
        let rejected = try runBinary(["--strict"], stdin: "{oops\n" + input)
        #expect(rejected.stderr.contains("toastscript: stopped by --strict at the first rejected line; the rest of the input was not read\n"))
    }

    @Test func aScriptThatDoesNotLoadShowsTheLineItFailedOn() throws {
        let directory = try scratch(["bad.lua": "-- drop debug\nrule(function(t)\n  if t.level = \"debug\" then return false end\nend)\n",
                                     "fails.lua": "local limits = {}\nerror(\"no limits set\")\n"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let syntax = try runBinary([directory + "/bad.lua"], stdin: "")
        #expect(syntax.status == 1)
        #expect(syntax.stderr == "toastscript: \(directory)/bad.lua:3: 'then' expected near '='\n    3 |   if t.level = \"debug\" then return false end\n")
        let failing = try runBinary([directory + "/fails.lua"], stdin: "")
        #expect(failing.stderr == "toastscript: \(directory)/fails.lua:2: no limits set\n    2 | error(\"no limits set\")\n")
    }

    // MARK: Text that is not UTF-8

    @Test func textThatIsNotUTF8IsKeptWithReplacementCharactersAndOneWarning() throws {
        let path = NSTemporaryDirectory() + "toastscript-latin1-\(UUID().uuidString.prefix(8)).log"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // "café" and "naïve" written in Latin-1, between plain lines.
        let bytes: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" ok\nplain\nna".utf8) + [0xEF] + Array("ve\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let text = try runBinary(["--input", "text", "--format", "json", "--events", path])
        #expect(text.status == 0)
        let messages = try jsonRecords(text.stdout).compactMap { $0["message"] as? String }
        #expect(messages == ["caf\u{FFFD} ok", "plain", "na\u{FFFD}ve"])
        #expect(text.stderr == "toastscript: warning: 2 text lines were not valid UTF-8; their bad bytes are shown as U+FFFD (\u{FFFD})\n")
        // A parse function gets the line the same way.
        let parsed = try runBinary(["--input", "text", "--format", "json", "--events", path,
                                    "-e", "parse(function(l) return { message = '>' .. l } end)"])
        #expect(try jsonRecords(parsed.stdout).compactMap { $0["message"] as? String } == [">caf\u{FFFD} ok", ">plain", ">na\u{FFFD}ve"])
        // JSON must be UTF-8: such a line is still rejected.
        let json = try runBinary(["--format", "json"], stdin: "{\"message\":\"x\"}\n")
        #expect(json.status == 0)
        try Data(Array(#"{"message":"caf"#.utf8) + [0xE9] + Array(#""}"#.utf8) + [0x0A]).write(to: URL(fileURLWithPath: path))
        let rejected = try runBinary(["--format", "json", "--events", path])
        #expect(rejected.status == 65)
        #expect(rejected.stderr.hasPrefix("toastscript: input line 1: not valid UTF-8\n"))
    }
}

/// The records of a `--format json` run, as dictionaries.
func jsonRecords(_ output: String) throws -> [[String: Any]] {
    try output.split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}
