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
