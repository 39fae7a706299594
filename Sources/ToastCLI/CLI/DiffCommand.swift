#if canImport(Glibc)
import Glibc
#endif
import ToastCore
import ToastIO
import ToastLua

/// `toastscript diff OLD NEW [OPTIONS] < events`: the same events through two script sets
/// with the same options, and every toast whose fate differs, grouped by how it changed.
/// Exit status as diff(1): 0 the same, 1 different, 2 trouble (usage, a script that does not
/// load, input that cannot be read).
enum DiffCommand {
    static func usage(programName: String) -> String {
        "Usage: \(programName) diff OLD NEW [OPTIONS] < events.jsonl   (OLD, NEW: a .lua file, a directory of them, or none)"
    }

    /// The most toasts listed under one group in text, unless `--verbose`.
    static let listedPerGroup = 20

    static func run(arguments: [String], environment: CommandEnvironment, registry: StageRegistry) -> Int32 {
        var options: CommandLineOptions
        let sides: [(name: String, scripts: [String])]
        do {
            options = try CommandLineOptions.parse(arguments)
            if options.help {
                Toastscript.writeText(helpText(programName: environment.programName), to: environment.standardOutput)
                return ExitStatus.success
            }
            guard options.scripts.count == 2 else {
                throw UsageError("diff takes two script sets, OLD and NEW, not \(options.scripts.count)")
            }
            try checkOptions(options)
            sides = try options.scripts.map { ($0, try scripts(of: $0)) }
        } catch {
            environment.writeError("\(environment.programName) diff: \(error)")
            environment.writeError(usage(programName: environment.programName))
            return ExitStatus.usage
        }
        // Both runs read the same bytes; a file given with --events is read by each.
        var input: [UInt8]?
        if options.events == nil || options.events == "-" {
            guard let bytes = environment.standardInput.readAll(givesUp: { Signals.received != 0 }) else {
                environment.writeError("\(environment.programName) diff: cannot read the input")
                return ExitStatus.usage
            }
            options.events = nil
            input = bytes
        }
        options.clockGiven = true
        var collectors: [FateCollector] = []
        for (label, side) in zip(["OLD", "NEW"], sides) {
            var runOptions = options
            runOptions.scripts = side.scripts
            runOptions.format = .json
            var runEnvironment = environment
            if let input { runEnvironment.standardInput = MemorySource(input) }
            runEnvironment.standardOutput = MemorySink()
            runEnvironment.writeError = { [writeError = environment.writeError] in writeError("\(label) (\(side.name)): \($0)") }
            let collector = FateCollector()
            do {
                let setup = try RunSetup(options: runOptions, environment: runEnvironment, registry: registry, recordsTo: collector)
                // Diff reads no Redis stream, so the run never starts again.
                let status = if case .exited(let status) = setup.execute() { status } else { ExitStatus.failure }
                if status != ExitStatus.success && status != ExitStatus.dataError {
                    environment.writeError("\(environment.programName) diff: the \(label) run stopped with status \(status)")
                    return ExitStatus.usage
                }
            } catch {
                environment.writeError("\(environment.programName) diff: \(label) (\(side.name)): \(error)")
                return ExitStatus.usage
            }
            collectors.append(collector)
        }
        let comparison = FateComparison(old: collectors[0], new: collectors[1])
        let report = options.format == .json
            ? jsonReport(comparison)
            : textReport(comparison, old: sides[0].name, new: sides[1].name, listingAll: options.verbose,
                         time: TimeDisplay(zone: options.lua.timeZone))
        Toastscript.writeText(report, to: environment.standardOutput)
        return comparison.differenceCount == 0 ? ExitStatus.success : ExitStatus.failure
    }

    /// Options that make no sense for a comparison of two replays.
    private static func checkOptions(_ options: CommandLineOptions) throws {
        if options.format != .text && options.format != .json {
            throw UsageError("diff writes text or json, not \(options.format.rawValue)")
        }
        if options.clock != .stream {
            throw UsageError("diff replays the input twice on the stream clock; --clock \(options.clock.rawValue) cannot be replayed")
        }
        for (given, name) in [(options.desktop, "--desktop"), (options.trace, "--trace"), (!options.explain.isEmpty, "--explain"),
                              (options.output != nil, "--output"), (options.deadLetter != nil, "--dead-letter"),
                              (options.stats, "--stats")] where given {
            throw UsageError("\(name) does not go with diff")
        }
    }

    /// The scripts of one side: a `.lua` file, a directory's `.lua` files in name order, or
    /// none for `none`.
    static func scripts(of side: String) throws -> [String] {
        if side == "none" { return [] }
        var status = stat()
        guard stat(side, &status) == 0 else { throw UsageError("\(quoted(side)) does not exist (a .lua file, a directory, or none)") }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { return [side] }
        guard let entries = DirectoryListing.names(in: side) else {
            throw UsageError("cannot read the directory \(quoted(side))")
        }
        let names = entries.filter { $0.hasSuffix(".lua") && !$0.hasPrefix(".") }
        let prefix = side.hasSuffix("/") ? side : side + "/"
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { prefix + $0 }
    }


    // MARK: Reports

    static func textReport(_ comparison: FateComparison, old: String, new: String, listingAll: Bool,
                           time: TimeDisplay = TimeDisplay()) -> String {
        var lines: [String] = []
        for group in comparison.groups {
            let count = group.differences.count
            lines.append("\(count) \(count == 1 ? "toast" : "toasts") \(safe(group.change))")
            let listed = listingAll ? group.differences[...] : group.differences.prefix(listedPerGroup)
            for difference in listed {
                var line = "  " + (difference.screen.map { safe($0.label) + " " } ?? "")
                line += "\(safe(difference.id))  \(quoted(safe(shortened(difference.message))))  "
                line += "was: " + (difference.old.map { $0.description(time) } ?? "not there")
                line += "; now: " + (difference.new.map { $0.description(time) } ?? "not there")
                lines.append(line)
            }
            if listed.count < count { lines.append("  … and \(count - listed.count) more (--verbose lists them all)") }
            lines.append("")
        }
        let differ = comparison.differenceCount
        lines.append("\(differ) of \(comparison.toastCount) toasts differ (OLD: \(safe(old)), NEW: \(safe(new)))")
        return lines.joined(separator: "\n") + "\n"
    }

    static func jsonReport(_ comparison: FateComparison) -> String {
        var out: [UInt8] = []
        for group in comparison.groups {
            for difference in group.differences {
                out += Array(#"{"event":"diff""#.utf8)
                if let screen = difference.screen {
                    out += Array(#","screen":"#.utf8)
                    JSONText.appendValue(screen.jsonValue, to: &out)
                }
                out += Array(#","id":"#.utf8)
                JSONText.appendString(difference.id, to: &out)
                out += Array(#","message":"#.utf8)
                JSONText.appendString(difference.message, to: &out)
                out += Array(#","change":"#.utf8)
                JSONText.appendString(group.change, to: &out)
                out += Array(#","old":"#.utf8)
                if let old = difference.old { old.appendJSON(to: &out) } else { out += Array("null".utf8) }
                out += Array(#","new":"#.utf8)
                if let new = difference.new { new.appendJSON(to: &out) } else { out += Array("null".utf8) }
                out += Array("}\n".utf8)
            }
        }
        out += Array(#"{"event":"diff_summary","toasts":\#(comparison.toastCount),"differ":\#(comparison.differenceCount),"groups":["#.utf8)
        for (index, group) in comparison.groups.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"change":"#.utf8)
            JSONText.appendString(group.change, to: &out)
            out += Array(#","count":\#(group.differences.count)}"#.utf8)
        }
        out += Array("]}\n".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    private static func safe(_ text: String) -> String { TerminalText.escaped(text) }

    private static func shortened(_ text: String) -> String {
        text.count <= 50 ? text : String(text.prefix(49)) + "…"
    }

    static func helpText(programName: String) -> String {
        """
        \(programName) diff: run the same events through two script sets and show every toast whose fate differs.

        \(usage(programName: programName))

        OLD and NEW are each a .lua file, a directory whose .lua files load in name order, or none.
        Every run option (--input, --no-drain, --lua-budget, …) applies to both runs; --format json
        writes one object per differing toast, then a summary. Toasts are matched by id; toasts
        that scripts and stages bring in (e1, e2, …) by their message and order.

        Exit status: 0 the fates are the same, 1 they differ, 2 a usage error or a run that could
        not start.

        """
    }
}
