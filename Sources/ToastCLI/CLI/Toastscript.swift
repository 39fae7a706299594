#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO
import ToastLua

/// The `toastscript` command as a library function, so a custom build with its own stages
/// is a `main.swift` of a few lines, and goes by its own name:
///
///     var registry = StageRegistry.builtIn
///     registry.register(PerSourceCapStage.self)
///     Toastscript.main(registry: registry, name: "my-toastscript", version: "1.0.0")
public enum Toastscript {
    public static let version = "0.1.0"

    /// Runs with the process's arguments and streams, then exits with the run's status.
    /// `name` and `version` are a custom build's: its messages, `--help` and `--version` say
    /// them.
    public static func main(registry: StageRegistry = .builtIn, name: String = "toastscript",
                            version: String? = nil) -> Never {
        Signals.install()
        var environment = CommandEnvironment.process()
        environment.programName = name
        environment.programVersion = version
        let status = run(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment,
                         registry: registry)
        exit(status)
    }

    /// One run: parse, load the scripts, build the pipeline, stream the input through it.
    /// Returns the exit status of docs/events.md, "Records".
    public static func run(arguments: [String], environment: CommandEnvironment,
                           registry: StageRegistry = .builtIn) -> Int32 {
        do {
            try registry.check()
        } catch {
            // A mistake in the build itself (two stages under one name): said before anything else.
            environment.writeError("\(environment.programName): \(error)")
            return ExitStatus.failure
        }
        if arguments.first == "diff" {
            return DiffCommand.run(arguments: Array(arguments.dropFirst()), environment: environment, registry: registry)
        }
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(arguments)
        } catch {
            environment.writeError("\(environment.programName): \(error)")
            environment.writeError(CommandLineOptions.usage(programName: environment.programName))
            environment.writeError("See '\(environment.programName) --help'.")
            return ExitStatus.usage
        }
        if options.help {
            writeText(CommandLineOptions.helpText(programName: environment.programName,
                                                  stages: BuiltInStage.defaultOrder + registry.pluginNames),
                      to: environment.standardOutput)
            return ExitStatus.success
        }
        if options.version {
            writeText(versionText(environment) + "\n", to: environment.standardOutput)
            return ExitStatus.success
        }
        do {
            // A Redis server that lost writes ends a run, and the next starts from its state:
            // never afresh, whatever the first start was asked.
            var options = options
            while true {
                let run = try RunSetup(options: options, environment: environment, registry: registry)
                if case .exited(let status) = run.execute() { return status }
                options.stateReset = false
            }
        } catch {
            environment.writeError("\(environment.programName): \(error)")
            return ExitStatus.failure
        }
    }

    /// `toastscript 0.1.0 (Lua 5.4.6)`; a custom build: `my-toastscript 1.0.0 (toastscript 0.1.0, Lua 5.4.6)`.
    static func versionText(_ environment: CommandEnvironment) -> String {
        guard environment.programName != "toastscript" || environment.programVersion != nil else {
            return "toastscript \(version) (\(LuaRuntime.luaRelease))"
        }
        let own = environment.programVersion.map { " " + $0 } ?? ""
        return "\(environment.programName)\(own) (toastscript \(version), \(LuaRuntime.luaRelease))"
    }

    /// Writes `text` to `sink` and flushes it (help, version, diff's report).
    static func writeText(_ text: String, to sink: any ByteSink) {
        sink.write(text)
        sink.flush()
    }
}

/// How a run ended: with an exit status, or with a Redis server that lost writes, which the
/// command answers by starting again from the server's state (docs/scale.md).
enum RunEnd: Equatable {
    case exited(Int32)
    case startsAgain
}

/// The exit statuses of docs/events.md, "Records".
package enum ExitStatus {
    package static let success: Int32 = 0
    package static let failure: Int32 = 1
    package static let usage: Int32 = 2
    /// The run finished, but input lines were rejected or script calls failed.
    package static let dataError: Int32 = 65
}

/// Something that stops a run before any input is read (exit 1).
struct SetupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
