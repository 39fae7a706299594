import ToastCore
import ToastIO

/// What loading the scripts made, fixed once they ran: the settings their `config{}` and
/// `role()` calls built, their rules and hooks, whether they set a `parse` function, and the
/// toasts they emitted while loading. A run is built from this value; the functions in it run
/// in the scripts' one Lua state, each in the context the pipeline gives it.
package struct LoadedScripts {
    package let settings: PipelineSettings
    /// The rules, in the order the scripts registered them, for the rules stage.
    package let rules: [any ToastRule]
    /// The `on(...)` hooks, to run after each record; nil when there are none.
    package let hooks: (any RecordObserver)?
    package let hasParseFunction: Bool
    /// Toasts `emit`ted while loading: they enter when the run starts.
    package let emittedWhileLoading: [Toast]
    /// The `e<N>` counter the scripts and the pipeline share.
    package let generatedIDs: GeneratedIDs
    /// Runs the functions that settings hold (a role's `announce`).
    package let functions: any ScriptFunctionRunner
    let runtime: LuaRuntime

    /// What the scripts keep in `store`, for the next Lua state (a reload); what cannot be
    /// kept is reported as a script error naming its key path, and left out.
    package func keptStore(during moment: String = "reload") -> StoredValue { runtime.keptStore(during: moment) }

    /// The scripts' timers and end-of-input hooks, for the pipeline's clock.
    package var clock: any ScriptClock { runtime }

    /// The `after` timers the scripts set while they loaded, each with its delay: due that long
    /// after the run's start, a reload, or the clock of the saved run a restored one goes on from.
    package var timersWhileLoading: [(token: Int, delay: Microseconds)] { runtime.timersWhileLoading }

    /// The `parse` function in front of the decoder, running in `context` (the pipeline's
    /// entry context: its `emit` enters at the first stage); nil when no script set one.
    package func parser(in context: StageContext) -> (any LineParser)? {
        hasParseFunction ? LuaParseFunction(runtime: runtime, context: context) : nil
    }
}

extension Pipeline {
    /// A pipeline for loaded scripts: the stages of `registry` in the order the settings give,
    /// the scripts' rules and hooks, and the toasts they emitted and timers they set while
    /// loading (let in now). `restoring`: a saved run is restored into it next (`--state`), so
    /// what the scripts emitted and set while loading was let in by the run that saved it.
    package convenience init(scripts: LoadedScripts, registry: StageRegistry = .builtIn, output: any RecordWriter,
                            tracer: (any TraceWriter)? = nil, restoring: Bool = false) throws {
        let stages = try registry.makeStages(settings: scripts.settings, rules: RulesStage(rules: scripts.rules),
                                             functions: scripts.functions)
        self.init(settings: scripts.settings, stages: stages, output: output, generatedIDs: scripts.generatedIDs,
                  tracer: tracer, observers: scripts.hooks.map { [$0] } ?? [])
        scriptFunctions = scripts.functions
        attach(scriptClock: scripts.runtime, timers: restoring ? [] : scripts.runtime.timersWhileLoading)
        if !restoring {
            for toast in scripts.emittedWhileLoading { emit(toast) }
        }
    }

    /// Reloads the run with scripts loaded anew (SIGHUP): their rules, roles, hooks and the
    /// settings of the stages in place replace the old ones, what the stages and the host hold
    /// stays, and the toasts they emitted while loading come in now. Returns whether the new
    /// settings ask for another order of stages, which waits for a restart.
    package func reload(scripts: LoadedScripts, registry: StageRegistry = .builtIn) throws -> Bool {
        let stages = try registry.makeStages(settings: scripts.settings, rules: RulesStage(rules: scripts.rules),
                                             functions: scripts.functions)
        let orderChanged = reload(settings: scripts.settings, stages: stages, observers: scripts.hooks.map { [$0] } ?? [])
        scriptFunctions = scripts.functions
        attach(scriptClock: scripts.runtime, timers: scripts.runtime.timersWhileLoading)
        for toast in scripts.emittedWhileLoading { emit(toast) }
        return orderChanged
    }
}
