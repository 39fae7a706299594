import ToastCore

/// The scripts' `on("present" | "dismiss" | "drop", fn)` hooks, after each record is written,
/// in the pipeline's own context (so a hook's `emit` enters at the first stage).
final class LuaHooks: RecordObserver {
    let runtime: LuaRuntime

    init(runtime: LuaRuntime) {
        self.runtime = runtime
    }

    func observe(_ record: Record, context: StageContext) {
        runtime.runHooks(for: record, context: context)
    }
}
