import ToastCore
import ToastIO

/// The stages whose `when` took none of the toasts that reached them and were not spared
/// (docs/events.md, "--stats"): most likely a `when` that names a value or a field no toast
/// has. Named at the end of every run, on stderr (also with `-q`) and in `--stats`.
struct IdleScopes {
    struct Stage {
        let name: String
        /// Toasts that reached the stage and were not spared: all skipped it.
        let count: Int
        /// The `when` as a script would write it inside its braces: `source = "sorce"`.
        let when: String
    }

    let stages: [Stage]

    init(statistics: PipelineStatistics, settings: PipelineSettings) {
        stages = statistics.stages.compactMap { stage in
            guard let when = settings.scopes[stage.name], stage.entered == 0, stage.skipped > 0 else { return nil }
            return Stage(name: stage.name, count: stage.skipped, when: Self.inside(when.description))
        }
    }

    /// The warning for each stage: `metrics_limit took none of 1204 toasts (when: source = "sorce")`.
    var warnings: [String] {
        stages.map { "warning: \(TerminalText.escaped($0.name)) took none of \($0.count) toast\($0.count == 1 ? "" : "s") (when: \(TerminalText.escaped($0.when)))" }
    }

    /// `{ source = "sorce" }` without its braces; anything else as it is.
    private static func inside(_ description: String) -> String {
        guard description.hasPrefix("{ "), description.hasSuffix(" }") else { return description }
        return String(description.dropFirst(2).dropLast(2))
    }
}
