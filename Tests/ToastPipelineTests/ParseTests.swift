import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// A script's `parse` function turns any line into events before the clock and the stages
/// (docs/lua.md "parse"), and `parse_time` reads the times logs write.
@Suite struct ParseTests {
    @Test func aJSONLineWithOtherNamesBecomesAShowAtItsOwnTime() {
        let script = """
            parse(function(entry)
              return { at = entry.ts, message = entry.MESSAGE, role = entry.level, source = entry.app, team = "ops" }
            end)
            """
        let result = runCLI(["--format", "json"], input: lines(
            #"{"ts":10,"MESSAGE":"Disk full","level":"error","app":"backup"}"#,
            #"{"ts":12.5,"MESSAGE":"Saved","level":"success"}"#), scripts: [script])
        #expect(result.status == 0)
        #expect(result.stderr == [])
        #expect(result.lines == [
            present("10", "t1", "Disk full", role: "error", source: "backup", extra: #"{"team":"ops"}"#),
            dismiss("13", "t1", "timeout", shown: "3"),
            present("13", "t2", "Saved", role: "success", waited: "0.5", extra: #"{"team":"ops"}"#),
            dismiss("16", "t2", "timeout", shown: "3"),
        ])
    }

    @Test func aListGivesSeveralEventsAndNilOrFalseSkipsTheLineWithoutTakingAnID() {
        let script = """
            parse(function(line)
              if line == "skip" then return nil end
              if line == "false" then return false end
              if line == "pair" then return { { message = "first" }, { message = "second", at = 1 } } end
              if line == "tap" then return { type = "tap" } end
              return { message = line }
            end)
            """
        let result = runCLI(["--input", "text", "--format", "json", "--no-drain", "--stats"],
                            input: "skip\nfalse\npair\nlast\ntap\n", scripts: [script])
        #expect(result.status == 0)
        // Skipped lines take no implicit id: the shows are t1 and t2 (pair), then t3 (last).
        #expect(result.lines == [
            present("0", "t1", "first"),
            dismiss("1", "t1", "tap", shown: "1"),
            present("1", "t2", "second"),
            dismiss("1", "t2", "host_removed", shown: "0"),
            drop("1", "t3", "last", stage: "host", "host_removed"),
        ])
        #expect(result.stderr.contains("  lines read        5 (0 blank)"))
        #expect(result.stderr.contains("  skipped lines     2"))
        #expect(result.stderr.contains("  events            4"))
    }

    @Test func anEventOfAListThatIsWrongIsRejectedAndTheOthersGoOn() throws {
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let deadLetter = directory + "/dead.txt"
        let script = "parse(function(line) return { { message = line }, { role = 'info' }, { message = line .. '!', role = 'nope' } } end)"
        let result = runCLI(["--input", "text", "--format", "json", "--dead-letter", deadLetter], input: "hello\n", scripts: [script])
        #expect(result.status == 65)
        #expect(result.stderr == [
            "toastscript: input line 1: event 2 of 3 from parse: missing message",
            "toastscript: input line 1: event 3 of 3 from parse: unknown role \"nope\" (known: error, info, success, warning)",
            "toastscript: 1 input line rejected (--dead-letter has every rejected line; --stats counts them)",
        ])
        #expect(result.lines.first == present("0", "t1", "hello"))
        #expect(try String(contentsOfFile: deadLetter, encoding: .utf8) == "hello\n")
    }

    @Test func anErrorOrAnOddReturnRejectsTheLineLikeBadInput() throws {
        let directory = temporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let deadLetter = directory + "/dead.jsonl"
        let script = """
            parse(function(entry)
              if entry.kind == "boom" then error("cannot read " .. entry.kind) end
              if entry.kind == "number" then return 42 end
              if entry.kind == "true" then return true end
              return { message = entry.kind }
            end)
            """
        let input = lines(#"{"kind":"boom"}"#, #"{"kind":"number"}"#, #"{"kind":"true"}"#, "not json", "[1]", #"{"kind":"fine"}"#)
        let result = runCLI(["--format", "json", "--dead-letter", deadLetter], input: input, scripts: [script])
        #expect(result.status == 65)
        #expect(result.stderr == [
            "toastscript: input line 1: parse: rules.lua:2: cannot read boom",
            "toastscript: input line 2: parse: rules.lua:1: returned number; expected an event table, a list of them, or nil",
            "toastscript: input line 3: parse: rules.lua:1: returned boolean; expected an event table, a list of them, or nil",
            "toastscript: input line 4: invalid JSON at column 1: unexpected 'n', expected a value",
            "toastscript: input line 5: not a JSON object",
            "toastscript: 5 input lines rejected (--dead-letter has every rejected line; --stats counts them)",
        ])
        #expect(result.lines.first == present("0", "t1", "fine"))
        #expect(try String(contentsOfFile: deadLetter, encoding: .utf8) == input.split(separator: "\n").prefix(5).map { $0 + "\n" }.joined())

        let strict = runCLI(["--format", "json", "--strict"], input: input, scripts: [script])
        #expect(strict.status == 65)
        #expect(strict.stderr.first == "toastscript: input line 1: parse: rules.lua:2: cannot read boom")
        #expect(strict.lines == [])
    }

    @Test func plainTextGivenAsJSONToAParseFunctionGetsTheHint() {
        let result = runCLI(["--format", "json"], input: "Build started\n", scripts: ["parse(function(e) return e end)"])
        #expect(result.stderr.prefix(2) == [
            "toastscript: input line 1: invalid JSON at column 1: unexpected 'B', expected a value",
            "toastscript: hint: the input does not look like JSON Lines (its first line is not a JSON object); --input text shows each line as a message",
        ])
    }

    @Test func aSecondParseIsALoadErrorNamingBothPlaces() {
        let result = runCLI([], input: "", scripts: ["parse(function(l) end)", "\nparse(function(l) return nil end)"])
        #expect(result.status == 1)
        #expect(result.stderr == [loadError("script2.lua:2: parse: a run has one parse function, and rules.lua:1 set it already",
                                            source: "\nparse(function(l) return nil end)")])
        #expect(runCLI([], input: "", scripts: ["parse('x')"]).stderr
                == [loadError("rules.lua:1: parse expects a function, not string", source: "parse('x')")])
    }

    @Test func textFromAPipeStaysOnTheStreamClockWhenParseGivesTimes() {
        let script = "parse(function(line) return { message = line, at = 5 } end)"
        let result = runCLI(["--input", "text", "--format", "json"], input: "hello\n", scripts: [script])
        #expect(result.stderr == [])
        #expect(result.lines.first == present("5", "t1", "hello"))
    }

    @Test func parseTimeInLua() {
        let script = """
            local function show(...) log(...) end
            show(parse_time("2026-11-30T10:06:31.25Z"))
            show(parse_time("2026-11-30 10:06:31+01:00"))
            show(parse_time("2026-11-30 10:06:31"))
            show(parse_time("30/Nov/2026:10:06:31 +0000", "%d/%b/%Y:%H:%M:%S %z"))
            show(parse_time("yesterday"))
            show(parse_time("2026-13-30T10:06:31Z"))
            """
        let result = runCLI([], input: "", scripts: [script])
        #expect(result.stderr == [
            "1796033191.25",
            "1796029591.0",
            "1796033191.0",
            "1796033191.0",
            "nil\tparse_time: \"yesterday\": not an RFC 3339 / ISO 8601 or syslog time (give a format)",
            "nil\tparse_time: \"2026-13-30T10:06:31Z\": the month is out of range (13)",
        ])
        #expect(runCLI([], input: "", scripts: ["parse_time(12)"]).stderr
                == [loadError("rules.lua:1: parse_time expects a string, not number", source: "parse_time(12)")])
    }
}

@Suite struct TimestampParserTests {
    let utc = TimestampParser(zone: .utc, wallNow: { 1_796_033_191 })

    private func seconds(_ text: String, _ format: String? = nil, parser: TimestampParser? = nil) -> Double? {
        try? (parser ?? utc).seconds(from: text, format: format).get()
    }

    @Test func rfc3339AndISO8601() {
        #expect(seconds("2026-11-30T10:06:31Z") == 1_796_033_191)
        #expect(seconds("2026-11-30t10:06:31z") == 1_796_033_191)
        #expect(seconds("2026-11-30T10:06:31.250Z") == 1_796_033_191.25)
        #expect(seconds("2026-11-30T10:06:31,5Z") == 1_796_033_191.5)
        #expect(seconds("2026-11-30T11:06:31+01:00") == 1_796_033_191)
        #expect(seconds("2026-11-30T05:06:31-0500") == 1_796_033_191)
        #expect(seconds("2026-11-30T11:06:31+01") == 1_796_033_191)
        #expect(seconds("2026-11-30 10:06:31") == 1_796_033_191)
        #expect(seconds("2026-11-30 10:06") == 1_796_033_160)
        #expect(seconds("2026-11-30") == 1_795_996_800)
        #expect(seconds("2026-11-30T10:06:31.118204+01:00")! - 1_796_029_591.118204 < 1e-6)
    }

    @Test func syslogTakesTheCurrentYear() {
        #expect(seconds("Nov 30 10:06:31") == 1_796_033_191)
        #expect(seconds("Dec  1 00:00:00") == 1_796_083_200)
        #expect(seconds("Dec 1 00:00:00") == 1_796_083_200)
    }

    @Test func strftimeFormats() {
        #expect(seconds("30/Nov/2026:11:06:31 +0100", "%d/%b/%Y:%H:%M:%S %z") == 1_796_033_191)
        #expect(seconds("2026.11.30 10h06", "%Y.%m.%d %Hh%M") == 1_796_033_160)
        // What the format leaves out is January 1 of the current year.
        #expect(seconds("10:06:31", "%H:%M:%S") == 1_767_261_991)
        let local = TimestampParser(zone: .local, wallNow: { 1_796_033_191 })
        #expect(seconds("2026-11-30T10:06:31+00:00", parser: local) == 1_796_033_191, "an offset wins over the zone")
    }

    @Test func whatItCannotReadSaysWhichPart() {
        func why(_ text: String) -> String {
            if case .failure(let error) = utc.seconds(from: text) { return error.message }
            return "read"
        }
        #expect(why("30.11.2026") == "\"30.11.2026\": not an RFC 3339 / ISO 8601 or syslog time (give a format)")
        #expect(why("2026-11-30T10") == "\"2026-11-30T10\": the hour is not followed by ':' and the minutes")
        #expect(why("2026-11-30T1:06") == "\"2026-11-30T1:06\": the hour is not two digits")
        #expect(why("2025-06-24  14:3") == "\"2025-06-24  14:3\": the minutes are not two digits")
        #expect(why("2025-06-24 14:36:2") == "\"2025-06-24 14:36:2\": the seconds are not two digits")
        #expect(why("2025-06-24 14:36:25.") == "\"2025-06-24 14:36:25.\": the fraction of a second has no digits")
        #expect(why("2025-06-24 14:36:25+1") == "\"2025-06-24 14:36:25+1\": the offset is not ±HH:MM")
        #expect(why("2026-11-30T10:06:31Z trailing") == "\"2026-11-30T10:06:31Z trailing\": unexpected text after the time: \" trailing\"")
        #expect(why("2026-02-30x") == "\"2026-02-30x\": unexpected text after the time: \"x\"")
        #expect(why("2026-00-30") == "\"2026-00-30\": the month is out of range (0)")
        #expect(why("2026-11-32") == "\"2026-11-32\": the day is out of range (32)")
        #expect(why("2026-11-30 24:00") == "\"2026-11-30 24:00\": the hour is out of range (24)")
        #expect(why("Nov 30 23:60:00") == "\"Nov 30 23:60:00\": the minutes are out of range (60)")
        #expect(utc.seconds(from: "10:06", format: "%H:%M:%S") == .failure(TimestampError("\"10:06\" does not match the format \"%H:%M:%S\"")))
        #expect(utc.seconds(from: "10:06:31 PM", format: "%H:%M:%S") == .failure(TimestampError("unexpected text after the time: \" PM\"")))
    }

    /// apt's history.log puts two spaces between the date and the time; any run of spaces, or
    /// one `T`, is read.
    @Test func runsOfSpacesOrOneTSeparateTheDateAndTheTime() {
        for text in ["2025-06-24T14:36:25Z", "2025-06-24 14:36:25Z", "2025-06-24  14:36:25Z", "2025-06-24     14:36:25Z"] {
            #expect(utc.seconds(from: text) == .success(1_750_775_785), "\(text)")
        }
        #expect(utc.seconds(from: "2025-06-24TT14:36:25Z") != .success(1_750_775_785))
        #expect(utc.seconds(from: "2025-06-24 T14:36:25Z") != .success(1_750_775_785))
    }
}
