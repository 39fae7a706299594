import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastCLI

/// `--multiline` in the reader (docs/logs.md, "Stack traces"): which lines join the event
/// before them, and where the input stands while an event is held (what a checkpoint saves,
/// so that a restart reads the held event again from its first line).
@Suite struct MultilineReaderTests {
    private func events(_ text: String, format: InputFormat = .text) -> [(text: String, number: Int, offset: Int64, line: Int)] {
        let reader = LineReader(source: MemorySource(text))
        reader.joinContinuations(of: format, clock: LogClock(zone: .utc, wallNow: { 1_796_558_400 }))
        var found: [(String, Int, Int64, Int)] = []
        while case .line(let bytes, let number) = reader.next() {
            found.append((String(decoding: bytes, as: UTF8.self), number, reader.offset, reader.lineNumber))
        }
        return found
    }

    @Test func theReaderStandsAtTheHeldEventsFirstLine() {
        let read = events("a\n  b\nc\n\td\nlast")
        #expect(read.map(\.text) == ["a\n  b", "c\n\td", "last"])
        #expect(read.map(\.number) == [1, 3, 5])
        // After "a\n  b" is handed out, "c" is held: a checkpoint then saves c's start.
        #expect(read.map(\.offset) == [6, 11, 15])
        #expect(read.map(\.line) == [2, 4, 5])
    }

    @Test func javaAndPythonTracesStayWhole() {
        let java = """
            ERROR [main] App - failed
            java.lang.IllegalStateException: boom
            \tat a.B.c(B.java:1)
            Caused by: java.io.IOException: disk
            \t... 3 more
            INFO next
            com.example.Shop: a line of its own
            """
        #expect(events(java).map(\.text) == [
            "ERROR [main] App - failed\njava.lang.IllegalStateException: boom\n\tat a.B.c(B.java:1)\nCaused by: java.io.IOException: disk\n\t... 3 more",
            "INFO next", "com.example.Shop: a line of its own",
        ])
        let python = """
            ERROR:root:failed
            Traceback (most recent call last):
              File "a.py", line 1, in <module>
            KeyError: 'x'

            During handling of the above exception, another exception occurred:

            Traceback (most recent call last):
              File "a.py", line 3, in <module>
            ValueError: bad
            INFO:root:next

            INFO:root:after a blank line
            """
        #expect(events(python).map(\.text) == [
            "ERROR:root:failed\nTraceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyError: 'x'\n\n"
                + "During handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n"
                + "  File \"a.py\", line 3, in <module>\nValueError: bad",
            "INFO:root:next", "INFO:root:after a blank line",
        ])
    }

    @Test func syslogLinesContinueByTheirMessage() {
        let log = """
            Dec  6 10:00:00 h app[1]: ERROR failed
            Dec  6 10:00:00 h app[1]: \tat a.B.c(B.java:1)
            Dec  6 10:00:01 h app[1]: next
            """
        #expect(events(log, format: .syslog).map(\.text) == ["Dec  6 10:00:00 h app[1]: ERROR failed\n\tat a.B.c(B.java:1)",
                                                             "Dec  6 10:00:01 h app[1]: next"])
    }

    @Test func anEventThatWouldGrowPastTheLineLimitEndsThere() {
        let reader = LineReader(source: MemorySource("first\n  " + String(repeating: "x", count: 40) + "\n  more\n"), maxLineBytes: 32)
        reader.joinContinuations(of: .text, clock: LogClock(zone: .utc))
        var texts: [String] = []
        loop: while true {
            switch reader.next() {
            case .line(let bytes, _): texts.append(String(decoding: bytes, as: UTF8.self))
            case .tooLong(let number, _): texts.append("too long: \(number)")
            default: break loop
            }
        }
        #expect(texts == ["first", "too long: 2", "  more"])
    }
}
