/// What scripts do on the run's clock besides rules and hooks: their own timers (Lua's
/// `after`) and what they do once the input has ended (`on("end")`). The pipeline fires their
/// timers in time order with its own, so a script's timer sees the same clock as a stage's;
/// the drain runs them, `--no-drain` drops them.
package protocol ScriptClock: AnyObject {
    /// The timer `token` (set with `Pipeline.scheduleScriptTimer`) is due.
    func scriptTimerFired(token: Int, context: StageContext)
    /// The input has ended (not by a signal), before the drain.
    func inputEnded(context: StageContext)
    /// A saved run was restored (`--state`), before its first event: the scripts' timers were
    /// not kept, and `on("restore")` hooks may set them again.
    func stateRestored(context: StageContext)
    /// The scripts were loaded anew (SIGHUP) and this is the new scripts' clock: `on("reload")`
    /// hooks run, before the next event.
    func scriptsReloaded(context: StageContext)
    /// How many of its timers are still to run.
    var pendingTimers: Int { get }
    /// Whether the timer `token` is still to run (not cancelled, not fired).
    func isPending(token: Int) -> Bool
    /// The run is over (after the drain and every ending, the last record written): the
    /// scripts' `on("finish")` hooks run with its totals. Nothing they do can add a toast.
    func runFinished(_ totals: RunTotals, context: StageContext)
}
