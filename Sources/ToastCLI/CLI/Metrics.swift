#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import ToastCore
import ToastIO

/// `--metrics` (docs/service.md, "Watching it"): what the server's thread asks of the
/// pipeline's, and what it hears back. A scrape asks (through the signals' pipe of requests,
/// so a run waiting for input wakes for it) and waits for the pipeline's thread to write the
/// text between two lines, from the same counts `--stats` and SIGUSR1 show: the hot path reads
/// the one lock-free flag it reads for SIGHUP, and nothing more. A pipeline that does not answer within a
/// second gets the last text; one that has not answered for 10 s is stuck (`/health` 503).
final class MetricsExchange: Sendable {
    private struct Answer {
        var asked = 0
        var answered = 0
        var text = ""
        /// Why the run is not healthy now (Redis retried), from the pipeline's thread.
        var trouble: String?
        var answeredAt: Microseconds = 0
    }

    private let answer = Mutex(Answer())
    private let clock: @Sendable () -> Microseconds
    /// How long a pipeline may not answer before it is called stuck.
    static let stuckAfter: Microseconds = 10_000_000

    init(clock: @escaping @Sendable () -> Microseconds) {
        self.clock = clock
        answer.withLock { $0.answeredAt = clock() }
    }

    /// The server's thread: the metrics now (or the last ones, when the pipeline is busy).
    func metrics() -> String {
        ask()
        return answer.withLock { $0.text }
    }

    /// The server's thread: `200 ok`, or `503` and why.
    func health() -> MetricsServer.Response {
        ask()
        return answer.withLock { answer in
            if let trouble = answer.trouble { return MetricsServer.Response(status: 503, body: trouble + "\n") }
            let silent = clock() - answer.answeredAt
            if silent >= Self.stuckAfter {
                return MetricsServer.Response(status: 503, body: "stuck: the pipeline has handled nothing for \(silent / 1_000_000) s\n")
            }
            return MetricsServer.Response(status: 200, body: "ok\n")
        }
    }

    /// Asks the pipeline's thread and waits up to a second for its answer.
    private func ask() {
        let asked = answer.withLock { answer -> Int in
            answer.asked += 1
            return answer.asked
        }
        Signals.askForMetrics()
        for _ in 0..<1_000 {
            if answer.withLock({ $0.answered >= asked }) { return }
            usleep(1_000)
        }
    }

    /// Any thread: what makes the run unhealthy now (Redis retried), nil once it is over.
    func setTrouble(_ trouble: String?) {
        answer.withLock { $0.trouble = trouble }
    }

    /// The pipeline's thread: whether a scrape waits for an answer.
    var isAsked: Bool { answer.withLock { $0.answered < $0.asked } }

    /// The pipeline's thread: the text, and the trouble if any.
    func publish(_ text: String) {
        let now = clock()
        answer.withLock { answer in
            answer.text = text
            answer.answered = answer.asked
            answer.answeredAt = now
        }
    }
}

extension DurationHistogram {
    /// The family's lines: `NAME_bucket{le=…}` (cumulative), `NAME_sum`, `NAME_count`.
    func lines(_ name: String, help: String) -> [String] {
        let (buckets, count, sum) = snapshot
        var lines = ["# HELP \(name) \(help)", "# TYPE \(name) histogram"]
        for (bound, inBucket) in zip(Self.bounds, buckets) {
            lines.append("\(name)_bucket{le=\"\(PrometheusText.number(bound))\"} \(inBucket)")
        }
        lines += ["\(name)_bucket{le=\"+Inf\"} \(count)", "\(name)_sum \(PrometheusText.number(sum))", "\(name)_count \(count)"]
        return lines
    }
}

/// The Prometheus text format (version 0.0.4): families with `# HELP` and `# TYPE`, label
/// values escaped.
enum PrometheusText {
    /// One family: its help, type and samples (labels, value).
    static func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) -> [String] {
        var lines = ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"]
        for sample in samples {
            let labels = sample.labels.isEmpty ? ""
                : "{" + sample.labels.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",") + "}"
            lines.append(name + labels + " " + number(sample.value))
        }
        return lines
    }

    static func escaped(_ value: String) -> String {
        var text = ""
        for character in value {
            switch character {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            default: text.append(character)
            }
        }
        return text
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
