#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO
import ToastLua
import ToastPipeline

/// Everything a run needs, built before any input is read: scripts loaded, files opened,
/// the pipeline assembled. Any failure here is exit 1 (docs/events.md).
struct RunSetup {
    let options: CommandLineOptions
    let environment: CommandEnvironment
    /// The stages scripts can place, for loading them again (SIGHUP).
    let registry: StageRegistry
    let reports: ErrorReports
    /// The wall clock (monotonic microseconds) at stream time 0, for `--clock wall`.
    let startedAt: Microseconds
    /// What the scripts set up.
    let scripts: LoadedScripts
    let pipeline: Pipeline
    /// Where the records go: encoded on a thread of their own for a file on the stream clock.
    let writer: any RecordOutput
    /// `--explain`: what keeps only the toasts asked about.
    let explainFilter: ExplainFilter?
    let input: any ByteSource
    /// With `--state`, which file the input is (a regular file's): the state keeps it.
    let inputFile: FileIdentity?
    let deadLetter: FileDescriptorSink?
    let decoder: EventDecoder
    /// The scripts' `parse` function, when one was set.
    let parser: (any LineParser)?
    /// `--desktop`: the notifications on the desktop, and what the user does to them.
    let desktop: DesktopNotifications?
    /// systemd's notify socket, when the service manager gave one (`NOTIFY_SOCKET`).
    let notifier: ServiceNotifier?
    /// `--metrics`: the server, what it asks the pipeline's thread, and the checkpoints' times.
    let metricsServer: MetricsServer?
    let metrics: MetricsExchange?
    let checkpointDurations: DurationHistogram?
    let redisCommitDurations: DurationHistogram?
    /// `--output FILE`: the file, whose length a checkpoint counts.
    let outputFile: FileDescriptorSink?
    /// `--state FILE`: where checkpoints are saved, and the saved run this one goes on from
    /// (nil: afresh).
    let checkpoints: CheckpointThread?
    /// `--state FILE`: the lock that makes this run the state's one writer, held while the run
    /// (and so this value) lives.
    let stateLock: StateLock?
    let resumed: SavedRun?
    /// `--from`: the consumer group the run reads, whose commits keep its state.
    let consumerGroup: ConsumerGroupInput?
    /// Where reading begins: the start, or where a saved run stood.
    let startPosition: InputPosition
    /// The shape of the records this run writes, which its state keeps.
    let outputShape: OutputShape
    /// How the input's lines are read, as a state keeps it (`SavedRun.inputReading`).
    let inputReading: String?

    /// `recordsTo`: where the records go instead of the output (`toastscript diff`).
    init(options: CommandLineOptions, environment: CommandEnvironment, registry: StageRegistry,
         recordsTo recordObserver: (any RecordWriter)? = nil) throws {
        var options = options
        self.environment = environment
        self.registry = registry
        let reports = ErrorReports(writeError: environment.writeError, programName: environment.programName, verbose: options.verbose,
                                   quiet: options.quiet, priorities: environment.standardErrorIsJournal)
        self.reports = reports
        // Before Redis: a client that retries tells /health why the run is not healthy.
        let exchange = options.metrics == nil ? nil : MetricsExchange(clock: { CommandEnvironment.monotonicMicroseconds() })
        let commitDurations = options.metrics == nil || options.redis.from == nil ? nil : DurationHistogram()
        redisCommitDurations = commitDurations
        if let fixed = environment.variables[LogClock.fixedNowVariable] {
            // A value that is no time is said, not taken as the real clock in silence.
            options.lua.fixedNow = Int64(fixed)
            if options.lua.fixedNow == nil {
                reports.warning("warning: \(LogClock.fixedNowVariable) must be whole seconds since the epoch, not "
                                + "\(quoted(TerminalText.escaped(fixed))); the wall clock is read")
            }
        }
        if let problem = options.lua.takeFastPath(from: environment.variables[LuaOptions.fastPathVariable]) {
            reports.warning("warning: " + TerminalText.escaped(problem))
        }
        var saved: SavedRun?
        let stateFile: StateDatabase?
        do {
            // First of all: a second run on the same state changes nothing, not even with --state-reset.
            stateLock = try options.state.map { path throws(StateRefusal) in try StateLock(statePath: path) }
            if options.stateReset, let path = options.state { StateDatabase.remove(path) }
            stateFile = try options.state.map { path throws(StateRefusal) in
                try StateDatabase(path: path, killPoint: environment.variables["TOASTSCRIPT_TEST_KILL_AT"])
            }
        } catch {
            throw SetupError(message: error.message)
        }
        let redisRecords: RedisRecordSink?
        if let address = options.redis.server.flatMap(RedisAddress.init) {
            // The reading and committing threads of a consumer group each connect on their own.
            let connect = { () throws(RedisError) in
                try Self.connectRedis(address, options: options, environment: environment, reports: reports, health: exchange)
            }
            do {
                let client = try connect()
                redisRecords = try Self.recordStream(options: options, client: client)
                consumerGroup = try options.redis.from.map { _ throws(RedisError) in
                    try ConsumerGroupInput(options: options.redis, client: client, records: redisRecords,
                                           commitDurations: commitDurations, connect: connect)
                }
                for warning in consumerGroup?.leftovers ?? [] { reports.warning(warning) }
            } catch {
                throw SetupError(message: "\(error)")
            }
        } else {
            redisRecords = nil
            consumerGroup = nil
        }
        let statePlace: StatePlace = consumerGroup.map { .redis($0.stateDescription) } ?? .file(options.state ?? "")
        do {
            if let consumerGroup {
                saved = try consumerGroup.savedState(reset: options.stateReset)
            } else if !options.stateReset {
                saved = try stateFile?.read()
            }
        } catch let error as StateRefusal {
            throw SetupError(message: error.message)
        } catch let error as SavedRun.ReadError {
            throw SetupError(message: error.message(place: statePlace))
        } catch {
            throw SetupError(message: "\(error)")
        }
        // The scripts see the saved `store` when they run, as after a reload.
        scripts = try Self.loadScripts(options: options, environment: environment, registry: registry, reports: reports,
                                       generatedIDs: GeneratedIDs(), store: saved?.pipeline == nil ? nil : saved?.store,
                                       clockAtLoad: saved?.pipeline.flatMap { try? SavedObject($0.tree, path: "pipeline").integer("now") } ?? 0)
        let settings = scripts.settings

        let sink: any ByteSink
        let isTerminal: Bool
        do {
            if let redisRecords {
                outputFile = nil
                sink = redisRecords
                isTerminal = false
            } else if let path = options.output {
                let file = try FileDescriptorSink.appending(to: path, fsync: options.fsync, synced: options.state != nil)
                outputFile = file
                sink = file
                isTerminal = false
            } else {
                outputFile = nil
                sink = environment.standardOutput
                isTerminal = environment.standardOutputIsTerminal
            }
            deadLetter = try options.deadLetter.map { try FileDescriptorSink.appending(to: $0, fsync: false) }
            if let journal = options.journal {
                let resumed = saved?.pipeline == nil ? nil : saved
                input = try JournalSource(selection: journal, once: options.redis.once, resumingAfter: resumed?.inputCursor,
                                          startOffset: resumed?.input.offset ?? 0, maxMessageBytes: options.maxLineBytes,
                                          warning: { [reports] in reports.warning($0) })
            } else if let follow = options.follow {
                input = try FollowedFile(path: follow, resuming: saved.flatMap(Self.followedPlace), note: { [reports] in reports.note($0) })
            } else if let events = options.events, events != "-" {
                input = try FileDescriptorSource.opening(events)
            } else {
                input = environment.standardInput
            }
        } catch let error as FileOpenError {
            throw SetupError(message: error.message)
        }
        inputFile = stateFile == nil ? nil : (input as? FileDescriptorSource).flatMap(FileIdentity.init(of:))
        let noColor = !(environment.variables["NO_COLOR"] ?? "").isEmpty || environment.variables["TERM"] == "dumb"
        let useColor = options.color == .always || (options.color == .auto && isTerminal && !noColor)
        outputShape = OutputShape(format: options.format.rawValue, zone: options.lua.timeZone == .utc ? "utc" : "local",
                                  destination: options.redis.to.map { "redis:" + $0 } ?? options.output.map(OutputShape.absolute) ?? "stdout",
                                  color: useColor && options.format == .text)
        // A restart that would write its records otherwise stops before it writes anything.
        if let savedShape = saved?.output, let difference = savedShape.difference(from: outputShape) {
            throw SetupError(message: SavedRun.ReadError.refusal(difference, place: statePlace))
        }
        // ... and so does one that would read the rest of the input otherwise (a syslog read as
        // logfmt, a trace's lines no longer joined).
        inputReading = options.journal != nil ? nil : "--input \(options.input.rawValue)" + (options.multiline ? " --multiline" : "")
        if let savedReading = saved?.inputReading, let inputReading, savedReading != inputReading {
            throw SetupError(message: SavedRun.ReadError.refusal("its input was read with \(savedReading); this run asks for \(inputReading)",
                                                                 place: statePlace))
        }
        if options.input == .text && !options.clockGiven && !input.isRegularFile && !scripts.hasParseFunction {
            // Live text has no times of its own: on the stream clock every line would sit at 0.
            options.clock = .wall
            reports.note("note: reading text from a pipe or terminal, so times come from the wall clock "
                         + "(--clock stream keeps every line at time 0)")
        }
        if !options.clockGiven && options.clock == .stream && input.isLive {
            // A live log's events carry their own times; between them the clock follows the wall
            // clock, so timeouts and windows run out while the log is quiet.
            options.clock = .follow
            reports.note("note: reading live input, so the clock follows it: events at their own times, "
                         + "timers in real time while it is quiet (--clock stream waits for the next event)")
        }
        if options.desktop && !options.clockGiven && input.isRegularFile {
            // A recording on the stream clock would flash every notification for a moment.
            options.clock = .replay
            reports.note("note: --desktop on a file plays it at its own pace, as --clock replay does "
                         + "(add --clock replay --speed 10 to play it faster, --clock stream to show it all at once)")
        }
        if stateFile != nil && saved == nil, let outputFile, let length = outputFile.length, length > 0 {
            // A fresh state writes a fresh output: records of another run would stay before this one's.
            guard options.stateReset else {
                throw SetupError(message: "--output \(outputFile.name) holds \(length) bytes of another run, and "
                                 + "--state \(options.state ?? "") has no saved run to go on from; --state-reset empties it and starts afresh")
            }
            if let reason = outputFile.truncate(to: 0) {
                throw SetupError(message: "cannot empty \(outputFile.name): \(reason)")
            }
            reports.note("note: --state-reset emptied \(outputFile.name) (\(length) bytes of an earlier run)")
        }
        if stateFile != nil && saved == nil {
            // A new run says where its output began before it writes anything, so that a run
            // killed before its first checkpoint starts again from there, not after its own records.
            var begun = SavedRun(writtenBy: Toastscript.versionText(environment), stages: settings.stages,
                                 screensBy: settings.screens?.by, output: outputShape, input: InputPosition(), inputSeekable: false,
                                 outputLength: outputFile?.length, ended: false, store: .table([]), pipeline: nil)
            begun.inputReading = inputReading
            if let reason = stateFile?.write(begun, rows: nil) {
                throw SetupError(message: reason)
            }
        }
        do {
            checkpointDurations = options.metrics == nil ? nil : DurationHistogram()
            checkpoints = try stateFile.map { [checkpointDurations] file throws(StateRefusal) in
                try CheckpointThread(file: file, outputPath: options.output, durations: checkpointDurations)
            }
        } catch {
            throw SetupError(message: error.message)
        }
        self.options = options

        // Dates in the zone of --tz; the time of day on the wall clock.
        let time = TimeDisplay(zone: options.lua.timeZone,
                               timeOfDayOrigin: options.clock == .wall ? environment.timeOfDay() : nil)
        let encoder: any RecordEncoder
        switch options.format {
        case .json: encoder = JSONRecordEncoder()
        case .text where !options.explain.isEmpty:
            encoder = ExplainStoryEncoder(explaining: options.explain, time: time)
        case .text:
            encoder = TextRecordEncoder(useColor: useColor, verbose: options.verbose, time: time)
        case .speech: encoder = SpeechRecordEncoder()
        case .html: encoder = HTMLTimelineEncoder(title: Self.pageTitle(program: environment.programName, scripts: options.scripts,
                                                                              events: options.events), time: time, roles: settings.roles)
        }
        let sinkWriter = SinkRecordWriter(encoder: encoder, sink: sink)
        // As with reading ahead (RunLoop): where nothing waits for a record to appear, and a
        // followed file, whose run loop flushes before each wait.
        // Not with Redis: a commit takes the records of its batch as it is made.
        writer = (input.isRegularFile && options.clock == .stream || input is FollowedFile) && options.redis.server == nil ? WriteBehind(sinkWriter) : sinkWriter
        explainFilter = options.explain.isEmpty ? nil : ExplainFilter(ids: Set(options.explain), writingTo: writer)
        let tracer: (any TraceWriter)? = explainFilter ?? (options.trace || options.format == .html ? writer : nil)

        if options.desktop {
            do {
                let bus = try NotificationBus(address: environment.variables["DBUS_SESSION_BUS_ADDRESS"],
                                              runtimeDirectory: environment.variables["XDG_RUNTIME_DIR"])
                desktop = DesktopNotifications(bus: bus) { [reports] in reports.warning($0) }
            } catch let error as NotificationBus.Unavailable {
                throw SetupError(message: error.message)
            }
        } else {
            desktop = nil
        }
        notifier = ServiceNotifier(variables: environment.variables)
        if let address = options.metrics {
            let server: MetricsServer
            do {
                server = try MetricsServer(address: address)
            } catch let error as FileOpenError {
                throw SetupError(message: error.message)
            }
            guard let exchange, server.start(answer: { path in
                path == .metrics ? MetricsServer.Response(status: 200, body: exchange.metrics()) : exchange.health()
            }) else { throw SetupError(message: "--metrics \(address): the system gave no thread for the server") }
            reports.note("note: --metrics serves \(server.boundName) and /health")
            metricsServer = server
            metrics = exchange
        } else {
            metricsServer = nil
            metrics = nil
        }
        // The output first, then the desktop; the scripts' hooks run after both.
        let writers: [any RecordWriter] = [recordObserver ?? explainFilter ?? writer] + (desktop.map { [$0] } ?? [])
        let output: any RecordWriter = writers.count == 1 ? writers[0] : RecordFanOut(writers)
        do {
            pipeline = try Pipeline(scripts: scripts, registry: registry, output: output, tracer: tracer,
                                    restoring: saved?.pipeline != nil)
        } catch let error as ConfigError {
            throw SetupError(message: error.message)
        }
        pipeline.countsRoles = options.metrics != nil
        if let saved {
            do {
                startPosition = try RunResumption.resume(saved, place: statePlace, pipeline: pipeline, settings: settings, input: input,
                                                         inputName: options.events.map { $0 == "-" ? "standard input" : "--events \($0)" }
                                                             ?? "standard input",
                                                         output: outputFile)
            } catch {
                throw SetupError(message: error.message)
            }
        } else {
            startPosition = InputPosition()
        }
        resumed = saved?.pipeline == nil ? nil : saved?.restored
        // A state file and a consumer's hash alike: the next checkpoint writes what changes from
        // here, and deletes the restored rows of what is then gone.
        if let saved, saved.pipeline != nil { pipeline.rowsWereRestored(saved.pipelineRowIDs) }
        // On the wall clock, a restored run's clock goes on from where it stopped.
        startedAt = environment.wallClock() - (options.clock == .wall ? pipeline.now : 0)
        pipeline.timeDisplay = TimeDisplay(zone: options.lua.timeZone)
        parser = scripts.parser(in: pipeline.entryContext)
        var decoder = EventDecoder(roles: settings.roles, defaultPolicy: settings.queue.policy,
                                   defaultDuration: settings.queue.duration)
        decoder.screenField = settings.screens?.by
        decoder.readsLevels = options.levels == .on
        if options.journal != nil { decoder.takesAsMeant(JournalSource.fieldNames) }
        self.decoder = decoder
    }

    /// `--redis`: the connection, made at once (a Redis that is not there stops the run before
    /// it starts); made again during the run when it fails, for up to `--redis-timeout`.
    private static func connectRedis(_ address: RedisAddress, options: CommandLineOptions, environment: CommandEnvironment,
                                     reports: ErrorReports, health: MetricsExchange?) throws(RedisError) -> RedisClient {
        let client = try RedisClient(address: address, replyTimeout: .seconds(10), retryFor: options.redis.timeout,
                                     clock: environment.wallClock, note: { reports.note($0) }, shouldStop: { Signals.received != 0 })
        if let health {
            client.trouble = { health.setTrouble($0) }
        }
        return client
    }

    /// `--to`: the stream the records go to, checked to be one (or not there yet).
    private static func recordStream(options: CommandLineOptions, client: RedisClient) throws(RedisError) -> RedisRecordSink? {
        guard let stream = options.redis.to else { return nil }
        let type = try client.perform { connection, _ throws(RedisError) in try connection.command(["TYPE", stream]) }
        guard case .status(let name) = type, name == "stream" || name == "none" else {
            let name = if case .status(let name) = type { name } else { "\(type)" }
            throw RedisError(server: client.address.description, problem: "--to \(stream) is a \(name), not a stream")
        }
        return RedisRecordSink(stream: stream, maxLength: options.redis.toMaxLength, appendingThrough: options.redis.from == nil ? client : nil)
    }

    /// Runs the script files, then the `-e` chunks, in a new Lua state (at start, and again
    /// for a reload, with the `store` the old state kept); `generatedIDs` is the `e<N>` counter
    /// they share with the run.
    static func loadScripts(options: CommandLineOptions, environment: CommandEnvironment, registry: StageRegistry,
                            reports: ErrorReports, generatedIDs: GeneratedIDs,
                            store: StoredValue? = nil, clockAtLoad: Microseconds = 0) throws -> LoadedScripts {
        let runtime: LuaRuntime
        do {
            // A log line stays one line, whatever a script logs (a toast's message with a newline).
            runtime = try LuaRuntime(options: options.lua, registry: registry, generatedIDs: generatedIDs,
                                     reportError: { reports.scriptFailed($0) },
                                     writeLog: { [environment] in
                                         environment.writeError(TerminalText.escaped($0, keepingTabs: true), priority: .notice)
                                     },
                                     warn: { reports.warning(TerminalText.escaped($0)) })
        } catch {
            throw SetupError(message: "\(error)")
        }
        if let store { runtime.restoreStore(store) }
        runtime.clockAtLoad = clockAtLoad
        for script in options.scripts {
            do {
                try runtime.load(scriptAt: script)
            } catch {
                var message = "\(error)"
                if Self.looksLikeEvents(script) {
                    message += "\n\(environment.programName): hint: \(script) looks like events, not a Lua script: read it with --events \(script) or < \(script)"
                }
                throw SetupError(message: message)
            }
        }
        for (index, chunk) in options.inlineChunks.enumerated() {
            do {
                try runtime.load(source: chunk, name: CommandLineOptions.inlineChunkName(index))
            } catch {
                throw SetupError(message: "\(error)")
            }
        }
        return runtime.loaded
    }

    /// Whether a file given as a script holds events instead: named `.json`/`.jsonl`, or opening
    /// with a JSON object (the `jq file` habit).
    private static func looksLikeEvents(_ path: String) -> Bool {
        if path.hasSuffix(".json") || path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") { return true }
        guard let file = fopen(path, "r") else { return false }
        defer { fclose(file) }
        var first: Int32 = fgetc(file)
        while first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { first = fgetc(file) }
        return first == Int32(UInt8(ascii: "{"))
    }

    /// The HTML page's title: the scripts and the events it shows.
    /// Where a saved run stood in the file `--follow` reads: the file, and the offset of its
    /// next line there; nil to read FILE from its start (no run saved yet).
    private static func followedPlace(_ saved: SavedRun) -> FollowedFile.SavedPlace? {
        guard saved.pipeline != nil, saved.inputSeekable, let file = saved.inputFile else { return nil }
        return FollowedFile.SavedPlace(file: file, offset: saved.input.offset, length: saved.inputLength)
    }

    private static func pageTitle(program: String, scripts: [String], events: String?) -> String {
        let names = (scripts + [events ?? "stdin"]).map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        return "\(program): " + names.joined(separator: " · ")
    }

    func execute() -> RunEnd {
        var loop = RunLoop(setup: self)
        return loop.run()
    }
}
