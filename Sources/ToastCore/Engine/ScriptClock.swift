/// What scripts do on the run's clock besides rules and hooks: their own timers (Lua's
/// `after`) and what they do once the input has ended (`on("end")`). The pipeline fires their
/// timers in time order with its own, so a script's timer sees the same clock as a stage's;
/// the drain runs them, `--no-drain` drops them.
package protocol ScriptClock: AnyObject {
    /// The timer `token` (set with `Pipeline.scheduleScriptTimer`) is due.
    func scriptTimerFired(token: Int, context: StageContext)
    /// The input has ended (not by a signal), before the drain.
    func inputEnded(context: StageContext)
}
