import ToastCore
import ToastIO
import ToastLua

/// Everything the command line says (toastscript(1)).
package struct CommandLineOptions: Equatable, Sendable {
    package enum ClockMode: String, Sendable, CaseIterable { case stream, follow, wall, replay }
    package enum ColorMode: String, Sendable, CaseIterable { case auto, always, never }
    package enum LevelReading: String, Sendable, CaseIterable { case on, off }

    package var input: InputFormat = .json
    /// `--levels`: whether a line's level (and a JSON show's `level`) gives its toast a role.
    package var levels: LevelReading = .on
    package var format: OutputFormat = .text
    package var formatGiven = false
    package var output: String?
    package var fsync = false
    package var deadLetter: String?
    package var clock: ClockMode = .stream
    /// Whether `--clock` was given (live text input picks the wall clock only when it was not).
    package var clockGiven = false
    /// `--speed`: how many times faster than the wall clock `--clock replay` runs.
    package var speed: Double?
    /// `--max-gap`: with `--clock replay`, the longest real wait for a stretch in which nothing
    /// is on screen, waiting or held and no timer falls; 0 waits every stretch out.
    package var maxGap: Microseconds = 5 * StreamTime.perSecond
    /// `--desktop`: show presented toasts as desktop notifications.
    package var desktop = false
    package var drain = true
    package var strict = false
    package var stats = false
    package var verbose = false
    /// `-q`: no notes and no run summary on stderr (errors and warnings stay).
    package var quiet = false
    /// `--trace`: a trace record for every decision about every toast.
    package var trace = false
    /// `--explain ID`: only the records and trace of these toasts.
    package var explain: [String] = []
    package var color: ColorMode = .auto
    package var lua = LuaOptions()
    package var events: String?
    /// `--follow FILE`: FILE read, then followed through appends and rotations.
    package var follow: String?
    /// `--journal` and its selection (`--journal-dir`, `--journal-file`, `--journal-match`).
    package var journal: JournalSource.Selection?
    /// Whether `--input` was given (the journal's entries have a form of their own).
    package var inputGiven = false
    /// `--multiline`: a stack trace's lines join the event they belong to (docs/logs.md).
    package var multiline = false
    /// `--state FILE`: the run keeps its state in FILE and goes on from it (docs/service.md).
    package var state: String?
    /// `--metrics ADDR`: where Prometheus scrapes `/metrics` and a health check asks `/health`.
    package var metrics: String?
    /// `--checkpoint SECONDS`: with `--state`, how often the state is saved, in wall time (0:
    /// only at the end and on a signal).
    package var checkpointInterval: Microseconds = StreamTime.perSecond
    package var checkpointGiven = false
    /// `--state-reset`: start afresh, overwriting the state file.
    package var stateReset = false
    /// `--redis` and what goes with it: a consumer group to read, a stream to write (docs/scale.md).
    package var redis = RedisOptions()
    package var maxLineBytes = 1 << 20
    package var help = false
    package var version = false
    /// The scripts, in the order given.
    package var scripts: [String] = []
    /// `-e CHUNK`: Lua text run as scripts after the files, in the order given.
    package var inlineChunks: [String] = []

    package init() {}
}

/// A command line that cannot be run: exit 2, with a usage line.
package struct UsageError: Error, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// One option: the table that drives both the parser and `--help`.
struct OptionSpec: Sendable {
    let name: String
    /// A one-letter alias (`-h`), if it has one.
    var short: String? = nil
    /// The value's placeholder; nil for a flag.
    let value: String?
    let help: String
    let apply: @Sendable (inout CommandLineOptions, String) throws -> Void
}

extension CommandLineOptions {
    static func usage(programName: String) -> String {
        "Usage: \(programName) [OPTIONS] [SCRIPT.lua ...] < events.jsonl"
    }

    static let specs: [OptionSpec] = [
        OptionSpec(name: "--input", value: "json|text|syslog|logfmt",
                   help: "input format: JSON Lines (default), one message per line, or syslog or logfmt lines read natively") {
            $0.input = try choice($1, "--input")
            $0.inputGiven = true
        },
        OptionSpec(name: "--multiline", value: nil,
                   help: "indented lines, Java's Caused by: and Python's tracebacks continue the event before them (text, syslog, logfmt)") { options, _ in
            options.multiline = true
        },
        OptionSpec(name: "--levels", value: "on|off",
                   help: "off: a line's level (ERROR, [warn], level=error, <3>) gives no role (default on)") {
            $0.levels = try choice($1, "--levels")
        },
        OptionSpec(name: "--events", value: "FILE", help: "read events from FILE instead of stdin (-: stdin)") {
            $0.events = $1
        },
        OptionSpec(name: "--follow", value: "FILE",
                   help: "read FILE, then follow what is appended, through rotations (as tail -F; the follow clock)") {
            $0.follow = $1
        },
        OptionSpec(name: "--journal", value: nil,
                   help: "read the systemd journal's entries: new ones as they come (--once: every entry there is, then end)") { options, _ in
            options.journal = options.journal ?? JournalSource.Selection()
        },
        OptionSpec(name: "--journal-dir", value: "DIR", help: "--journal: the journal files in DIR instead of the local journal") {
            $0.journal = $0.journal ?? JournalSource.Selection()
            $0.journal?.directory = $1
        },
        OptionSpec(name: "--journal-file", value: "FILE", help: "--journal: this journal file (again for more) instead of the local journal") {
            $0.journal = $0.journal ?? JournalSource.Selection()
            $0.journal?.files.append($1)
        },
        OptionSpec(name: "--journal-match", value: "FIELD=VALUE",
                   help: "--journal: only entries with FIELD=VALUE (again for more: other fields all, one field any, as journalctl)") {
            guard let equals = $1.firstIndex(of: "="), equals != $1.startIndex,
                  $1[..<equals].allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else {
                throw UsageError("--journal-match takes FIELD=VALUE, a journal field's name in capitals (_SYSTEMD_UNIT=backup.service), not '\($1)'")
            }
            $0.journal = $0.journal ?? JournalSource.Selection()
            $0.journal?.matches.append($1)
        },
        OptionSpec(name: "--metrics", value: "ADDR",
                   help: "serve /metrics (Prometheus) and /health on HOST:PORT, [V6]:PORT or a socket's path (port 0: a free one)") {
            $0.metrics = try metricsAddress($1)
        },
        OptionSpec(name: "--format", value: "text|json|speech|html", help: "record format (default: text); html: one page drawing the run") {
            $0.format = try choice($1, "--format")
            $0.formatGiven = true
        },
        OptionSpec(name: "--output", value: "FILE", help: "append records to FILE instead of stdout") {
            $0.output = $1
        },
        OptionSpec(name: "--fsync", value: nil, help: "sync --output to disk at the end") { options, _ in
            options.fsync = true
        },
        OptionSpec(name: "--dead-letter", value: "FILE", help: "append every rejected input line to FILE") {
            $0.deadLetter = $1
        },
        OptionSpec(name: "--state", value: "FILE",
                   help: "keep the run's state in FILE and go on from it when started again (a service)") {
            $0.state = $1
        },
        OptionSpec(name: "--checkpoint", value: "SECONDS",
                   help: "with --state: save it every SECONDS of wall time (default 1; 0: at the end and on a signal); "
                       + "with --from: commit at least this often") {
            guard let seconds = Double($1), seconds >= 0, let micros = StreamTime.microseconds(fromSeconds: seconds) else {
                throw UsageError("--checkpoint takes a number of seconds ≥ 0, not '\($1)'")
            }
            $0.checkpointInterval = micros
            $0.checkpointGiven = true
        },
        OptionSpec(name: "--state-reset", value: nil, help: "with --state: start afresh, overwriting FILE and emptying --output") { options, _ in
            options.stateReset = true
        },
        OptionSpec(name: "--redis", value: "URL|SOCKET",
                   help: "the Redis server of --from and --to (redis://HOST[:PORT][/DB], or a socket's path)") {
            $0.redis.server = $1
        },
        OptionSpec(name: "--from", value: "STREAM", help: "with --redis: read entries of STREAM (field event or line) through a consumer group") {
            $0.redis.from = $1
        },
        OptionSpec(name: "--group", value: "GROUP", help: "with --from: the consumer group (made when missing)") {
            $0.redis.group = $1
        },
        OptionSpec(name: "--consumer", value: "NAME", help: "with --from: this consumer's name in the group (keep it across restarts)") {
            $0.redis.consumer = $1
        },
        OptionSpec(name: "--to", value: "STREAM", help: "with --redis: write each record as an entry of STREAM (field record)") {
            $0.redis.to = $1
        },
        OptionSpec(name: "--to-maxlen", value: "N", help: "with --to: keep the stream near its last N entries (XADD MAXLEN ~ N)") {
            guard let count = Int($1), count >= 1 else { throw UsageError("--to-maxlen takes a number of entries ≥ 1, not '\($1)'") }
            $0.redis.toMaxLength = count
        },
        OptionSpec(name: "--trim", value: nil, help: "with --from: remove the stream's entries every group has acknowledged") { options, _ in
            options.redis.trim = true
        },
        OptionSpec(name: "--once", value: nil, help: "with --from or --journal: read what the stream or the journal holds at the start, then end") { options, _ in
            options.redis.once = true
        },
        OptionSpec(name: "--redis-timeout", value: "SECONDS",
                   help: "with --redis: how long to try again after the connection fails or the server says not now (default 30)") {
            guard let seconds = Double($1), seconds >= 0, let micros = StreamTime.microseconds(fromSeconds: seconds) else {
                throw UsageError("--redis-timeout takes a number of seconds ≥ 0, not '\($1)'")
            }
            $0.redis.timeout = micros
            $0.redis.timeoutGiven = true
        },
        OptionSpec(name: "--clock", value: "stream|follow|wall|replay",
                   help: "the events' \"at\" (default for files), \"at\" with timers in real time while live input "
                       + "is quiet (default for pipes), the wall clock, or \"at\" played in real time") {
            $0.clock = try choice($1, "--clock")
            $0.clockGiven = true
        },
        OptionSpec(name: "--max-gap", value: "SECONDS",
                   help: "with --clock replay: wait at most this long through idle time (default 5; 0: never skip)") {
            guard let seconds = Double($1), seconds >= 0, let micros = StreamTime.microseconds(fromSeconds: seconds) else {
                throw UsageError("--max-gap takes a number of seconds ≥ 0, not '\($1)'")
            }
            $0.maxGap = micros
        },
        OptionSpec(name: "--speed", value: "X", help: "with --clock replay: X times the real pace (default 1)") {
            guard let speed = Double($1), speed > 0, speed.isFinite else {
                throw UsageError("--speed takes a number > 0, not '\($1)'")
            }
            $0.speed = speed
        },
        OptionSpec(name: "--desktop", value: nil, help: "also show toasts as desktop notifications (a close there is a tap)") { options, _ in
            options.desktop = true
        },
        OptionSpec(name: "--no-drain", value: nil, help: "end at the last event instead of running the timers out") { options, _ in
            options.drain = false
        },
        OptionSpec(name: "--strict", value: nil, help: "stop at the first rejected line or script error") { options, _ in
            options.strict = true
        },
        OptionSpec(name: "--stats", value: nil, help: "print counts per stage on stderr at exit") { options, _ in
            options.stats = true
        },
        OptionSpec(name: "--verbose", value: nil, help: "show drops in --format text") { options, _ in
            options.verbose = true
        },
        OptionSpec(name: "--quiet", short: "-q", value: nil,
                   help: "no notes and no closing summary on stderr (errors and warnings stay)") { options, _ in
            options.quiet = true
        },
        OptionSpec(name: "--trace", value: nil, help: "add a trace record for every stage, rule and host decision") { options, _ in
            options.trace = true
        },
        OptionSpec(name: "--explain", value: "ID", help: "tell only the story of toast ID, every decision and why (repeatable)") {
            $0.explain.append($1)
        },
        OptionSpec(name: "--color", value: "auto|always|never", help: "color text records (auto: on a terminal, unless NO_COLOR or TERM=dumb)") {
            $0.color = try choice($1, "--color")
        },
        OptionSpec(name: "--unsafe-lua", value: nil, help: "open every Lua library to scripts (no sandbox)") { options, _ in
            options.lua.unsafe = true
        },
        OptionSpec(name: "--lua-budget", value: "N", help: "instructions per rule or hook call (default 10000000, 0: none)") {
            $0.lua.instructionBudget = try count($1, "--lua-budget")
        },
        OptionSpec(name: "--lua-memory", value: "MB", help: "memory cap of the Lua state in MB (default 256, 0: none)") {
            $0.lua.memoryLimitMB = try count($1, "--lua-memory")
        },
        OptionSpec(name: "--tz", value: "local|utc", help: "zone of times without an offset, and of dates shown (default local)") {
            $0.lua.timeZone = try choice($1, "--tz")
        },
        OptionSpec(name: "--var", value: "NAME=VALUE", help: "scripts read VALUE as vars.NAME (repeatable)") {
            guard let equals = $1.firstIndex(of: "="), equals != $1.startIndex else {
                throw UsageError("--var takes NAME=VALUE, not '\($1)'")
            }
            $0.lua.variables[String($1[..<equals])] = String($1[$1.index(after: equals)...])
        },
        OptionSpec(name: "--max-line-bytes", value: "N", help: "reject input lines longer than N bytes (default 1048576)") {
            $0.maxLineBytes = try count($1, "--max-line-bytes", minimum: 1)
        },
        OptionSpec(name: "-e", value: "CHUNK", help: "run CHUNK as a script, after the script files (repeatable)") {
            $0.inlineChunks.append($1)
        },
        OptionSpec(name: "--help", short: "-h", value: nil, help: "show this help") { options, _ in options.help = true },
        OptionSpec(name: "--version", short: "-V", value: nil, help: "show the version") { options, _ in options.version = true },
    ]

    private static func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ option: String) throws -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue)
            let question = NameSuggestion.question(for: text, among: names, quote: { "'\($0)'" }).map { "; " + $0 } ?? ""
            throw UsageError("\(option) must be one of \(names.joined(separator: ", ")), not '\(text)'\(question)")
        }
        return value
    }

    private static func count(_ text: String, _ option: String, minimum: Int = 0) throws -> Int {
        guard let value = Int(text), value >= minimum else {
            throw UsageError("\(option) takes a whole number ≥ \(minimum), not '\(text)'")
        }
        return value
    }

    /// Reads the arguments after the program name: `--opt value`, `--opt=value`, and `--`
    /// before scripts whose names start with `-`.
    package static func parse(_ arguments: [String]) throws -> CommandLineOptions {
        var options = CommandLineOptions()
        var index = 0
        var onlyScripts = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyScripts || !argument.hasPrefix("-") || argument == "-" {
                options.scripts.append(argument)
                continue
            }
            if argument == "--" {
                onlyScripts = true
                continue
            }
            // `--opt=value`; a one-dash option (`-e`) takes the next argument whole.
            let parts = argument.hasPrefix("--")
                ? argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false) : [Substring(argument)]
            let name = String(parts[0])
            guard let spec = specs.first(where: { $0.name == name || $0.short == name }) else {
                var message = "unknown option '\(name)'"
                if let question = suggestion(for: name) { message += "; " + question }
                throw UsageError(message)
            }
            if spec.value == nil {
                guard parts.count == 1 else { throw UsageError("\(name) takes no value") }
                try spec.apply(&options, "")
            } else if parts.count == 2 {
                try spec.apply(&options, String(parts[1]))
            } else {
                guard index < arguments.count else { throw UsageError("\(name) needs a value (\(spec.value!))") }
                try spec.apply(&options, arguments[index])
                index += 1
            }
        }
        if (options.trace || !options.explain.isEmpty) && options.format == .speech {
            throw UsageError("\(options.trace ? "--trace" : "--explain") writes text or json, not speech")
        }
        if !options.explain.isEmpty && options.format == .html {
            throw UsageError("--explain writes text or json; --format html already shows every toast's trace")
        }
        if options.speed != nil && options.clock != .replay {
            throw UsageError("--speed needs --clock replay")
        }
        try checkJournal(&options)
        try checkRedis(&options)
        try checkFollow(&options)
        try checkMultiline(options)
        if options.state == nil && options.redis.from == nil && (options.checkpointGiven || options.stateReset) {
            throw UsageError("\(options.stateReset ? "--state-reset" : "--checkpoint") needs --state FILE (or --from STREAM)")
        }
        if options.state != nil && (options.format == .html || !options.explain.isEmpty) {
            throw UsageError("--state keeps records as they are written; \(options.format == .html ? "--format html draws its page" : "--explain tells its stories") at the end of a run")
        }
        return options
    }

    /// `--metrics`' address as given, once it has the form of one (the bind may still fail).
    private static func metricsAddress(_ text: String) throws -> String {
        guard text.hasPrefix("/") || text.hasPrefix("./")
              || text.lastIndex(of: ":").map({ UInt16(text[text.index(after: $0)...]) != nil }) == true else {
            throw UsageError("--metrics takes HOST:PORT, [V6]:PORT or a socket's path (/run/toastscript/metrics.sock), not '\(text)'")
        }
        return text
    }

    /// `--follow` reads one live file (docs/service.md, "Following a file"): no other input,
    /// no end to read to, and the follow clock.
    private static func checkFollow(_ options: inout CommandLineOptions) throws {
        guard let follow = options.follow else { return }
        if follow.isEmpty || follow == "-" { throw UsageError("--follow takes a file's path (stdin cannot be followed through rotations)") }
        if options.events != nil { throw UsageError("--follow reads the events; --events cannot be given with it") }
        if options.redis.from != nil { throw UsageError("--follow reads the events; --from cannot be given with it") }
        if options.redis.once { throw UsageError("--follow never reaches an end; --once cannot be given with it") }
        try takeFollowClock(&options, clockRefused: { "--follow reads on the follow clock; --clock \($0) cannot be given with it" },
                            endless: "--follow never reaches an end")
    }

    /// `--multiline` joins lines of a log's text: JSON lines, journal entries and Redis
    /// entries are whole events already.
    private static func checkMultiline(_ options: CommandLineOptions) throws {
        guard options.multiline else { return }
        if options.journal != nil { throw UsageError("--multiline joins lines of a log; the journal's entries are whole events") }
        if options.redis.from != nil { throw UsageError("--multiline joins lines of a log; --from's entries are whole events") }
        if options.input == .json {
            throw UsageError("--multiline joins lines of a log; JSON lines are whole events (give --input text, syslog or logfmt)")
        }
    }

    /// A live input (`--follow`, a live `--journal`): the follow clock, and nothing that waits
    /// for the end of the run.
    private static func takeFollowClock(_ options: inout CommandLineOptions, clockRefused: (String) -> String,
                                        endless: String) throws {
        if options.clockGiven && options.clock != .follow { throw UsageError(clockRefused(options.clock.rawValue)) }
        if options.format == .html || !options.explain.isEmpty {
            throw UsageError("\(endless); \(options.format == .html ? "--format html draws its page" : "--explain tells its stories") at the end of a run")
        }
        options.clock = .follow
        options.clockGiven = true
    }

    /// `--journal` reads the systemd journal (docs/service.md, "Reading the journal"): no
    /// other input, entries of a form of their own, and live the follow clock.
    private static func checkJournal(_ options: inout CommandLineOptions) throws {
        guard let journal = options.journal else { return }
        for (name, given) in [("--events", options.events != nil), ("--follow", options.follow != nil),
                              ("--from", options.redis.from != nil), ("--input", options.inputGiven)] where given {
            throw UsageError("--journal reads the journal's entries; \(name) cannot be given with it")
        }
        if journal.directory != nil && !journal.files.isEmpty {
            throw UsageError("--journal-dir and --journal-file name two journals; give one of them")
        }
        if options.redis.once { return }
        try takeFollowClock(&options, clockRefused: { "--journal reads new entries on the follow clock; --clock \($0) needs --once" },
                            endless: "--journal without --once never reaches an end")
    }

    /// The Redis options go together (docs/scale.md): a server, and a stream to read or to
    /// write; a consumer group's run keeps its state in Redis and reads on its own clock.
    private static func checkRedis(_ options: inout CommandLineOptions) throws {
        let redis = options.redis
        guard let server = redis.server else {
            let given: [(String, Bool)] = [("--from", redis.from != nil), ("--group", redis.group != nil),
                                           ("--consumer", redis.consumer != nil), ("--to", redis.to != nil),
                                           ("--once", redis.once && options.journal == nil), ("--redis-timeout", redis.timeoutGiven),
                                           ("--to-maxlen", redis.toMaxLength != nil), ("--trim", redis.trim)]
            if let (name, _) = given.first(where: { $0.1 }) { throw UsageError("\(name) needs --redis URL|SOCKET") }
            return
        }
        guard RedisAddress(server) != nil else {
            throw UsageError("--redis takes redis://HOST[:PORT][/DB] or a Unix socket's path (/run/redis/redis.sock), not '\(server)'")
        }
        guard redis.from != nil || redis.to != nil else { throw UsageError("--redis needs --from STREAM or --to STREAM") }
        if redis.from == nil {
            if let name = [("--group", redis.group != nil), ("--consumer", redis.consumer != nil), ("--once", redis.once),
                           ("--trim", redis.trim)]
                .first(where: { $0.1 })?.0 {
                throw UsageError("\(name) needs --from STREAM")
            }
        } else {
            guard redis.group != nil, redis.consumer != nil else {
                throw UsageError("--from needs --group GROUP and --consumer NAME (the same each time the consumer starts)")
            }
            if options.events != nil { throw UsageError("--from reads the events; --events cannot be given with it") }
            if options.state != nil {
                throw UsageError("--from keeps the state in Redis (\(redis.stateKey)); --state cannot be given with it")
            }
            if options.clockGiven {
                throw UsageError("--from reads on the stream clock with --once, and follows the stream's clock without it; --clock cannot be given with it")
            }
            if options.format == .html || !options.explain.isEmpty {
                throw UsageError("--from commits records as they are written; \(options.format == .html ? "--format html draws its page" : "--explain tells its stories") at the end of a run")
            }
            options.clock = redis.once ? .stream : .follow
            options.clockGiven = true
        }
        if redis.to == nil, redis.toMaxLength != nil { throw UsageError("--to-maxlen needs --to STREAM") }
        if redis.to != nil {
            if options.output != nil { throw UsageError("--to writes the records to a stream; --output cannot be given with it") }
            if options.format == .html { throw UsageError("--to writes one entry a record; --format html draws one page") }
            if !options.formatGiven { options.format = .json }
        }
    }

    /// "did you mean '--state' or '--stats'?" for a mistyped option, compared without its dashes.
    static func suggestion(for name: String) -> String? {
        NameSuggestion.question(for: name, among: specs.map(\.name), ignoringPrefix: "--", quote: { "'\($0)'" })
    }

    /// `--help`: the usage line, one line per option, and the stages `config{ stages = ... }`
    /// can place (a custom build's own among them).
    package static func helpText(programName name: String = "toastscript", stages: [String] = BuiltInStage.defaultOrder) -> String {
        var lines = [
            "\(name): run toast events through Lua rules and a toast host, and print what users would see.",
            "",
            usage(programName: name),
            "       \(name) diff OLD NEW [OPTIONS] < events.jsonl   (see '\(name) diff --help')",
            "",
            "Options:",
        ]
        let left = specs.map { spec in
            let indent = spec.short != nil || !spec.name.hasPrefix("--") ? "" : "    "
            return indent + (spec.short.map { $0 + ", " } ?? "") + spec.name + (spec.value.map { " " + $0 } ?? "")
        }
        let width = left.map(\.count).max() ?? 0
        for (spec, left) in zip(specs, left) {
            lines.append("  " + left + String(repeating: " ", count: width - left.count + 2) + spec.help)
        }
        lines += [
            "",
            "Stages (config{ stages = {...} } places them; the built-in ones in their default order):",
            "  " + (stages + [BuiltInStage.host]).joined(separator: " "),
            "",
            "Examples:",
            "  \(name) rules.lua < events.jsonl                  what users would see, as text",
            "  \(name) --format json --stats rules.lua --events events.jsonl",
            "  tail -f app.log | \(name) --input text rules.lua  a live log (wall clock)",
            "  \(name) --follow /var/log/syslog --input syslog --multiline rules.lua",
            "  \(name) --desktop --clock replay --speed 10 rules.lua < session.jsonl",
            "  \(name) --verbose --dead-letter bad.jsonl < events.jsonl",
            "  \(name) --explain t42 rules.lua < events.jsonl    why t42 was shown or dropped",
            "  \(name) --format html rules.lua < events.jsonl > run.html",
            "  \(name) diff rules.lua new-rules.lua < events.jsonl",
            "  \(name) --redis /run/redis/redis.sock --from events --group toasts --consumer c1 --to records rules.lua",
            "",
            "Exit status:",
            "  0    all went well",
            "  1    a failure: a script that does not load, output that cannot be written,",
            "       a --state file that does not fit the run or cannot be saved,",
            "       a Redis that cannot be used (or stays away past --redis-timeout)",
            "  2    a usage error",
            "  65   the run finished, but input lines were rejected or script calls failed",
            "       (also: input that looks binary)",
            "  130  stopped by SIGINT (Ctrl-C); every record so far was written",
            "  143  stopped by SIGTERM; every record so far was written",
            "",
            "Documentation: toastscript(1) and toastscript-lua(7) (Scripts/install installs them);",
            "docs/events.md, docs/lua.md and docs/plugins.md in the source tree.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

extension CommandLineOptions {
    /// How messages name the `index`th `-e` chunk (from 0): `-e`, then `-e#2`, `-e#3`, …
    static func inlineChunkName(_ index: Int) -> String {
        index == 0 ? "-e" : "-e#\(index + 1)"
    }
}
