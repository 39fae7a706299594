import ToastCore
import ToastIO

/// `--from`: the run loop's reading and committing through a Redis consumer group
/// (docs/scale.md). A batch is committed — its records (`--to`), the state and the
/// acknowledgement of its entries in one transaction — when the stream has nothing more ready,
/// when `--checkpoint` seconds passed since the last commit, or when it grew large; so a
/// consumer that keeps up writes each record at once, and one that catches up commits rarely.
extension RunLoop {
    /// Reads until the stream ends (`--once`), a signal comes, or Redis fails for good.
    mutating func read(from group: ConsumerGroupInput) {
        while stopReason == nil {
            if Signals.received != 0 {
                stopReason = .signal(Signals.received)
                return
            }
            if Signals.takeReloadRequest() { reloadScripts() }
            do {
                var entries = try group.next(wait: nil)
                if entries.isEmpty {
                    if group.atEnd { return }
                    // Nothing ready: what is in hand is committed before the wait.
                    if group.hasUncommitted || changedSinceCheckpoint { checkpoint(ended: false) }
                    entries = try group.next(wait: idleWait)
                    if entries.isEmpty {
                        if group.atEnd { return }
                        advanceWhileQuiet()
                        continue
                    }
                }
                for entry in entries {
                    handle(entry, of: group)
                    if stopReason != nil { return }
                }
            } catch {
                stopReason = .redisFailed("\(error)")
                return
            }
            checkOutput()
            if group.batchIsFull { checkpoint(ended: false) } else { checkpointIfDue() }
        }
    }

    /// How long a read waits for new entries: until the next timer on the followed clock, and
    /// never long, so that a signal or a reload is seen soon (a wait in Redis is not broken by one).
    private var idleWait: Duration {
        let quarterSecond = 250
        guard let timers = timerWaitLimit(), timers >= 0 else { return .milliseconds(quarterSecond) }
        return .milliseconds(max(1, min(Int(timers), quarterSecond)))
    }

    /// The stream was quiet for a while: the followed clock runs on, and the timers due by now fire.
    private mutating func advanceWhileQuiet() {
        let now = followedNow
        guard let due = pipeline.nextTimerDue, due <= now else { return }
        pipeline.advance(to: now)
        changedSinceCheckpoint = true
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
        handle(Self.placed(line, at: "entry \(entry.id) of \(TerminalText.escaped(group.options.from ?? ""))"))
        group.handled(entry)
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

    /// Commits the batch in hand with `state`. Records going to the usual output are written
    /// out first: the entries they came from are acknowledged only after.
    mutating func commit(_ state: SavedRun, to group: ConsumerGroupInput) {
        setup.writer.commit {}
        if group.records == nil { setup.writer.flush() }
        do {
            try group.commit(state: state.fileBytes)
        } catch {
            stopReason = .redisFailed("\(error)")
        }
    }
}
