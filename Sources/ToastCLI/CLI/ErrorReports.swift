import ToastCore
import ToastIO
import ToastLua

/// What a run says on stderr about rejected lines and failed script calls, without flooding
/// it (docs/events.md).
///
/// The first ten reports of a kind are written as they happen; later ones of that kind are
/// counted, and each count is written once at the end (`… 990 more like this`). A kind is an
/// input complaint apart from its line number and columns, or a script error's place and
/// message. Whenever anything was rejected or failed, the end adds one line with the totals.
/// `verbose` writes every report.
final class ErrorReports {
    static let shownPerKind = 10

    private let writeError: (String) -> Void
    /// What every line starts with: the program's name and a colon.
    private let prefix: String
    private let verbose: Bool
    /// `--quiet`: notes are not written (warnings and errors are).
    private let quiet: Bool
    private var reportsByKind: [String: Int] = [:]
    /// Kinds with reports held back, in the order the first one was held back, with that report.
    private var heldBack: [(kind: String, example: String, noun: String)] = []
    private(set) var rejectedLines = 0
    private(set) var failedCalls = 0
    /// Script errors by what failed (`rule "x"`, `on present`, `timer FILE:LINE`, `parse`),
    /// in the order first seen, for `--stats`.
    private(set) var scriptErrorsBySource: [(source: String, count: Int)] = []
    /// Whether the run was told that repeated reports are counted from now on (said once).
    private var saidCounting = false

    /// Whether lines begin with their priority (stderr is the journal).
    private let priorities: Bool

    init(writeError: @escaping (String) -> Void, programName: String, verbose: Bool, quiet: Bool = false, priorities: Bool = false) {
        self.writeError = writeError
        self.priorities = priorities
        self.prefix = programName + ": "
        self.verbose = verbose
        self.quiet = quiet
    }

    /// A rejected line; `sameLineAsBefore` for a second event of one line that `parse` split.
    func rejected(_ rejection: InputRejection, sameLineAsBefore: Bool = false) {
        if !sameLineAsBefore { rejectedLines += 1 }
        if rejection.byFailedParse { count("parse") }
        report(prefix + rejection.message, kind: "input: " + rejection.kind,
               example: rejection.reason, noun: "rejected lines")
    }

    /// A rule, hook or `emit` that failed.
    func scriptFailed(_ error: ScriptError) {
        failedCalls += 1
        count(error.source)
        report(prefix + "\(error)", kind: "script: " + error.namedMessage, example: error.namedMessage, noun: "script errors")
    }

    /// Scripts that did not load again on SIGHUP: the run goes on with the old ones, and ends
    /// with the status of a failed script call.
    func reloadFailed(_ error: Error) {
        failedCalls += 1
        writeError(prefix + "reload failed, the scripts loaded before go on: \(error)")
    }

    private func count(_ source: String) {
        if let index = scriptErrorsBySource.firstIndex(where: { $0.source == source }) {
            scriptErrorsBySource[index].count += 1
        } else {
            scriptErrorsBySource.append((source, 1))
        }
    }

    /// A warning or a hint about what went wrong: always written.
    func warning(_ text: String) {
        writeError(CommandEnvironment.prefixed(prefix + text, priority: .warning, when: priorities))
    }

    /// A note about how the run goes (the clock it chose, how it ended): not with `--quiet`.
    func note(_ text: String) {
        if !quiet { writeError(CommandEnvironment.prefixed(prefix + text, priority: .notice, when: priorities)) }
    }

    private func report(_ line: String, kind: String, example: String, noun: String) {
        guard !verbose else { return writeError(line) }
        let count = reportsByKind[kind, default: 0] + 1
        reportsByKind[kind] = count
        if count <= Self.shownPerKind {
            writeError(line)
            if count == Self.shownPerKind && !saidCounting {
                saidCounting = true
                writeError(prefix + "(a complaint seen \(Self.shownPerKind) times is counted from now on, not shown; "
                           + "--verbose shows every one)")
            }
        } else if count == Self.shownPerKind + 1 {
            heldBack.append((kind, example, noun))
        }
    }

    /// The counts held back and the closing totals; `deadLetter` is the `--dead-letter` path, if any.
    func finish(deadLetter: String?, stats: Bool) {
        for (kind, example, noun) in heldBack {
            let more = (reportsByKind[kind] ?? 0) - Self.shownPerKind
            writeError(prefix + "… \(more) more \(noun) like this: \(example)")
        }
        guard rejectedLines > 0 || failedCalls > 0 else { return }
        var totals: [String] = []
        if rejectedLines > 0 { totals.append(rejectedLines == 1 ? "1 input line rejected" : "\(rejectedLines) input lines rejected") }
        if failedCalls > 0 { totals.append(failedCalls == 1 ? "1 script call failed" : "\(failedCalls) script calls failed") }
        var pointers: [String] = []
        if rejectedLines > 0 {
            pointers.append(deadLetter == nil ? "--dead-letter FILE keeps rejected lines" : "--dead-letter has every rejected line")
        }
        if !stats { pointers.append(failedCalls > 0 ? "--stats counts them by rule, hook and timer" : "--stats counts them") }
        let tail = pointers.isEmpty ? "" : " (" + pointers.joined(separator: "; ") + ")"
        writeError(prefix + totals.joined(separator: ", ") + tail)
    }
}
