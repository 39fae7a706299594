#if canImport(Glibc)
import Glibc
#endif

/// The `toastscript` command as a library function, so a custom build with its own stages
/// is a `main.swift` of a few lines:
///
///     var registry = StageRegistry.builtIn
///     try registry.register("quiet_hours") { QuietHoursStage(settings: try .init($0.table)) }
///     Toastscript.main(registry: registry)
public enum Toastscript {
    public static let version = "0.1.0"

    /// Runs with the process's arguments and streams, then exits with the run's status.
    public static func main(registry: StageRegistry = .builtIn) -> Never {
        Signals.install()
        let status = run(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process(),
                         registry: registry)
        exit(status)
    }

    /// One run: parse, load the scripts, build the pipeline, stream the input through it.
    /// Returns the exit status of SPEC §4.
    public static func run(arguments: [String], environment: CommandEnvironment,
                           registry: StageRegistry = .builtIn) -> Int32 {
        if arguments.first == "diff" {
            return DiffCommand.run(arguments: Array(arguments.dropFirst()), environment: environment, registry: registry)
        }
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(arguments)
        } catch {
            environment.writeError("toastscript: \(error)")
            environment.writeError(CommandLineOptions.usage)
            environment.writeError("See 'toastscript --help'.")
            return ExitStatus.usage
        }
        if options.help {
            writeText(CommandLineOptions.helpText, to: environment.standardOutput)
            return ExitStatus.success
        }
        if options.version {
            writeText("toastscript \(version) (\(LuaRuntime.luaRelease))\n", to: environment.standardOutput)
            return ExitStatus.success
        }
        do {
            let run = try RunSetup(options: options, environment: environment, registry: registry)
            return run.execute()
        } catch let error as SetupError {
            environment.writeError("toastscript: \(error.message)")
            return ExitStatus.failure
        } catch {
            environment.writeError("toastscript: \(error)")
            return ExitStatus.failure
        }
    }

    /// Writes `text` to `sink` and flushes it (help, version, diff's report).
    static func writeText(_ text: String, to sink: any ByteSink) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { sink.write(UnsafeRawBufferPointer($0)) }
        sink.flush()
    }
}

/// The exit statuses of SPEC §4.
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    /// The run finished, but input lines were rejected or script calls failed.
    public static let dataError: Int32 = 65
}

/// Something that stops a run before any input is read (exit 1).
struct SetupError: Error {
    var message: String
}
