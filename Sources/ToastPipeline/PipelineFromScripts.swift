import ToastCore
import ToastLua

// Building a run from loaded scripts is the embedding library's: the Lua module loads scripts
// into a value (`LoadedScripts`) and knows nothing of how a pipeline is put together.
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
        attach(scriptClock: scripts.clock, timers: restoring ? [] : scripts.timersWhileLoading)
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
        attach(scriptClock: scripts.clock, timers: scripts.timersWhileLoading)
        for toast in scripts.emittedWhileLoading { emit(toast) }
        return orderChanged
    }
}
