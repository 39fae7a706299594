#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO

/// `--metrics`: the families a scrape reads (docs/service.md, "Watching it"), written on the
/// pipeline's thread between two lines from the counts `--stats` shows, so that at any moment
/// they are what SIGUSR1's stats would say.
extension RunLoop {
    /// Answers a scrape that waits (`MetricsExchange`).
    func answerScrape() {
        guard let exchange = setup.metrics, exchange.isAsked else { return }
        exchange.publish(metricsText())
    }

    func metricsText() -> String {
        let statistics = pipeline.statistics
        typealias Sample = (labels: [(String, String)], value: Double)
        var lines: [String] = []
        func counter(_ name: String, _ help: String, _ samples: [Sample]) { lines += PrometheusText.family(name, "counter", help, samples) }
        func gauge(_ name: String, _ help: String, _ samples: [Sample]) { lines += PrometheusText.family(name, "gauge", help, samples) }

        counter("toastscript_input_lines_total", "Input lines read.", [([], Double(linesRead))])
        counter("toastscript_input_lines_rejected_total", "Input lines rejected (not an event).", [([], Double(setup.reports.rejectedLines))])
        counter("toastscript_events_total", "Events taken by the pipeline.", [([], Double(statistics.events))])
        counter("toastscript_late_events_total", "Events earlier than the clock, taken at the clock's time.", [([], Double(statistics.lateEvents))])
        counter("toastscript_toasts_total", "Toasts that entered the pipeline.", [([], Double(statistics.toastsIn))])
        var verdicts: [Sample] = []
        var drops: [Sample] = []
        for stage in statistics.stages {
            verdicts += [([("stage", stage.name), ("verdict", "passed")], Double(stage.passed)),
                         ([("stage", stage.name), ("verdict", "skipped")], Double(stage.skipped)),
                         ([("stage", stage.name), ("verdict", "spared")], Double(stage.spared)),
                         ([("stage", stage.name), ("verdict", "held")], Double(stage.held)),
                         ([("stage", stage.name), ("verdict", "released")], Double(stage.released)),
                         ([("stage", stage.name), ("verdict", "dropped")], Double(stage.dropped.values.reduce(0, +)))]
            drops += stage.dropped.sorted { $0.key < $1.key }.map { ([("stage", stage.name), ("reason", $0.key)], Double($0.value)) }
        }
        counter("toastscript_stage_toasts_total", "Toasts each stage passed, skipped (when), spared (spare), held, released or dropped.", verdicts)
        counter("toastscript_stage_drops_total", "Toasts each stage dropped, by reason.", drops)
        let host = statistics.stages.first { $0.name == BuiltInStage.host }
        counter("toastscript_toasts_shown_total", "Toasts the host presented, by role.",
                statistics.shownByRole.map { ([("role", $0.role)], Double($0.count)) })
        counter("toastscript_toasts_dropped_total", "Toasts dropped (by any stage), by role.",
                statistics.droppedByRole.map { ([("role", $0.role)], Double($0.count)) })
        counter("toastscript_toasts_dismissed_total", "Toasts dismissed, by reason.",
                (host?.dismissed ?? [:]).sorted { $0.key < $1.key }.map { ([("reason", $0.key)], Double($0.value)) })
        counter("toastscript_errors_shown_total", "Toasts of priority 2 or more (errors) shown.", [([], Double(statistics.errorsShown))])
        counter("toastscript_errors_dropped_total", "Errors dropped, by role.",
                statistics.errorsDroppedByRole.map { ([("role", $0.role)], Double($0.count)) })
        counter("toastscript_records_written_total", "Records written to the output.", [([], Double(setup.writer.linesWritten))])
        counter("toastscript_script_errors_total", "Failed script calls, by what failed.",
                setup.reports.scriptErrorsBySource.map { ([("source", $0.source)], Double($0.count)) })

        let showing = pipeline.toastsOnScreens
        gauge("toastscript_toasts_visible", "Toasts on screen now.", [([], Double(showing.visible))])
        gauge("toastscript_toasts_waiting", "Toasts waiting their turn now.", [([], Double(showing.waiting))])
        gauge("toastscript_toasts_held", "Toasts a stage holds now (debounce, digest, plugins).", [([], Double(pipeline.heldCount))])
        gauge("toastscript_screens", "Screens remembered now.", [([], Double(showing.screens))])
        let lag = isFollowing ? followOrigin.map { Double(max(0, followedNow - $0.stream)) / 1_000_000 } ?? 0 : 0
        gauge("toastscript_stream_lag_seconds", "On the follow clock, how far the clock is past the last event's time.", [([], lag)])
        gauge("toastscript_input_offset_bytes", "The input's byte offset after the last line taken.", [([], Double(inputPosition.offset))])
        if let size = setup.checkpoints?.size {
            gauge("toastscript_state_rows", "Rows of the --state file after the last checkpoint.", [([], Double(size.rows))])
            gauge("toastscript_state_bytes", "Bytes of the --state file and its WAL after the last checkpoint.", [([], Double(size.bytes))])
        }
        if let durations = setup.checkpointDurations {
            lines += durations.lines("toastscript_checkpoint_duration_seconds", help: "How long each checkpoint took to save (--state).")
        }
        if let durations = setup.redisCommitDurations {
            lines += durations.lines("toastscript_redis_commit_duration_seconds",
                                     help: "How long each commit to Redis took (records, state and acknowledgements).")
        }

        let (resident, cpu) = Self.processUsage()
        gauge("process_resident_memory_bytes", "Resident memory size in bytes.", [([], resident)])
        counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", [([], cpu)])
        let started = Double(CommandEnvironment.epochMicroseconds() - (setup.environment.wallClock() - setup.startedAt)) / 1_000_000
        gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", [([], started.rounded())])
        return lines.joined(separator: "\n") + "\n"
    }

    /// The process's resident memory (bytes) and CPU time (seconds).
    private static func processUsage() -> (resident: Double, cpu: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        var resident = 0.0
        if let file = fopen("/proc/self/statm", "r") {
            defer { fclose(file) }
            var size = 0, pages = 0
            if withUnsafeMutablePointer(to: &size, { sizePointer in
                withUnsafeMutablePointer(to: &pages) { pagesPointer in
                    withVaList([sizePointer, pagesPointer]) { vfscanf(file, "%ld %ld", $0) }
                }
            }) == 2 {
                resident = Double(pages) * Double(sysconf(Int32(_SC_PAGESIZE)))
            }
        }
        return (resident, cpu)
    }
}
