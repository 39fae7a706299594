import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastCLI

/// `--input syslog` and `--input logfmt` (docs/logs.md): real-looking lines of each kind, each
/// read into a show and compared field by field.
@Suite struct LogFormatTests {
    /// 2026-12-06 12:00:00 UTC, the wall clock of these tests.
    static let now: Int64 = 1_796_558_400

    /// What a show read from `line` holds: its message, role, source, subtitle, `at` (UTC,
    /// RFC 3339, or "-") and extra fields as JSON.
    struct Read: Equatable, CustomStringConvertible {
        var message: String
        var role = "info"
        var source: String?
        var subtitle: String?
        var at = "-"
        var extra = "{}"

        var description: String { "\(message) | \(role) | \(source ?? "-") | \(subtitle ?? "-") | \(at) | \(extra)" }
    }

    /// Reads `lines` as `format` on the wall clock `now`, in UTC.
    static func read(_ lines: [String], as format: InputFormat, now: Int64 = now) -> [Read?] {
        var decoding = LineDecoding(decoder: EventDecoder(), input: format, deadLetter: nil)
        decoding.logClock = LogClock(zone: .utc, wallNow: { now })
        return lines.enumerated().map { number, line in
            var bytes = Array(line.utf8)
            let decoded = bytes.withUnsafeMutableBufferPointer { decoding.decode(UnsafeBufferPointer($0), number: number + 1) }
            guard case .show(let show) = decoded else { return nil }
            let toast = show.makeToast()
            let extra = JSONText.encode(.object(toast.extra))
            return Read(message: toast.message, role: toast.role, source: toast.source, subtitle: toast.subtitle,
                        at: show.at.map(Self.utc) ?? "-", extra: extra)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS`, and `.ffffff` when there is a fraction, in UTC.
    static func utc(_ micros: Microseconds) -> String {
        var seconds = time_t(micros / 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        let fraction = micros % 1_000_000
        if fraction != 0 { text += "." + String(String(fraction + 1_000_000).dropFirst()) }
        return text
    }

    @Test func rfc3164Lines() {
        let lines = [
            // RFC 3164's own example.
            "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
            // No PRI, a day padded with a space, a PID.
            "Dec  6 10:00:00 web-1 sshd[812]: Accepted publickey for sam from 10.0.0.5 port 52144 ssh2",
            // A single-digit day written without the pad; the level from the message.
            "Dec 6 10:00:02 web-1 app: ERROR database is down\r",
            // PRI wins over the words of the message.
            "<14>Dec  6 10:00:02 web-1 app: ERROR is only a word in this test name",
            // rsyslog's precise time.
            "2026-12-06T10:00:03.250123+01:00 web-1 nginx[77]: upstream timed out (110: Connection timed out)",
            // No host: the tag comes first.
            "<4>Dec  6 10:00:05 kernel: [ 1234.567890] usb 1-1: device descriptor read/64, error -71",
            // No tag.
            "<30>Dec  6 10:00:06 web-1 systemd started the thing",
        ]
        let read = Self.read(lines, as: .syslog)
        #expect(read.map { $0?.description } == [
            "'su root' failed for lonvick on /dev/pts/8 | error | su | - | 2026-10-11 22:14:15 | {\"level\":\"critical\",\"host\":\"mymachine\"}",
            "Accepted publickey for sam from 10.0.0.5 port 52144 ssh2 | info | sshd | - | 2026-12-06 10:00:00 | {\"host\":\"web-1\",\"pid\":\"812\"}",
            "ERROR database is down | error | app | - | 2026-12-06 10:00:02 | {\"level\":\"error\",\"host\":\"web-1\"}",
            "ERROR is only a word in this test name | info | app | - | 2026-12-06 10:00:02 | {\"level\":\"info\",\"host\":\"web-1\"}",
            "upstream timed out (110: Connection timed out) | info | nginx | - | 2026-12-06 09:00:03.250123 | {\"host\":\"web-1\",\"pid\":\"77\"}",
            "[ 1234.567890] usb 1-1: device descriptor read/64, error -71 | warning | kernel | - | 2026-12-06 10:00:05 | {\"level\":\"warning\"}",
            "systemd started the thing | info | - | - | 2026-12-06 10:00:06 | {\"level\":\"info\",\"host\":\"web-1\"}",
        ])
    }

    @Test func aDateWithoutAYearStaysWithinADayOfTheWallClock() throws {
        // Read on 2027-01-01 00:00:30 UTC: December's lines are last year's, January's this year's.
        let newYear: Int64 = 1_798_761_630
        let read = Self.read(["Dec 31 23:59:58 host app: last", "Jan  1 00:00:05 host app: first",
                              "Jan  2 00:00:20 host app: a day ahead, not more", "Jan  2 00:00:40 host app: more than a day ahead"],
                             as: .syslog, now: newYear)
        #expect(read.map { $0?.at } == ["2026-12-31 23:59:58", "2027-01-01 00:00:05", "2027-01-02 00:00:20", "2026-01-02 00:00:40"])
        // parse_time takes the same rule.
        let parser = TimestampParser(zone: .utc, wallNow: { newYear })
        #expect(try parser.seconds(from: "Dec 31 23:59:58").get() == 1_798_761_598)
        #expect(try parser.seconds(from: "Jan  1 00:00:05").get() == 1_798_761_605)
    }

    @Test func rfc5424Lines() {
        let lines = [
            // RFC 5424's examples: a BOM before MSG; structured data.
            "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \u{FEFF}'su root' failed for lonvick on /dev/pts/8",
            #"<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] An application event log entry..."#,
            #"<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the do-nuts."#,
            // Escapes undone; two elements; no MSG (the line is the message).
            #"<165>1 2026-12-06T10:00:00Z host app 1234 - [a@1 x="q\"uo\]te\\d" z="a\b"][b@2 y="2"]"#,
            // Every header field NILVALUE.
            "<13>1 - - - - - - hello from nowhere",
        ]
        let read = Self.read(lines, as: .syslog)
        #expect(read.map { $0?.description } == [
            "'su root' failed for lonvick on /dev/pts/8 | error | su | - | 2003-10-11 22:14:15.003000 | {\"level\":\"critical\",\"host\":\"mymachine.example.com\",\"msgid\":\"ID47\"}",
            "An application event log entry... | info | evntslog | - | 2003-10-11 22:14:15.003000 | {\"level\":\"info\",\"host\":\"mymachine.example.com\",\"msgid\":\"ID47\",\"sd.exampleSDID@32473.iut\":\"3\",\"sd.exampleSDID@32473.eventSource\":\"Application\",\"sd.exampleSDID@32473.eventID\":\"1011\"}",
            "%% It's time to make the do-nuts. | info | myproc | - | 2003-08-24 12:14:15.000003 | {\"level\":\"info\",\"host\":\"192.0.2.1\",\"pid\":\"8710\"}",
            #"<165>1 2026-12-06T10:00:00Z host app 1234 - [a@1 x="q\"uo\]te\\d" z="a\b"][b@2 y="2"] | info | app | - | 2026-12-06 10:00:00 | {"level":"info","host":"host","pid":"1234","sd.a@1.x":"q\"uo]te\\d","sd.a@1.z":"a\\b","sd.b@2.y":"2"}"#,
            "hello from nowhere | info | - | - | - | {\"level\":\"info\"}",
        ])
    }

    @Test func aLineThatIsNotSyslogIsReadAsTextAndCounted() {
        var decoding = LineDecoding(decoder: EventDecoder(), input: .syslog, deadLetter: nil)
        for (number, line) in ["just a plain line with WARN in it", "<999>Dec  6 10:00:00 h a: b", "Dec 32 10:00:00 h a: b",
                               #"<13>1 2026-12-06T10:00:00Z h a - - [broken"#, "Dec  6 10:00:00 h a: fine"].enumerated() {
            var bytes = Array(line.utf8)
            let decoded = bytes.withUnsafeMutableBufferPointer { decoding.decode(UnsafeBufferPointer($0), number: number + 1) }
            guard case .show(let show) = decoded else {
                Issue.record("line \(number + 1) was not a show")
                continue
            }
            let toast = show.makeToast()
            if number == 0 { #expect(toast.role == "warning" && toast.message == line) }
            if number == 4 { #expect(toast.message == "fine") }
        }
        #expect(decoding.notSyslogLines.count == 4)
    }

    @Test func logfmtLines() {
        let lines = [
            #"time=2026-12-06T10:00:00.5+01:00 level=info msg="user logged in" user=sam"#,
            #"ts=1796551201.25 lvl=ERROR msg="payment failed: \"card\" declined\n\tretry \u00e9" source=billing debug"#,
            #"ts=1796551202 severity=audit message=hello key=x key=y"#,
            #"level=warn no message here"#,
            #"msg=steer role=admin id=7 duration=0 type=dismiss priority=9 subtitle="from the log" made_by=me"#,
            #"at=5 timestamp=2026-12-06T11:00:00Z msg="" empty="#,
        ]
        let read = Self.read(lines, as: .logfmt)
        #expect(read.map { $0?.description } == [
            #"user logged in | info | - | - | 2026-12-06 09:00:00.500000 | {"level":"info","user":"sam"}"#,
            "payment failed: \"card\" declined\n\tretry é | error | billing | - | 2026-12-06 10:00:01.250000 | {\"level\":\"error\",\"debug\":true}",
            #"hello | info | - | - | 2026-12-06 10:00:02 | {"level":"audit","logfmt.key":"y"}"#,
            #"level=warn no message here | warning | - | - | - | {"level":"warning","no":true,"logfmt.message":true,"here":true}"#,
            #"steer | info | - | from the log | - | {"logfmt.role":"admin","logfmt.id":"7","logfmt.duration":"0","logfmt.type":"dismiss","logfmt.priority":"9","logfmt.made_by":"me"}"#,
            #"at=5 timestamp=2026-12-06T11:00:00Z msg="" empty= | info | - | - | 2026-12-06 11:00:00 | {"logfmt.at":"5","empty":""}"#,
        ])
    }

    @Test func logfmtRejectsAnUnterminatedQuoteAndWarnsOnceOfAnUnreadTime() {
        var decoding = LineDecoding(decoder: EventDecoder(), input: .logfmt, deadLetter: nil)
        var results: [String] = []
        for (number, line) in [#"msg="unterminated"#, "time=yesterday msg=a", "time=tomorrow msg=b", #"=x msg=c"#, "msg=d"].enumerated() {
            var bytes = Array(line.utf8)
            switch bytes.withUnsafeMutableBufferPointer({ decoding.decode(UnsafeBufferPointer($0), number: number + 1) }) {
            case .show(let show): results.append("show " + show.makeToast().message + (show.at == nil ? "" : " at"))
            case .rejected(let rejection): results.append("rejected: " + rejection.reason)
            default: results.append("other")
            }
        }
        #expect(results == [#"rejected: logfmt: the quoted value of "msg" has no closing quote"#, "show a", "show b",
                            "rejected: logfmt: a value without a key at column 1", "show d"])
        #expect(decoding.takeNotes() == [#"input line 2: logfmt time "yesterday" is neither RFC 3339 nor epoch seconds; lines with such a time have no "at" (said once)"#])
    }

    /// Found by the decoder fuzz target on examples/app-traces.log read as logfmt: a line of
    /// many bare keys. Its extra text is canonical as far as a record checks one, and no further.
    @Test func manyFieldsAreNotMarkedCanonicalBeyondWhatARecordChecks() {
        var decoding = LineDecoding(decoder: EventDecoder(), input: .logfmt, deadLetter: nil)
        for (number, line) in ["a b c d e f g", "a b c d e f g h i j k"].enumerated() {
            var bytes = Array(line.utf8)
            guard case .show(let show) = bytes.withUnsafeMutableBufferPointer({ decoding.decode(UnsafeBufferPointer($0), number: number + 1) }) else {
                Issue.record("not a show")
                continue
            }
            let toast = show.makeToast()
            #expect(toast.extraTextIsKnownCanonical == (number == 0))
            #expect(!toast.extraTextIsKnownCanonical || toast.withExtraText(JSONText.isCanonicalObject) == true)
            #expect(toast.extra.count == line.split(separator: " ").count)
        }
    }

    /// What the decoder fuzz target holds the native formats to, on every example input read as
    /// syslog and as logfmt, line by line and joined: a show or a rejection of its own line, a
    /// message, canonical text only where it is, a record that is one JSON object. (The fuzz
    /// target's finding is kept beside them: dpkg's log with control bytes in a line, whose
    /// escaped names were marked canonical.)
    @Test(arguments: ["../Fuzz/findings/decoder-1.log", "app-traces.log", "dpkg.log", "syslog.log", "ci-log.txt", "ci-failures.log", "api-logfmt.log", "app-session.jsonl"])
    func everyExampleInputReadsAsEitherFormat(file: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "examples/" + file)))
        let clock = LogClock(zone: .utc, wallNow: { Self.now })
        for format in [InputFormat.syslog, .logfmt] {
            for joins in [false, true] {
                let reader = LineReader(source: MemorySource(bytes), maxLineBytes: 4096)
                if joins { reader.joinContinuations(of: format, clock: clock) }
                var decoding = LineDecoding(decoder: EventDecoder(), input: format, deadLetter: nil)
                decoding.logClock = clock
                decoding.joinsLines = joins
                var lastNumber = 0
                while case .line(let line, let number) = reader.next() {
                    #expect(number > lastNumber)
                    lastNumber = number
                    switch decoding.decode(line, number: number) {
                    case .show(let show):
                        let toast = show.makeToast()
                        #expect(!toast.message.isEmpty, "\(format) \(joins) line \(number)")
                        #expect(!toast.extraTextIsKnownCanonical || toast.withExtraText(JSONText.isCanonicalObject) == true,
                                "\(format) \(joins) line \(number)")
                        var output = ByteBuffer()
                        _ = JSONRecordEncoder().encode(.present(toast, at: 0, waited: 0), into: &output)
                        let record = output.bytes.last == 0x0A ? Array(output.bytes.dropLast()) : output.bytes
                        let isObject = record.withUnsafeBufferPointer { body in
                            var scanner = JSONScanner(body)
                            guard case .some(.object) = try? scanner.parseValue() else { return false }
                            return scanner.isAtEnd
                        }
                        #expect(isObject, "\(format) \(joins) line \(number)")
                    case .rejected(let rejection):
                        #expect(rejection.line == number)
                    default:
                        break
                    }
                }
            }
        }
    }
}
