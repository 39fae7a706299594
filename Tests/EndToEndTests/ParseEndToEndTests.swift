import Foundation
import Testing

/// `parse` and `parse_time` on the built binary: the classic syslog form in the current year,
/// and `--tz local` for times without an offset.
@Suite struct ParseEndToEndTests {
    @Test func classicSyslogTimesAreInTheCurrentYear() throws {
        let result = try runBinary(["--input", "text", "--format", "json", "--no-drain", "examples/syslog.lua"],
                                   stdin: "Nov 30 10:14:00 web01 logger: a classic line\n")
        #expect(result.status == 0, "\(result.stderr)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let year = calendar.component(.year, from: Date())
        let expected = calendar.date(from: DateComponents(year: year, month: 11, day: 30, hour: 10, minute: 14))!.timeIntervalSince1970
        #expect(result.stdout.hasPrefix(#"{"event":"present","t":\#(Int(expected)),"id":"t1","message":"a classic line""#))
    }

    @Test func timesWithoutAnOffsetAreLocalUnlessTzUTC() throws {
        let path = NSTemporaryDirectory() + "toastscript-tz-\(UUID().uuidString.prefix(8)).lua"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"parse(function(line) return { message = line, at = parse_time(line) } end)"#.write(toFile: path, atomically: true, encoding: .utf8)
        let input = "2026-11-30 10:06:31\n"
        let utc = try runBinary(["--input", "text", "--format", "json", "--no-drain", "--tz", "utc", path], stdin: input,
                                environment: ["TZ": "JST-9"])
        #expect(utc.stdout.hasPrefix(#"{"event":"present","t":1796033191,"#))
        for local in [[], ["--tz", "local"]] {
            let run = try runBinary(["--input", "text", "--format", "json", "--no-drain"] + local + [path], stdin: input,
                                    environment: ["TZ": "JST-9"])
            #expect(run.stdout.hasPrefix(#"{"event":"present","t":1796000791,"#))
        }
        // Text output shows such times as the date and time in the same zone: as the log wrote them.
        let text = try runBinary(["--input", "text", "--no-drain", "--color", "never", path], stdin: input,
                                 environment: ["TZ": "JST-9"])
        #expect(text.stdout.hasPrefix("2026-11-30 10:06:31.000  ℹ 2026-11-30 10:06:31  (info, t1)\n"))
        let textUTC = try runBinary(["--input", "text", "--no-drain", "--color", "never", "--tz", "utc", path], stdin: input,
                                    environment: ["TZ": "JST-9"])
        #expect(textUTC.stdout.hasPrefix("2026-11-30 10:06:31.000  ℹ 2026-11-30 10:06:31  (info, t1)\n"))
    }
}
