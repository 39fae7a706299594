/// Everything a run needs, built before any input is read: scripts loaded, files opened,
/// the pipeline assembled. Any failure here is exit 1 (SPEC §8 "Files").
struct RunSetup {
    let options: CommandLineOptions
    let environment: CommandEnvironment
    let runtime: LuaRuntime
    let pipeline: Pipeline
    let writer: SinkRecordWriter
    let input: any ByteSource
    let deadLetter: FileDescriptorSink?
    let decoder: EventDecoder

    init(options: CommandLineOptions, environment: CommandEnvironment, registry: StageRegistry) throws {
        self.options = options
        self.environment = environment
        do {
            runtime = try LuaRuntime(options: options.lua, registry: registry)
        } catch {
            throw SetupError(message: "\(error)")
        }
        runtime.reportError = { [writeError = environment.writeError] in writeError("toastscript: \($0)") }
        runtime.writeLog = environment.writeError
        for script in options.scripts {
            do {
                try runtime.load(scriptAt: script)
            } catch {
                throw SetupError(message: "\(error)")
            }
        }
        let settings = runtime.settings

        let sink: any ByteSink
        let isTerminal: Bool
        do {
            if let path = options.output {
                sink = try FileDescriptorSink.appending(to: path, fsync: options.fsync)
                isTerminal = false
            } else {
                sink = environment.standardOutput
                isTerminal = environment.standardOutputIsTerminal
            }
            deadLetter = try options.deadLetter.map { try FileDescriptorSink.appending(to: $0, fsync: false) }
            input = try options.events.map { try FileDescriptorSource.opening($0) } ?? environment.standardInput
        } catch let error as SinkOpenError {
            throw SetupError(message: error.message)
        }

        let noColor = !(environment.variables["NO_COLOR"] ?? "").isEmpty
        let useColor = options.color == .always || (options.color == .auto && isTerminal && !noColor)
        let encoder: any RecordEncoder
        switch options.format {
        case .json: encoder = JSONRecordEncoder()
        case .text: encoder = TextRecordEncoder(useColor: useColor, verbose: options.verbose)
        case .speech: encoder = SpeechRecordEncoder()
        }
        writer = SinkRecordWriter(encoder: encoder, sink: sink)

        let rules = RulesStage(rules: runtime.rules)
        let stages: [(name: String, stage: any ToastStage)]
        do {
            stages = try registry.makeStages(settings: settings, rules: rules)
        } catch let error as ConfigError {
            throw SetupError(message: error.message)
        }
        let output: any RecordWriter = runtime.hasHooks ? RecordFanOut([writer, runtime]) : writer
        pipeline = Pipeline(settings: settings, stages: stages, output: output, generatedIDs: runtime.generatedIDs)
        runtime.attach(to: pipeline)
        decoder = EventDecoder(roles: settings.roles, defaultPolicy: settings.queue.policy,
                               defaultDuration: settings.queue.duration)
    }

    func execute() -> Int32 {
        var loop = RunLoop(setup: self)
        return loop.run()
    }
}
