#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore
import ToastIO
import ToastLua

/// The outside world of one run: standard streams, environment variables and the wall
/// clock. The real one comes from the process; tests pass their own.
public struct CommandEnvironment {
    package var standardInput: any ByteSource
    package var standardOutput: any ByteSink
    /// Whether standard output is a terminal (for `--color auto`).
    public var standardOutputIsTerminal: Bool
    /// Writes one line (without its newline) to standard error.
    public var writeError: (String) -> Void
    /// Whether standard error is a terminal: a person watches it, so the run ends with a
    /// one-line summary there.
    public var standardErrorIsTerminal = false
    public var variables: [String: String]
    /// Microseconds on a monotonic clock.
    public var wallClock: () -> Microseconds
    /// Microseconds since the Unix epoch, for showing the time of day.
    public var timeOfDay: () -> Microseconds
    /// The name the program goes by in its messages, `--help` and `--version`: `toastscript`,
    /// or a custom build's own (`Toastscript.main(registry:name:version:)`).
    public var programName: String
    /// A custom build's own version, shown by `--version` before toastscript's.
    public var programVersion: String?
    /// Whether standard error is the journal (`JOURNAL_STREAM` names its device and inode):
    /// each line then begins with its syslog priority, `<3>` unless said otherwise.
    public var standardErrorIsJournal = false

    /// How a line on standard error ranks, as the journal reads it.
    public enum Priority: Int, Sendable {
        case error = 3, warning = 4, notice = 5
    }

    /// Writes `text` on standard error at `priority` (errors: `writeError`).
    public func writeError(_ text: String, priority: Priority) {
        writeError(Self.prefixed(text, priority: priority, when: standardErrorIsJournal))
    }

    /// `text` with `<N>` before each of its lines when `when`, as the journal reads priorities.
    static func prefixed(_ text: String, priority: Priority, when: Bool) -> String {
        guard when else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { "<\(priority.rawValue)>" + $0 }
            .joined(separator: "\n")
    }

    /// Whether `line` begins with a priority (`<0>` to `<7>`).
    static func hasPriority(_ line: Substring) -> Bool {
        let bytes = Array(line.utf8.prefix(3))
        return bytes.count == 3 && bytes[0] == UInt8(ascii: "<") && (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[1])
            && bytes[2] == UInt8(ascii: ">")
    }

    /// An environment for running the command in-process: input from memory, output kept in
    /// memory (`standardOutput.text`), each line of standard error handed to `writeError`.
    public init(standardInput: MemorySource, standardOutput: MemorySink, standardOutputIsTerminal: Bool = false,
                writeError: @escaping (String) -> Void, variables: [String: String] = [:],
                wallClock: @escaping () -> Microseconds = CommandEnvironment.monotonicMicroseconds,
                timeOfDay: @escaping () -> Microseconds = CommandEnvironment.epochMicroseconds,
                programName: String = "toastscript", programVersion: String? = nil) {
        self.init(source: standardInput, sink: standardOutput, standardOutputIsTerminal: standardOutputIsTerminal,
                  writeError: writeError, variables: variables, wallClock: wallClock, timeOfDay: timeOfDay,
                  programName: programName, programVersion: programVersion)
    }

    /// An environment with any byte source and sink (the process's own streams, a test's).
    package init(source standardInput: any ByteSource, sink standardOutput: any ByteSink, standardOutputIsTerminal: Bool = false,
                writeError: @escaping (String) -> Void, variables: [String: String] = [:],
                wallClock: @escaping () -> Microseconds = CommandEnvironment.monotonicMicroseconds,
                timeOfDay: @escaping () -> Microseconds = CommandEnvironment.epochMicroseconds,
                programName: String = "toastscript", programVersion: String? = nil) {
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardOutputIsTerminal = standardOutputIsTerminal
        self.writeError = writeError
        self.variables = variables
        self.wallClock = wallClock
        self.timeOfDay = timeOfDay
        self.programName = programName
        self.programVersion = programVersion
    }

    /// The process's own streams and environment.
    public static func process() -> CommandEnvironment {
        let output = FileDescriptorSink.standardOutput()
        let standardError = FileDescriptorSink.standardError()
        var variables: [String: String] = [:]
        for name in ["NO_COLOR", "TERM", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "TOASTSCRIPT_TEST_KILL_AT",
                     LuaOptions.fastPathVariable, "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM",
                     LogClock.fixedNowVariable] {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        let journal = Self.isJournal(STDERR_FILENO, stream: variables["JOURNAL_STREAM"])
        var environment = CommandEnvironment(
            source: FileDescriptorSource(fd: STDIN_FILENO),
            sink: output,
            standardOutputIsTerminal: output.isTerminal,
            writeError: { line in
                // Messages quote input and scripts: nothing in them may act on the terminal
                // (tabs stay: they separate the fields of a script's `log` line).
                // When stderr is the journal, a line without a priority is an error's.
                let text = line.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { (journal && !hasPriority($0) ? "<3>" : "") + TerminalText.escaped(String($0), keepingTabs: true) }
                    .joined(separator: "\n") + "\n"
                standardError.write(text)
            },
            variables: variables)
        environment.standardErrorIsTerminal = isatty(STDERR_FILENO) == 1
        environment.standardErrorIsJournal = journal
        return environment
    }

    /// Whether `descriptor` is the stream `JOURNAL_STREAM` (`DEVICE:INODE`) names.
    private static func isJournal(_ descriptor: Int32, stream: String?) -> Bool {
        guard let stream, let colon = stream.firstIndex(of: ":"),
              let device = UInt64(stream[..<colon]), let inode = UInt64(stream[stream.index(after: colon)...]) else { return false }
        var status = stat()
        return fstat(descriptor, &status) == 0 && UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    public static func epochMicroseconds() -> Microseconds {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Microseconds(now.tv_sec) * 1_000_000 + Microseconds(now.tv_nsec / 1_000)
    }

    public static func monotonicMicroseconds() -> Microseconds {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Microseconds(now.tv_sec) * 1_000_000 + Microseconds(now.tv_nsec / 1_000)
    }
}
