#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore
import ToastIO

/// The scripting front end: one Lua 5.4 state that runs every script once at start (the
/// loader: `load`, then `loaded` gives the value a run is built from) and then runs their
/// functions for the run's adapters: `LuaRule` in the rules stage, `LuaHooks` after each
/// record, `LuaParseFunction` in front of the decoder, and role `announce` functions for the
/// announce stage (docs/lua.md). It holds no pipeline: each call gets the context it runs in.
///
/// Scripts talk to it through globals (`config`, `rule`, `role`, `on`, `emit`, `now`,
/// `log`). Swift functions behind them never raise a Lua error themselves: they hand the
/// message to a C trampoline, so no `longjmp` crosses a Swift frame. Every call into Lua
/// runs protected, within the instruction budget and the memory cap.
package final class LuaRuntime {
    let state: LuaState
    package let options: LuaOptions
    /// What `config{}` and `role()` built so far.
    var settingsBuilder: SettingsBuilder
    /// The rules the scripts registered, in order.
    var ruleFunctions: [(name: String, reference: Int32, place: String)] = []
    /// `on(...)` functions by event: `present`, `dismiss`, `drop`, `end` and `restore`.
    var hooks: [String: [(reference: Int32, place: String)]] = [:]
    /// The script's `parse` function, if it set one (one a run).
    var parseFunction: (reference: Int32, place: String)?
    package let generatedIDs: GeneratedIDs
    /// Toasts emitted while the scripts loaded; they enter when the run starts.
    var emittedWhileLoading: [Toast] = []
    /// The scripts' pending timers (`after`), by token; and those set while loading, with
    /// their delay, to be set when the run starts.
    var scriptTimers: [Int: LuaTimer] = [:]
    var nextTimerToken = 1
    var timersWhileLoading: [(token: Int, delay: Microseconds)] = []
    /// What `keptStore(during:)` is reading the store for, and the key paths it reported at a
    /// checkpoint (each once a run).
    var storeReportMoment = "reload"
    var storeProblemsReported: Set<String> = []
    /// The call running now: the context it runs in (nil while loading).
    private(set) var currentCall: ScriptCall?
    /// Receives each script call that failed.
    private let reportError: (ScriptError) -> Void
    /// Receives what `log` and `print` write.
    let writeLog: (String) -> Void
    /// Receives warnings that are not errors (a rule's likely misspelt field).
    let warn: (String) -> Void
    /// The rules' extra field names already looked at for a misspelling, by the rule's function.
    /// A short list, scanned: a rule that writes an extra field does so for every toast, and
    /// comparing a number and a short name costs less than hashing a string each time.
    private var namesCheckedForTypos: [(rule: Int32, name: String)] = []
    /// The stream clock's time while the scripts load: 0 for a new run, the clock's time at a
    /// reload or at the saved run a restored one goes on from (`now()` at the top level).
    package var clockAtLoad: Microseconds = 0
    /// Whether the run is over (`on("finish")` hooks run): nothing can be emitted or timed.
    var isFinished = false
    /// The warnings of likely typos in the settings given so far (each is given once).
    var nearNameWarnings: [String] = []

    /// A runtime whose `config{...}` may place and configure the stages of `registry`; a
    /// failed script call goes to `reportError`, what `log` writes to `writeLog`.
    package init(options: LuaOptions = LuaOptions(), registry: StageRegistry = .builtIn,
                generatedIDs: GeneratedIDs = GeneratedIDs(),
                reportError: @escaping (ScriptError) -> Void = { _ in }, writeLog: @escaping (String) -> Void = { _ in },
                warn: @escaping (String) -> Void = { _ in }) throws {
        try registry.check()
        guard let state = LuaState(memoryLimit: options.memoryLimitMB * 1_048_576) else {
            throw ScriptLoadError(message: "cannot create a Lua state")
        }
        self.state = state
        self.options = options
        self.settingsBuilder = SettingsBuilder(plugins: registry)
        self.generatedIDs = generatedIDs
        self.reportError = reportError
        self.writeLog = writeLog
        self.warn = warn
        state.owner = self
        state.fastPath = options.fastPath
        // The plain path: a table of its own for every toast, as when a rule may keep it.
        if !options.fastPath { state.rulesMayKeepTheirTable = true }
        if options.unsafe { state.openAllLibraries() } else { state.openSandboxedLibraries() }
        installGlobals()
        installTimeZone()
        installProxyMetatable()
        state.collectGenerationally()
    }

    deinit {
        // Closing the state runs the proxies' `__gc`, which must not reach this object.
        state.owner = nil
    }

    /// The settings `config{}` and `role()` built so far.
    package var settings: PipelineSettings { settingsBuilder.settings }

    /// What the scripts set up, to build a run from (see `LoadedScripts`).
    package var loaded: LoadedScripts {
        LoadedScripts(settings: settings, rules: rules,
                      hooks: hooks.keys.contains(where: { !["end", "restore", "reload", "finish"].contains($0) }) ? LuaHooks(runtime: self) : nil,
                      hasParseFunction: parseFunction != nil, emittedWhileLoading: emittedWhileLoading,
                      generatedIDs: generatedIDs, functions: self, runtime: self)
    }

    /// The rules the scripts registered, in order, ready for a rules stage.
    package var rules: [any ToastRule] {
        ruleFunctions.map { LuaRule(name: $0.name, reference: $0.reference, place: $0.place, runtime: self) }
    }

    /// The Lua library's release, e.g. `Lua 5.4.6`.
    package static var luaRelease: String { LuaState.release }

    var budget: Int32 { Int32(clamping: options.instructionBudget) }

    // MARK: Loading

    /// Runs one script file's top level. Throws `FILE:LINE: message` when it does not load
    /// or its top level fails.
    /// The message shows the line it names beneath it.
    package func load(scriptAt path: String) throws {
        let failed = { (message: String) in
            ScriptSourceLine.loadError(message, chunkName: path) { ScriptSourceLine.line($0, ofFileAt: path) }
        }
        if let message = state.loadFile(path, allowBinary: options.unsafe) {
            throw failed(message)
        }
        if case .failure(let message) = state.call(argumentCount: 0, resultCount: 0, budget: budget, place: path) {
            throw failed(message)
        }
    }

    /// Runs a chunk of Lua text, named `name` in messages (`-e`, tests).
    package func load(source: String, name: String) throws {
        let failed = { (message: String) in
            ScriptSourceLine.loadError(message, chunkName: name) { ScriptSourceLine.line($0, of: source) }
        }
        let status = state.load(source, name: "=\(name)")
        guard status == .loaded else {
            let message = state.string(at: -1) ?? "cannot load \(name)"
            state.pop()
            throw failed(message)
        }
        if case .failure(let message) = state.call(argumentCount: 0, resultCount: 0, budget: budget, place: name) {
            throw failed(message)
        }
    }

    // MARK: Calls into Lua

    /// Runs `body` as a call made in `call`'s context: `now`, `emit` and error reports see it.
    func running<Result>(in call: ScriptCall, _ body: () -> Result) -> Result {
        let outer = currentCall
        currentCall = call
        defer { currentCall = outer }
        return body()
    }

    /// The message of the last rule that failed in `runRules`, for the trace of a rule run
    /// alone (`LuaRule.apply`); taken with `takeRuleFailure()`.
    private var lastRuleFailure: String?

    func takeRuleFailure() -> String? {
        defer { lastRuleFailure = nil }
        return lastRuleFailure
    }

    /// Runs `rules` on `toast` in order until one drops it; returns that rule and its note,
    /// or nil when all kept it.
    func runRules(_ rules: LuaRuleGroup, on toast: inout Toast, context: StageContext) -> (rule: LuaRule, note: String?)? {
        running(in: ScriptCall(context: context, inputLine: context.inputLine)) { runRules(rules, on: &toast) }
    }

    /// One call into Lua runs the rules for as long as they keep the toast as it is
    /// (`LuaState.runRules`); a rule that does anything else has its results read here, and
    /// the rest run from the next one on.
    private func runRules(_ group: LuaRuleGroup, on toast: inout Toast) -> (rule: LuaRule, note: String?)? {
        let top = state.top
        state.ruleRunsActive += 1
        defer {
            state.setTop(top)
            state.ruleRunsActive -= 1
            // The rules' table is done with this toast; when no rule can have kept it, it
            // lets go of the toast now, so the stages after this one change the toast in place.
            if state.ruleRunsActive == 0 { state.releaseRuleToast() }
        }
        let handler = state.pushMessageHandler()
        var next = 0
        while next < group.rules.count {
            // The stored settings' roles (`settings` would copy every setting), read again
            // after a rule that stopped the run: it may have changed a role.
            let roles = settingsBuilder.settings.roles
            let proxy = state.pushRuleProxy(toast, roles: roles)
            let table = state.top
            switch state.runRules(group.references, from: next, table: table, handler: handler, budget: budget) {
            case .allKept:
                return nil
            case .failed(let position, let status):
                let rule = group.rules[position]
                let message = state.failureMessage(status: status, place: rule.place)
                lastRuleFailure = message
                report(message, origin: ruleName(rule), source: ruleSource(rule))
                next = position + 1
            case .returned(let position):
                let rule = group.rules[position]
                if case .drop(let note) = takeResults(of: rule, at: table + 1, proxy: proxy, table: table, toast: &toast,
                                                      roles: roles) {
                    return (rule, note)
                }
                next = position + 1
            }
            // The next rule gets the same table, showing the toast as this one left it (already
            // so when nothing was written and the toast was not replaced). After the last rule
            // only a table a script may have kept needs it: any other is reset for the next
            // toast before anything reads it (`pushRuleProxy`).
            let anotherRuleFollows = next < group.rules.count
            if (anotherRuleFollows || state.rulesMayKeepTheirTable) && (!proxy.isUnwritten || !proxy.toast.sharesStorage(with: toast)) {
                state.reset(proxy, at: table, showing: toast)
            }
            state.setTop(handler)
        }
        return nil
    }

    /// What `rule` returned, the two values at `first`, for `toast` and its table (`proxy`, at
    /// `table`): the toast kept (with the changes made to the table, or replaced by a table
    /// returned) or dropped. A result that is none of these is a script error: reported, and
    /// the toast kept as it was. (C decides only that a rule kept the toast as it was, most
    /// rules on most toasts, without a return into Swift for each rule; all else is judged here.)
    private func takeResults(of rule: LuaRule, at first: Int32, proxy: ToastProxy, table: Int32, toast: inout Toast,
                             roles: RoleTable) -> RuleOutcome {
        do {
            switch state.type(at: first) {
            case .nilValue where state.type(at: first + 1) == .nilValue,
                 .boolean where state.isTrue(at: first) && state.type(at: first + 1) == .nilValue,
                 // The rule returned its own toast: kept, with its changes.
                 .table where state.rawEqual(first, table) && state.type(at: first + 1) == .nilValue:
                // Most rules keep the toast without writing to it: nothing to read back.
                if !proxy.isUnwritten {
                    toast = try state.toast(from: proxy, at: table, original: toast, defaults: keepDefaults, roles: roles)
                    lookForTypos(in: proxy.touched, of: rule)
                }
            case .boolean where !state.isTrue(at: first):
                switch state.type(at: first + 1) {
                case .nilValue: return .drop(note: nil)
                case .string: return .drop(note: state.string(at: first + 1))
                default: throw LuaBridgeError("a rule that returns false may add a string, not \(state.typeName(at: first + 1))")
                }
            case .table where state.type(at: first + 1) == .nilValue:
                toast = try state.toast(fromTableAt: first, original: toast, defaults: showDefaults, roles: roles)
            default:
                let second = state.type(at: first + 1) == .nilValue ? "" : ", \(state.typeName(at: first + 1))"
                throw LuaBridgeError("rule returned \(state.typeName(at: first))\(second); expected nothing, true, false (and a reason) or a table")
            }
        } catch {
            let reason = (error as? LuaBridgeError)?.message ?? "\(error)"
            let message = "\(rule.place): \(ruleName(rule) == nil ? "rule: " : "")\(reason)"
            lastRuleFailure = message
            report(message, origin: ruleName(rule), source: ruleSource(rule))
        }
        return .keep
    }

    /// A name a rule wrote that is no field becomes an extra field; one close to a field's name
    /// is most likely a typo (`t.rol = "error"`), so it gets one warning, the first time per
    /// rule and name.
    private func lookForTypos(in touched: [TouchedName], of rule: LuaRule) {
        for name in touched where name.field == nil {
            guard !namesCheckedForTypos.contains(where: { $0.rule == rule.reference && $0.name == name.name }),
                  namesCheckedForTypos.count < 256, name.name != LuaState.madeByName else { continue }
            namesCheckedForTypos.append((rule.reference, name.name))
            guard let question = NameSuggestion.question(for: name.name, among: Self.fieldNames) else { continue }
            warn("rule \(quoted(rule.name)): field \(quoted(name.name)) is not a known field; \(question) (kept as an extra field)")
        }
    }

    private static let fieldNames = ToastField.allCases.map(\.name)

    /// How an error names a rule: `rule "name"`; nil for a rule without a name, which its
    /// place (`FILE:LINE`, where the message starts) names.
    private func ruleName(_ rule: LuaRule) -> String? {
        rule.name == rule.place ? nil : "rule \(quoted(rule.name))"
    }

    /// How `--stats` counts a rule's errors: by its name, or its place.
    private func ruleSource(_ rule: LuaRule) -> String {
        ruleName(rule) ?? "rule \(rule.place)"
    }

    /// A kept toast's table holds every field it had, so a field that is gone was removed.
    private var keepDefaults: Toast {
        var defaults = showDefaults
        defaults.durationMicros = nil
        return defaults
    }

    /// What a show event without fields would have (a replacement starts from it).
    var showDefaults: Toast {
        settings.queue.show(id: "", message: "")
    }

    /// Calls the function and arguments on the stack; reports a failure as a script error of
    /// `source` (how `--stats` counts it).
    func callFailing(argumentCount: Int32, resultCount: Int32, place: String, source: String) -> LuaCallResult {
        let result = state.call(argumentCount: argumentCount, resultCount: resultCount, budget: budget, place: place)
        if case .failure(let message) = result { report(message, source: source) }
        return result
    }

    /// The message of the last settings function (`announce`, a digest's `message`, `when`)
    /// that failed, for the stage's trace; taken with `takeFailure()`.
    private var lastFunctionFailure: String?

    package func takeFailure() -> String? {
        defer { lastFunctionFailure = nil }
        return lastFunctionFailure
    }

    /// Reports a failed call of a settings function, keeping its message for the stage.
    private func reportFunctionFailure(_ message: String, origin: String? = nil, source: String) {
        lastFunctionFailure = message
        report(message, origin: origin, source: source)
    }

    /// Reports one script error, with the input line of the call it happened in (or what it
    /// ran for, `timer` or `end`); `origin` names what failed (`rule "name"`) when the
    /// message's place alone does not, `source` is how `--stats` counts it.
    func report(_ message: String, origin: String? = nil, source: String, during: String? = nil) {
        reportError(ScriptError(message: message, inputLine: currentCall?.inputLine ?? 0, origin: origin, source: source,
                                during: during ?? currentCall?.during))
    }

    /// Runs the hooks for a record (docs/lua.md) in `context`.
    func runHooks(for record: Record, context: StageContext) {
        guard let functions = hooks[record.kindName], !functions.isEmpty else { return }
        // An error names the toast's input line (the line during which a made toast came in).
        let line = record.toast.inputLine > 0 ? record.toast.inputLine : context.inputLine
        running(in: ScriptCall(context: context, inputLine: line)) { runHooks(functions, for: record) }
    }

    private func runHooks(_ functions: [(reference: Int32, place: String)], for record: Record) {
        let info = JSONValue.object(record.members)
        let top = state.top
        defer { state.setTop(top) }
        for function in functions {
            state.pushReference(function.reference)
            state.pushProxy(record.toast, roles: settings.roles)
            state.push(info)
            _ = callFailing(argumentCount: 2, resultCount: 0, place: function.place, source: "on \(record.kindName)")
        }
    }

    /// Calls a script function of a toast that should return a string (a role's `announce`).
    private func callForText(_ reference: Int32, place: String, toast: Toast) -> String? {
        let top = state.top
        defer { state.setTop(top) }
        state.pushReference(reference)
        state.pushProxy(toast, roles: settings.roles)
        let result = state.call(argumentCount: 1, resultCount: 1, budget: budget, place: place)
        if case .failure(let message) = result {
            reportFunctionFailure(message, source: "announce \(place)")
            return nil
        }
        guard let text = state.string(at: -1) else {
            reportFunctionFailure("announce function at \(place) returned \(state.typeName(at: -1)), not a string",
                                  source: "announce \(place)")
            return nil
        }
        return text
    }
}

extension LuaRuntime: ScriptFunctionRunner {
    package func text(calling function: ScriptFunction, with toast: Toast, context: StageContext) -> String? {
        running(in: ScriptCall(context: context, inputLine: context.inputLine)) {
            callForText(function.number, place: function.place, toast: toast)
        }
    }

    /// A stage's `when` function: true or false (nil reads as false); anything else, or an
    /// error, is a script error of that stage, and the toast skips it.
    package func matches(calling function: ScriptFunction, with toast: Toast, stage: String, setting: String,
                         context: StageContext) -> Bool? {
        running(in: ScriptCall(context: context, inputLine: toast.inputLine > 0 ? toast.inputLine : context.inputLine)) {
            let top = state.top
            defer { state.setTop(top) }
            let origin = "stage \(quoted(stage)) \(setting)"
            state.pushReference(function.number)
            state.pushProxy(toast, roles: settings.roles)
            let result = state.call(argumentCount: 1, resultCount: 1, budget: budget, place: function.place)
            if case .failure(let message) = result {
                report(message, origin: origin, source: "\(setting) \(stage)")
                return nil
            }
            switch state.type(at: -1) {
            case .boolean: return state.isTrue(at: -1)
            case .nilValue: return false
            default:
                report("\(function.place): \(setting) returned \(state.typeName(at: -1)); expected true or false", origin: origin,
                       source: "\(setting) \(stage)")
                return nil
            }
        }
    }

    /// A digest's `message` function, given the list of the held toasts' tables: a string is
    /// the message; a table gives the digest's fields (`message` among them) over `base`.
    package func digest(calling function: ScriptFunction, with toasts: [Toast], base: Toast, context: StageContext) -> Toast? {
        running(in: ScriptCall(context: context, inputLine: context.inputLine)) {
            let top = state.top
            defer { state.setTop(top) }
            let source = "digest message \(function.place)"
            guard state.reserve(Int32(toasts.count) + 4) else { return nil }
            state.pushReference(function.number)
            state.pushTable(arrayCount: Int32(toasts.count), fieldCount: 0)
            for (index, toast) in toasts.enumerated() {
                state.pushProxy(toast, roles: settings.roles)
                state.rawSet(element: index + 1, ofTableAt: -2)
            }
            let result = state.call(argumentCount: 1, resultCount: 1, budget: budget, place: function.place)
            if case .failure(let message) = result {
                reportFunctionFailure(message, source: source)
                return nil
            }
            if state.type(at: -1) == .string, let message = state.string(at: -1), !message.isEmpty {
                var digest = base
                digest.message = message
                return digest
            }
            if state.type(at: -1) == .table {
                do {
                    var digest = try state.toast(fromTableAt: -1, original: base, defaults: base, roles: settings.roles)
                    for member in base.extra where !digest.extra.contains(where: { $0.name == member.name }) {
                        digest.extra.append(member)
                    }
                    return digest
                } catch {
                    reportFunctionFailure("\(function.place): digest message: \((error as? LuaBridgeError)?.message ?? "\(error)")",
                                          source: source)
                    return nil
                }
            }
            reportFunctionFailure("\(function.place): digest message returned \(state.typeName(at: -1)); "
                                  + "expected a non-empty string or a table", source: source)
            return nil
        }
    }
}

/// What a script call may see of the run: the pipeline's clock and its way in for emitted
/// toasts (the context), and the input line the call is for.
struct ScriptCall {
    let context: StageContext
    let inputLine: Int
    /// What the call runs for, when not an input line: `timer`, `end`.
    var during: String? = nil
}
