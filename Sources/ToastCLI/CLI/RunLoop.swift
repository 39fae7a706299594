#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO
import ToastLua
import ToastPipeline

/// Streams the input through the pipeline: reads lines, rejects bad ones with a message
/// (and to the dead-letter file), hands events to the pipeline on the chosen clock, and
/// ends the run with the right records and exit status.
struct RunLoop {
    let setup: RunSetup
    /// The scripts the run goes on with: those loaded at the start, or by the last reload.
    private var scripts: LoadedScripts
    var decoding: LineDecoding
    private let reader: LineReader
    private(set) var linesRead = 0
    private var blankLines = 0
    private var skippedLines = 0
    /// `--clock replay`: the stream time and the wall time the pacing starts from (the first event).
    private var replayOrigin: (stream: Microseconds, wall: Microseconds)?
    /// `--clock replay`: the stream time cut out of idle stretches longer than `--max-gap`.
    private var skippedIdle: Microseconds = 0
    /// `--clock follow`: the stream time the last event left the clock at, and when that was on
    /// the wall clock; while the input is quiet, the clock runs on from there in real time.
    var followOrigin: (stream: Microseconds, wall: Microseconds)?
    var stopReason: StopReason?
    /// `--state`: when the last checkpoint was (wall clock), whether anything happened since,
    /// and where the input stood after the last batch read ahead.
    var lastCheckpoint: Microseconds = 0
    /// The service manager's notices (`NOTIFY_SOCKET`): when the next `STATUS=` and
    /// `WATCHDOG=1` are due on the wall clock, and the events counted at the last status.
    var statusDue: Microseconds = 0
    var watchdogDue: Microseconds = 0
    var eventsAtStatus = 0
    var changedSinceCheckpoint = false
    /// The checkpoints taken to the state file so far: rows of the next are handed to its
    /// thread ahead of its records only once that many are queued there (`CheckpointThread`).
    private var fileCheckpointsTaken = 0
    private var readAheadEnd: InputPosition?

    enum StopReason: Equatable {
        /// A Redis failure: for good, or a server that lost writes.
        static func redis(_ error: RedisError) -> Self {
            error.serverLostWrites ? .redisLostWrites("\(error)") : .redisFailed("\(error)")
        }

        case signal(Int32)
        case stateFailed(String)
        case strict
        case outputClosed
        case outputFailed(String)
        case inputFailed(String)
        case binaryInput
        /// Redis failed (and did not come back within `--redis-timeout`).
        case redisFailed(String)
        /// Redis came back without writes it had confirmed: the run in hand is dropped, and
        /// the command starts again from the server's state.
        case redisLostWrites(String)
    }

    init(setup: RunSetup) {
        self.setup = setup
        scripts = setup.scripts
        decoding = LineDecoding(decoder: setup.decoder, input: setup.options.input, deadLetter: setup.deadLetter,
                                parser: setup.parser)
        decoding.resume(from: setup.startPosition)
        decoding.logClock = LogClock(zone: setup.options.lua.timeZone,
                                     wallNow: LogClock.wallNow(fixedAt: setup.options.lua.fixedNow))
        // A journal entry's line is made here, its message cut at --max-line-bytes: room for
        // its escapes and other fields.
        let lineLimit = setup.input is JournalSource ? setup.options.maxLineBytes * 6 + 65_536 : setup.options.maxLineBytes
        reader = LineReader(source: setup.input, maxLineBytes: lineLimit,
                            skippedBytes: decoding.skippedBytes,
                            wakeDescriptors: [Signals.wakeDescriptor, Signals.reloadDescriptor, setup.desktop?.descriptor ?? -1],
                            rejectsBinary: true, startingAt: (setup.startPosition.offset, setup.startPosition.line))
        if setup.options.multiline {
            reader.joinContinuations(of: setup.options.input, clock: decoding.logClock)
            decoding.joinsLines = true
        }
    }

    var pipeline: Pipeline { setup.pipeline }
    private var isWallClock: Bool { setup.options.clock == .wall }
    var isFollowing: Bool { setup.options.clock == .follow }

    /// `--clock follow`: the stream time now, as the wall clock carries it on from the last event.
    var followedNow: Microseconds {
        guard let origin = followOrigin else { return pipeline.now }
        return max(pipeline.now, origin.stream + (setup.environment.wallClock() - origin.wall))
    }

    /// Microseconds since the run started, on the wall clock.
    private var wallNow: Microseconds { setup.environment.wallClock() - setup.startedAt }

    /// Whether the run keeps its state (`--state`, or in Redis with `--from`): a signal then
    /// saves what it holds instead of ending its toasts.
    private var keepsState: Bool { setup.checkpoints != nil || setup.consumerGroup != nil }

    mutating func run() -> RunEnd {
        if keepsState { begin() }
        if stopReason == nil { readInput() }
        if case .redisLostWrites = stopReason {
            // Dropped as a crash would drop it: no checkpoint, no ending, no summary.
            setup.writer.finish()
            setup.consumerGroup?.finish()
            setup.deadLetter?.flush()
        } else {
            finish()
        }
        if case .redisLostWrites(let reason) = stopReason {
            // What the server lost is handled again by the next start, from the server's state.
            setup.reports.warning("warning: \(reason); going on from its state and pending entries there, as a restart would")
            return .startsAgain
        }
        return .exited(exitStatus())
    }

    // MARK: The state (--state)

    /// A run going on from a saved one runs the scripts' `on("restore")` hooks and says so;
    /// every run then saves its state before the first line, so that the file is whole from the
    /// start.
    private mutating func begin() {
        if let resumed = setup.resumed {
            pipeline.stateRestored(timersWhileLoading: scripts.timersWhileLoading)
            let timers = resumed.pipeline.flatMap { try? SavedObject($0.tree, path: "pipeline").integer("script_timers") } ?? 0
            var note: String
            if let group = setup.consumerGroup {
                note = "note: went on from the state at \(group.stateDescription)"
            } else {
                note = "note: went on from --state \(setup.options.state ?? "")"
                if setup.input is JournalSource {
                    note += resumed.inputCursor == nil ? " (the state has no journal cursor: the journal is taken as new)"
                        : " (after the journal entry it took last)"
                } else {
                    note += resumed.inputSeekable && (setup.input.isRegularFile || setup.input is FollowedFile)
                        ? " (input line \(resumed.input.line))" : " (the input is taken as new)"
                }
            }
            if timers > 0 {
                note += "; \(timers) Lua timer\(timers == 1 ? "" : "s") (after) pending then \(timers == 1 ? "was" : "were") not kept"
            }
            setup.reports.note(note)
        }
        checkpoint(ended: false)
    }

    /// Where the input stands after the last line the pipeline took.
    var inputPosition: InputPosition {
        readAheadEnd ?? decoding.position(after: reader)
    }

    /// Takes a checkpoint: the whole run as it stands, saved once the records so far are written
    /// and synced (`CheckpointThread`), so that the output's length it counts holds them all. A
    /// checkpoint that could not be saved stops the run (exit 1), the last saved state kept.
    /// `last`: the run's last checkpoint (its end, or a signal's).
    mutating func checkpoint(ended: Bool, last: Bool = false) {
        guard keepsState else { return }
        // Records that could not be written are not counted by a state.
        checkOutput()
        guard stopReason == nil || stopReason.map(Self.isSignal) == true else { return }
        if let reason = setup.checkpoints?.failure {
            stopReason = .stateFailed(reason)
            return
        }
        var position = inputPosition
        var inputFile = setup.inputFile
        var inputLength: Int64?
        if let followed = setup.input as? FollowedFile, let place = followed.location(of: position.offset) {
            // The file the next line is in, and where in it (a rotation moves from file to file).
            position.offset = place.offset
            inputFile = place.file
            inputLength = place.length
        }
        var state = SavedRun(writtenBy: Toastscript.versionText(setup.environment), stages: pipeline.stageNames,
                             screensBy: scripts.settings.screens?.by, output: setup.outputShape, input: position,
                             inputSeekable: setup.input.isRegularFile || inputFile != nil && setup.input is FollowedFile,
                             inputFile: inputFile, outputLength: nil, ended: ended,
                             store: scripts.keptStore(during: "checkpoint"), pipeline: nil)
        // The journal's place is the cursor of the last entry taken.
        state.inputCursor = (setup.input as? JournalSource)?.cursor(at: position.offset)
        state.inputLength = inputLength
        state.inputReading = setup.inputReading
        do {
            if let group = setup.consumerGroup {
                commit(state, rows: try pipeline.savedRows(), to: group)
            } else if let checkpoints = setup.checkpoints {
                // The rows that changed; debug builds also hand over the screens called unchanged, to be checked.
                var verifying = false
                assert({ verifying = true; return true }())
                let takenBefore = fileCheckpointsTaken
                fileCheckpointsTaken += 1
                let rows = try pipeline.savedRows(verifying: verifying) { checkpoints.handAhead($0, checkpointsTakenBefore: takenBefore) }
                let run = state
                setup.writer.commit { checkpoints.submit(.init(state: run, rows: rows, outputLength: checkpoints.outputLength, isLast: last)) }
            }
        } catch {
            stopReason = .stateFailed("\(error)")
            return
        }
        lastCheckpoint = setup.environment.wallClock()
        changedSinceCheckpoint = false
    }

    /// When the next checkpoint is due on the wall clock: `--checkpoint` after the last one,
    /// once something happened since; nil when none is.
    var checkpointDue: Microseconds? {
        guard keepsState, setup.options.checkpointInterval > 0, changedSinceCheckpoint else { return nil }
        return lastCheckpoint + setup.options.checkpointInterval
    }

    mutating func checkpointIfDue() {
        guard let due = checkpointDue, setup.environment.wallClock() >= due else { return }
        checkpoint(ended: false)
    }

    private static func isSignal(_ reason: StopReason) -> Bool {
        if case .signal = reason { return true }
        return false
    }

    // MARK: Reading

    private mutating func readInput() {
        // The first input can be read now (after a restore): the service is ready.
        tellReady()
        if let group = setup.consumerGroup { return read(from: group) }
        // Not with a parse function: it runs in the one Lua state, which the rules use too.
        let followed = setup.input is FollowedFile
        if (setup.input.isRegularFile || followed) && !isWallClock && !setup.options.strict && setup.parser == nil {
            let readAhead = ReadAhead(reader: reader, decoding: decoding)
            if readAhead.start() {
                defer { readAhead.stop() }
                return followed ? follow(readAhead) : read(from: readAhead)
            }
        }
        while stopReason == nil {
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            answerRequests()
            let item = reader.next(waitLimit: waitLimit()) { setup.writer.flush() }
            switch item {
            case .line(let bytes, let number):
                let line = decoding.decode(bytes, number: number)
                for warning in decoding.takeNotes() { setup.reports.warning(warning) }
                handle(line)
            case .tooLong(let number, let length):
                handle(decoding.tooLong(number: number, length: length, limit: reader.maxLineBytes))
            case .timedOut:
                // A timer is due: on the wall clock, or on the followed stream clock (or a checkpoint).
                if isWallClock || isFollowing {
                    pipeline.advance(to: isFollowing ? followedNow : wallNow)
                    changedSinceCheckpoint = true
                }
                deliverDesktopTaps()
            case .interrupted:
                deliverDesktopTaps()
                continue
            case .looksBinary:
                stopReason = .binaryInput
            case .failed(let reason):
                stopReason = .inputFailed(reason)
            case .end:
                return
            }
            checkOutput()
            if stopReason == nil { checkpointIfDue() }
        }
    }

    /// How long a read may wait: until the next timer is due on the wall or the followed clock,
    /// or the next checkpoint (nil or -1: no limit).
    private func waitLimit() -> Int32? {
        var timers = timerWaitLimit()
        if let due = noticeDue {
            let notice = Int32(clamping: max(0, (due - setup.environment.wallClock() + 999) / 1_000))
            timers = timers.map { $0 < 0 ? notice : min($0, notice) } ?? notice
        }
        guard let due = checkpointDue else { return timers }
        let checkpoint = Int32(clamping: max(0, (due - setup.environment.wallClock() + 999) / 1_000))
        guard let timers, timers >= 0 else { return checkpoint }
        return min(timers, checkpoint)
    }

    func timerWaitLimit() -> Int32? {
        guard isWallClock || (isFollowing && followOrigin != nil) else { return nil }
        guard let due = pipeline.nextTimerDue else { return -1 }
        let milliseconds = (due - (isFollowing ? followedNow : wallNow) + 999) / 1_000
        return Int32(clamping: max(0, milliseconds))
    }

    /// Takes lines from a `ReadAhead` until the input ends or the run must stop. With `--state`
    /// a signal stops the run at the end of a batch, where the input's position is known.
    private mutating func read(from readAhead: ReadAhead) {
        while stopReason == nil, let (batch, end) = readAhead.next() {
            deliverDesktopTaps()
            guard handleItems(of: batch) else { return }
            readAheadEnd = end
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            checkpointIfDue()
        }
    }

    /// A batch's items, in order, each leaving the batch as it is handled; false when the run
    /// must stop (without --state a signal stops it within the batch: no position is saved).
    private mutating func handleItems(of batch: HandOverBatch<ReadAhead.Item>) -> Bool {
        while let item = batch.popFirst() {
            if Signals.received != 0 && !keepsState {
                stopReason = .signal(Signals.received)
                return false
            }
            answerRequests()
            switch consume item {
            case .line(let line, _): handle(line)
            case .note(let text): setup.reports.warning(text)
            case .looksBinary: stopReason = .binaryInput
            case .failed(let reason): stopReason = .inputFailed(reason)
            }
            checkOutput()
            if stopReason != nil { return false }
        }
        return true
    }

    /// Takes lines of a followed file from a `ReadAhead` (which reads and decodes them on its
    /// own thread) until a signal or a failure stops the run: between batches, and while none
    /// comes, the follow clock's timers fire, checkpoints are taken, requests answered and the
    /// records flushed, as the run loop does for live input it reads itself. The wait for a
    /// batch is cut at a tenth of a second, so a signal is seen within that.
    private mutating func follow(_ readAhead: ReadAhead) {
        while stopReason == nil {
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            answerRequests()
            var taken = readAhead.next(waitingAtMost: 0)
            if case .timedOut = taken {
                // Nothing ready: what was written is flushed before the wait.
                setup.writer.flush()
                let limit = waitLimit().map { $0 < 0 ? 100 : min($0, 100) } ?? 100
                taken = readAhead.next(waitingAtMost: Int64(limit) * 1_000)
            }
            switch taken {
            case .item((let batch, let end)):
                deliverDesktopTaps()
                guard handleItems(of: batch) else { return }
                readAheadEnd = end
            case .timedOut:
                if isFollowing {
                    pipeline.advance(to: followedNow)
                    changedSinceCheckpoint = true
                }
                deliverDesktopTaps()
                checkOutput()
            case .ended:
                return
            }
            if stopReason == nil { checkpointIfDue() }
        }
    }

    mutating func handle(_ line: consuming DecodedLine) {
        linesRead += 1
        changedSinceCheckpoint = true
        process(consume line)
    }

    /// One decoded line, or one of the events a `parse` function made of a line.
    private mutating func process(_ line: consuming DecodedLine, partOfLine: Bool = false) {
        switch consume line {
        case .blank:
            blankLines += 1
        case .skipped:
            skippedLines += 1
        case .several(let lines):
            var rejectedBefore = false
            for part in lines where stopReason == nil {
                process(part, partOfLine: rejectedBefore)
                if case .rejected = part { rejectedBefore = true }
            }
        case .show(let show):
            var event = (consume show).makeEvent()
            deliver(&event)
        case .event(var event):
            deliver(&event)
        case .rejected(let rejection):
            setup.reports.rejected(rejection, sameLineAsBefore: partOfLine)
            if let hint = rejection.hint { setup.reports.warning(hint) }
            if setup.options.strict { stopReason = .strict }
        }
    }

    /// Hands one event to the pipeline (taking its toast: see `Pipeline.handle(taking:)`).
    private mutating func deliver(_ event: inout Event) {
        if isWallClock { event.at = wallNow }
        // Following a live stream, an event without a time of its own happens when it is read
        // (the clock carried on from the last event), not at the last event's time.
        if isFollowing && event.at == nil { event.at = followedNow }
        if setup.options.clock == .replay { pace(to: max(event.at ?? pipeline.now, pipeline.now)) }
        let errorsBefore = setup.reports.failedCalls
        pipeline.handle(taking: &event)
        if isFollowing { followOrigin = (pipeline.now, setup.environment.wallClock()) }
        if setup.options.strict && setup.reports.failedCalls > errorsBefore { stopReason = .strict }
    }

    // MARK: Reloading

    /// SIGHUP: every script is loaded again in a new Lua state, with the old state's `store`,
    /// and the run goes on with it (`Pipeline.reload`); what the stages and the host hold
    /// stays. Scripts that do not load leave the old ones running. Lines already read ahead on
    /// the reading thread (a regular file on the stream clock) were checked against the old
    /// roles.
    mutating func reloadScripts() {
        setup.notifier?.send("RELOADING=1\nMONOTONIC_USEC=\(CommandEnvironment.monotonicMicroseconds())")
        defer { setup.notifier?.send("READY=1") }
        let scripts: LoadedScripts
        let orderChanged: Bool
        let droppedTimers = self.scripts.clock.pendingTimers
        do {
            scripts = try RunSetup.loadScripts(options: setup.options, environment: setup.environment, registry: setup.registry,
                                               reports: setup.reports, generatedIDs: pipeline.generatedIDs,
                                               store: self.scripts.keptStore(), clockAtLoad: pipeline.now)
            orderChanged = try pipeline.reload(scripts: scripts, registry: setup.registry)
        } catch {
            setup.reports.reloadFailed(error)
            return
        }
        self.scripts = scripts
        let settings = scripts.settings
        decoding.decoder.roles = settings.roles
        decoding.decoder.defaultPolicy = settings.queue.policy
        decoding.decoder.defaultDuration = settings.queue.duration
        decoding.parser = scripts.parser(in: pipeline.entryContext)
        if orderChanged {
            setup.reports.warning("reload: the scripts ask for another order of stages (" + settings.stages.joined(separator: ", ")
                                  + "); it takes effect when the run starts again")
        }
        setup.reports.note("note: scripts reloaded (SIGHUP)" + (droppedTimers == 0 ? "" : "; \(droppedTimers) Lua timer"
            + (droppedTimers == 1 ? " (after) of the old scripts was pending and is" : "s (after) of the old scripts were pending and are")
            + " not kept (set them again in on(\"reload\"))"))
        pipeline.scriptsReloaded()
        setup.writer.flush()
    }

    // MARK: The desktop and real-time replay

    /// Hands the pipeline what the user closed or clicked on the desktop, as taps now.
    private mutating func deliverDesktopTaps() {
        guard let desktop = setup.desktop else { return }
        for toast in desktop.userClosedToasts() {
            let at: Microseconds? = isWallClock ? wallNow : replayTime
            pipeline.handle(Event(.closedByUser(target: toast), at: at))
        }
        setup.writer.flush()
    }

    /// `--clock replay`: the stream time that corresponds to now on the wall clock.
    private var replayTime: Microseconds? {
        guard let origin = replayOrigin else { return nil }
        let elapsed = Double(setup.environment.wallClock() - origin.wall) * (setup.options.speed ?? 1)
        return max(pipeline.now, origin.stream + Microseconds(elapsed))
    }

    /// `--clock replay`: waits until stream time `time` is due on the wall clock, firing the
    /// timers due before it on time, so the run plays at the stream's own pace (× `--speed`).
    private mutating func pace(to time: Microseconds) {
        guard let origin = replayOrigin else {
            replayOrigin = (time, setup.environment.wallClock())
            return
        }
        while let due = pipeline.nextTimerDue, due < time, Signals.received == 0 {
            skipIdleTime(until: due)
            wait(until: due, from: replayOrigin ?? origin)
            pipeline.advance(to: due)
        }
        skipIdleTime(until: time)
        wait(until: time, from: replayOrigin ?? origin)
    }

    /// `--clock replay`: a stretch up to stream time `time` in which nothing is visible,
    /// waiting, delayed or held (and no timer falls: the caller stops at each one) is waited
    /// out for `--max-gap` of real time at most, by moving the pacing's origin; the records keep
    /// the stream's times.
    private mutating func skipIdleTime(until time: Microseconds) {
        guard setup.options.maxGap > 0, let origin = replayOrigin, pipeline.holdsNoToast else { return }
        let speed = setup.options.speed ?? 1
        let dueOnWall = origin.wall + Microseconds(Double(time - origin.stream) / speed)
        let wait = dueOnWall - setup.environment.wallClock()
        guard wait > setup.options.maxGap else { return }
        let cut = wait - setup.options.maxGap
        replayOrigin = (origin.stream, origin.wall - cut)
        skippedIdle += Microseconds(Double(cut) * speed)
    }

    /// Sleeps until stream time `time` on the replay's wall clock, flushing first and handing
    /// over the desktop's taps as they come; a signal ends the wait.
    private mutating func wait(until time: Microseconds, from origin: (stream: Microseconds, wall: Microseconds)) {
        setup.writer.flush()
        let speed = setup.options.speed ?? 1
        while Signals.received == 0 {
            let target = origin.wall + Microseconds(Double(time - origin.stream) / speed)
            let left = target - setup.environment.wallClock()
            if left <= 0 { return }
            sleep(microseconds: left)
            deliverDesktopTaps()
        }
    }

    mutating func checkOutput() {
        switch setup.writer.failure {
        case nil: break
        case .closedPipe?: stopReason = .outputClosed
        case .writeFailed(let reason)?: stopReason = .outputFailed(reason)
        }
    }

    // MARK: The end

    private mutating func finish() {
        if let reason = stopReason, Self.isSignal(reason) { setup.notifier?.send("STOPPING=1") }
        // The input ended (not a signal, not --strict): the scripts' on("end") hooks run first,
        // unless a saved run that had ended goes on with no new line.
        if stopReason == nil && !(setup.resumed?.ended == true && linesRead == 0) { pipeline.endOfInput() }
        let drain = setup.options.drain && stopReason == nil
        if drain && isWallClock {
            // Timers fire in real time, so a live run shows its last toasts for their duration.
            while let due = pipeline.nextTimerDue, Signals.received == 0 {
                let wait = due - wallNow
                if wait > 0 {
                    sleep(microseconds: wait)
                    deliverDesktopTaps()
                    if wallNow < due { continue }   // woken early: by the desktop, or a signal
                }
                if Signals.received != 0 { break }
                pipeline.advance(to: max(due, wallNow))
                setup.writer.flush()
            }
            if Signals.received != 0 && stopReason == nil { stopReason = .signal(Signals.received) }
        }
        if drain && setup.options.clock == .replay, let origin = replayOrigin {
            // The drain plays at the same pace, so the last toasts stay for their duration.
            while let due = pipeline.nextTimerDue, Signals.received == 0 {
                skipIdleTime(until: due)
                wait(until: due, from: replayOrigin ?? origin)
                if Signals.received != 0 { break }
                pipeline.advance(to: due)
            }
            if Signals.received != 0 && stopReason == nil { stopReason = .signal(Signals.received) }
        }
        // With --state, a signal saves the run as it stands: its toasts go on when it starts again.
        let savesWhatItHolds = keepsState && stopReason.map(Self.isSignal) == true
        if !savesWhatItHolds {
            if isWallClock || isFollowing, case .signal? = stopReason {
                // The ending happens when the signal came, not at the last event (docs/events.md).
                pipeline.advance(to: isFollowing ? followedNow : wallNow)
            }
            pipeline.finish(drain: drain && stopReason == nil) { Signals.received != 0 }
            // A signal during the drain ends it (with --state, the last checkpoint stays the one
            // before the drain, which a restart drains again).
            if Signals.received != 0 && stopReason == nil { stopReason = .signal(Signals.received) }
            // The very end: at the end of input, or on a signal (not a --strict stop).
            if stopReason == nil || stopReason.map(Self.isSignal) == true {
                pipeline.runFinished(rejectedLines: setup.reports.rejectedLines)
            }
        }
        if stopReason == nil || savesWhatItHolds { checkpoint(ended: stopReason == nil, last: true) }
        setup.writer.finish()
        if let group = setup.consumerGroup {
            // The last commits are made before the run ends.
            group.finish()
            if let failure = group.commitFailure, stopReason == nil || savesWhatItHolds { stopReason = .redis(failure) }
        }
        if let checkpoints = setup.checkpoints {
            // The last checkpoints are on disk before the run ends.
            checkpoints.finish()
            if let reason = checkpoints.failure, stopReason == nil || savesWhatItHolds { stopReason = .stateFailed(reason) }
        }
        setup.deadLetter?.flush()
        for id in setup.explainFilter?.unseen(of: setup.options.explain) ?? [] {
            setup.environment.writeError("\(setup.environment.programName): --explain \(TerminalText.escaped(id)): no toast with this id came through")
        }
        checkOutput()
        let idleScopes = IdleScopes(statistics: pipeline.statistics, settings: pipeline.settings)
        if setup.options.stats { writeStatistics(idleScopes: idleScopes, heading: "stats") }
        if skippedIdle > 0 {
            setup.reports.note("note: the replay skipped \(SpanText.describe(skippedIdle)) of idle time "
                               + "(nothing on screen, waiting or held for longer than --max-gap \(StreamTime.format(setup.options.maxGap)) s)")
        }
        for warning in idleScopes.warnings { setup.reports.warning(warning) }
        let repaired = decoding.repairedLines.count
        if repaired > 0 {
            setup.reports.warning("warning: \(repaired) text line\(repaired == 1 ? " was" : "s were") not valid UTF-8; "
                                  + "\(repaired == 1 ? "its" : "their") bad bytes are shown as U+FFFD (\u{FFFD})")
        }
        let notSyslog = decoding.notSyslogLines.count
        if notSyslog > 0 {
            setup.reports.warning("\(notSyslog) line\(notSyslog == 1 ? " was" : "s were") not syslog and \(notSyslog == 1 ? "was" : "were") read as text")
        }
        if stopReason == .strict {
            setup.reports.warning("stopped by --strict at the first "
                                  + (setup.reports.rejectedLines > 0 ? "rejected line" : "failed script call")
                                  + "; the rest of the input was not read")
        }
        setup.reports.finish(deadLetter: setup.options.deadLetter, stats: setup.options.stats)
        if setup.environment.standardErrorIsTerminal && !setup.options.quiet {
            setup.environment.writeError(RunSummary(programName: setup.environment.programName,
                                                    statistics: pipeline.statistics).line, priority: .notice)
        }
    }

    /// `--stats` on stderr: at the end, or so far when SIGUSR1 asks.
    private func writeStatistics(idleScopes: IdleScopes, heading: String) {
        let report = StatisticsReport(programName: setup.environment.programName, heading: heading,
                                      statistics: pipeline.statistics, idleScopes: idleScopes, linesRead: linesRead,
                                      blankLines: blankLines,
                                      skippedLines: setup.parser == nil ? nil : skippedLines,
                                      rejectedLines: setup.reports.rejectedLines,
                                      scriptErrors: setup.reports.scriptErrorsBySource,
                                      linesWritten: setup.writer.linesWritten,
                                      elapsed: wallNow)
        for line in report.lines { setup.environment.writeError(line, priority: .notice) }
    }

    /// What SIGHUP and SIGUSR1 asked for: the stats so far (the records so far written out
    /// first, so that the count of lines written is theirs), then a reload.
    mutating func answerRequests() {
        if setup.notifier != nil { noticeIfDue() }
        guard let requests = Signals.takeRequests() else { return }
        if requests.stats {
            setup.writer.flush()
            writeStatistics(idleScopes: IdleScopes(statistics: pipeline.statistics, settings: pipeline.settings),
                            heading: "stats so far (SIGUSR1)")
        }
        if requests.metrics { answerScrape() }
        if requests.reload { reloadScripts() }
    }

    /// Sleeps, waking at once on a stop signal (polling its wake descriptor closes the race
    /// of a signal that lands just before the sleep starts) or a word from the desktop.
    private func sleep(microseconds: Microseconds) {
        var requests = [pollfd(fd: Signals.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: setup.desktop?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        _ = poll(&requests, 2, Int32(clamping: (microseconds + 999) / 1_000))
    }

    private func exitStatus() -> Int32 {
        switch stopReason {
        case .signal(let number)?:
            return 128 + number
        case .outputFailed(let reason)?:
            setup.environment.writeError("\(setup.environment.programName): cannot write \(reason)")
            return ExitStatus.failure
        case .binaryInput?:
            setup.environment.writeError("\(setup.environment.programName): input looks binary (NUL bytes or invalid UTF-8 in its first 64 KiB); "
                                         + "nothing was read. \(setup.environment.programName) reads JSON Lines, or text with --input text")
            return ExitStatus.dataError
        case .inputFailed(let reason)?:
            setup.environment.writeError("\(setup.environment.programName): cannot read input: \(reason)")
            return ExitStatus.failure
        case .redisFailed(let reason)?, .redisLostWrites(let reason)?:
            setup.environment.writeError("\(setup.environment.programName): \(reason); the last commit is kept, and nothing after it was acknowledged")
            return ExitStatus.failure
        case .stateFailed(let reason)?:
            setup.environment.writeError("\(setup.environment.programName): cannot save the state to \(setup.options.state ?? ""): "
                                         + "\(reason); the last state saved is kept")
            return ExitStatus.failure
        case .strict?, .outputClosed?, nil:
            return setup.reports.rejectedLines > 0 || setup.reports.failedCalls > 0 ? ExitStatus.dataError : ExitStatus.success
        }
    }
}
