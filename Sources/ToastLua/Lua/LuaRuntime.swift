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
    var registeredRules: [RegisteredRule] = []

    /// A rule as `rule(...)` registered it: a Lua function, or a table that never enters Lua.
    enum RegisteredRule {
        case function(name: String, reference: LuaReference, place: String)
        case declared(DeclaredRule)
    }
    /// `on(...)` functions by event (`recordHookEvents` and `clockHookEvents`).
    var hooks: [String: [(reference: LuaReference, place: String)]] = [:]
    /// The script's `parse` function, if it set one (one a run).
    var parseFunction: (reference: LuaReference, place: String)?
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
    var namesCheckedForTypos: [(rule: LuaReference, name: String)] = []
    /// The stream clock's time while the scripts load: 0 for a new run, the clock's time at a
    /// reload or at the saved run a restored one goes on from (`now()` at the top level).
    package var clockAtLoad: Microseconds = 0
    /// The events of `on(event, fn)`: hooks run after a record is written (`LuaHooks`), and
    /// hooks of the run's clock (`ScriptClock`: the input's end, a restore, a reload, the very end).
    static let recordHookEvents = ["present", "dismiss", "drop"]
    static let clockHookEvents = ["end", "restore", "reload", "finish"]

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
        state.shortcuts.isOn = options.fastPath
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
                      hooks: hooks.keys.contains(where: Self.recordHookEvents.contains) ? LuaHooks(runtime: self) : nil,
                      hasParseFunction: parseFunction != nil, emittedWhileLoading: emittedWhileLoading,
                      generatedIDs: generatedIDs, functions: self, runtime: self)
    }

    /// The rules the scripts registered, in order, ready for a rules stage.
    package var rules: [any ToastRule] {
        registeredRules.map { registered -> any ToastRule in
            switch registered {
            case .function(let name, let reference, let place): LuaRule(name: name, reference: reference, place: place, runtime: self)
            case .declared(let rule): rule
            }
        }
    }

    /// The Lua library's release, e.g. `Lua 5.4.6`.
    package static var luaRelease: String { LuaState.release }

    var budget: Int { options.instructionBudget }

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
    var lastRuleFailure: String?

    func takeRuleFailure() -> String? {
        defer { lastRuleFailure = nil }
        return lastRuleFailure
    }

    /// Calls the function and arguments on the stack; reports a failure as a script error of
    /// `source` (how `--stats` counts it).
    func callFailing(argumentCount: Int, resultCount: Int, place: String, source: String) -> LuaCallResult {
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

    private func runHooks(_ functions: [(reference: LuaReference, place: String)], for record: Record) {
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
    private func callForText(_ reference: LuaReference, place: String, toast: Toast) -> String? {
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
            callForText(LuaReference(raw: function.number), place: function.place, toast: toast)
        }
    }

    /// A stage's `when` or `spare` function (`setting`): true or false (nil reads as false);
    /// anything else, or an error, is a script error of that stage, and nil (the pipeline then
    /// skips the stage: a failed `when` does not take the toast, a failed `spare` spares it).
    package func matches(calling function: ScriptFunction, with toast: Toast, stage: String, setting: String,
                         context: StageContext) -> Bool? {
        running(in: ScriptCall(context: context, inputLine: toast.inputLine > 0 ? toast.inputLine : context.inputLine)) {
            let top = state.top
            defer { state.setTop(top) }
            let origin = "stage \(quoted(stage)) \(setting)"
            state.pushReference(LuaReference(raw: function.number))
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
            guard state.reserve(toasts.count + 4) else { return nil }
            state.pushReference(LuaReference(raw: function.number))
            state.pushTable(arrayCount: toasts.count, fieldCount: 0)
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
