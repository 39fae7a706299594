import ToastCore
import ToastIO

/// `--from`: the run loop's reading and committing through a Redis consumer group
/// (docs/scale.md). A batch is committed — its records (`--to`), the state and the
/// acknowledgement of its entries in one transaction — when the stream has nothing more ready,
/// when `--checkpoint` seconds passed since the last commit, or when it grew large; so a
/// consumer that keeps up writes each record at once, and one that catches up commits rarely.
/// The commits are made on a thread of their own, in order; the run's end waits for them.
extension RunLoop {
    /// Reads until the stream ends (`--once`), a signal comes, or Redis fails for good.
    mutating func read(from group: ConsumerGroupInput) {
        while stopReason == nil {
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            answerRequests()
            if let failure = group.commitFailure {
                stopReason = .redis(failure)
                return
            }
            switch group.next(waitingAtMost: idleWait) {
            case nil:
                // Quiet: the timers due by now fire, and what they wrote is committed at once.
                if advanceWhileQuiet() { checkpoint(ended: false) }
            case .entries(let entries)?:
                for entry in entries {
                    handle(entry, of: group)
                    if stopReason != nil { return }
                }
                checkOutput()
                if group.batchIsFull { checkpoint(ended: false) } else { checkpointIfDue() }
            case .idle?:
                // Nothing more is ready: what is in hand is committed before the wait.
                if group.hasUncommitted || changedSinceCheckpoint { checkpoint(ended: false) }
            case .end?:
                return
            case .failed(let error)?:
                stopReason = .redis(error)
                return
            }
        }
    }

    /// How long to wait for the next entries: until the next timer on the followed clock, and
    /// never long, so that a signal or a reload is seen soon.
    private var idleWait: Int64 {
        let quarterSecond: Int64 = 250_000
        guard isFollowing, let timers = timerWaitLimit(), timers >= 0 else { return quarterSecond }
        return max(1_000, min(Int64(timers) * 1_000, quarterSecond))
    }

    /// The stream was quiet for a while: the followed clock runs on, and the timers due by now
    /// fire; whether any did.
    private mutating func advanceWhileQuiet() -> Bool {
        guard isFollowing else { return false }
        let now = followedNow
        guard let due = pipeline.nextTimerDue, due <= now else { return false }
        pipeline.advance(to: now)
        changedSinceCheckpoint = true
        return true
    }

    /// One entry: its field `event` (a JSON event) or `line` (a line of input, as from a file),
    /// or, with neither, a rejected line that names the entry (kept in the dead-letter file as
    /// `{"id":…,"fields":{…}}`). Every entry is acknowledged with the batch's commit.
    private mutating func handle(_ entry: RedisStreamEntry, of group: ConsumerGroupInput) {
        let number = linesRead + 1
        var line: DecodedLine
        if var event = entry.value(of: "event") {
            line = event.withUTF8 { decoding.decode($0, number: number, asEvent: true) }
        } else if var text = entry.value(of: "line") {
            line = text.withUTF8 { decoding.decode($0, number: number) }
        } else {
            let names = entry.fields.map { TerminalText.escaped($0.name) }
            let reason = "has no field event or line (" + (names.isEmpty ? "it has no fields" : "its fields: " + names.joined(separator: ", ")) + ")"
            line = .rejected(InputRejection(line: number, reason: reason))
            decoding.keepRejected(JSONText.encode(.object([
                JSONMember("id", .string(entry.id)),
                JSONMember("fields", .object(entry.fields.map { JSONMember($0.name, .string($0.value)) })),
            ])))
        }
        for warning in decoding.takeNotes() { setup.reports.warning(warning) }
        // An event without `at` happens at its entry's time, so a restarted consumer gives it
        // the same time again.
        if let id = RedisEntryID(entry.id) { line = Self.stamped(line, at: Microseconds(clamping: id.milliseconds) &* 1_000) }
        handle(Self.placed(line, at: "entry \(entry.id) of \(TerminalText.escaped(group.options.from ?? ""))"))
        group.handled(entry)
    }

    /// The line with every event that has no time of its own at `time`.
    private static func stamped(_ line: consuming DecodedLine, at time: Microseconds) -> DecodedLine {
        switch consume line {
        case .show(var show):
            if show.at == nil { show.at = time }
            return .show(show)
        case .event(var event):
            if event.at == nil { event.at = time }
            return .event(event)
        case .several(let lines):
            return .several(lines.map { stamped($0, at: time) })
        case let other:
            return other
        }
    }

    /// The line with its rejections saying which entry they were.
    private static func placed(_ line: DecodedLine, at place: String) -> DecodedLine {
        switch line {
        case .rejected(var rejection):
            rejection.place = place
            return .rejected(rejection)
        case .several(let lines):
            return .several(lines.map { placed($0, at: place) })
        default:
            return line
        }
    }

    /// Commits the batch in hand with `state` and the pipeline's changed `rows`. Records going to the usual output are written
    /// out first: the entries they came from are acknowledged only after.
    mutating func commit(_ state: SavedRun, rows: SavedRowChanges, to group: ConsumerGroupInput) {
        setup.writer.commit {}
        if group.records == nil { setup.writer.flush() }
        group.commit(run: state, rows: rows)
    }
}
