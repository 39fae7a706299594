import ToastCore

/// `after(seconds, fn)` and the hooks of the run's clock, `on("end" | "restore" | "reload" |
/// "finish", fn)`: a script's own timers, and what it does at the input's end, when a saved run
/// is restored, when the scripts are reloaded and when the run is over (`ScriptClock`). A timer
/// runs `fn()` once, `seconds` later, under the same budget and memory cap as a rule;
/// `handle:cancel()` stops it. A timer set while the scripts load is due that long after the
/// clock's start (or after a reload, or the restored clock).
struct LuaTimer {
    /// The function, in the registry.
    let reference: LuaReference
    /// `FILE:LINE` of the `after` call: how errors and `--stats` name the timer.
    let place: String
}

extension LuaRuntime: ScriptClock {
    /// `after(seconds, fn)`: a handle whose `cancel` stops the timer.
    func after() -> LuaResults {
        if isFinished { return raise("after cannot be called in on(\"finish\"): the run is over") }
        guard state.type(at: 1) == .number else {
            return raise("after needs a number of seconds > 0, not \(state.typeName(at: 1))")
        }
        let seconds = state.number(at: 1)
        guard seconds > 0, let delay = StreamTime.microseconds(fromSeconds: seconds), delay > 0 else {
            return raise("after needs a number of seconds > 0, not \(seconds)")
        }
        guard state.type(at: 2) == .function else {
            return raise("after expects (seconds, function), not a \(state.typeName(at: 2)) for the function")
        }
        let place = state.callerPlace()
        state.pushCopy(of: 2)
        let token = nextTimerToken
        nextTimerToken += 1
        scriptTimers[token] = LuaTimer(reference: state.makeReference(), place: place)
        if let call = currentCall {
            call.context.pipeline.scheduleScriptTimer(token: token, at: call.context.nowMicros + delay)
        } else {
            timersWhileLoading.append((token, delay))
        }
        // The handle: { cancel = <function of this token> }.
        state.pushTable(fieldCount: 1)
        state.push(token)
        state.pushFunction({ L in LuaRuntime.from(L)?.cancelTimer().raw ?? 0 }, upvalueCount: 1)
        state.setField("cancel")
        return 1
    }

    /// `handle:cancel()`: the timer of the function's upvalue does not run; a second cancel,
    /// or one after it ran, does nothing.
    private func cancelTimer() -> LuaResults {
        let token = state.integer(inUpvalue: 2)
        if let timer = scriptTimers.removeValue(forKey: token) { state.release(timer.reference) }
        return 0
    }

    package func scriptTimerFired(token: Int, context: StageContext) {
        guard let timer = scriptTimers.removeValue(forKey: token) else { return }
        defer { state.release(timer.reference) }
        running(in: ScriptCall(context: context, inputLine: context.inputLine, during: "timer")) {
            let top = state.top
            defer { state.setTop(top) }
            state.pushReference(timer.reference)
            _ = callFailing(argumentCount: 0, resultCount: 0, place: timer.place, source: "timer \(timer.place)")
        }
    }

    package func inputEnded(context: StageContext) {
        runHooks("end", context: context)
    }

    package func stateRestored(context: StageContext) {
        runHooks("restore", context: context)
    }

    package func scriptsReloaded(context: StageContext) {
        runHooks("reload", context: context)
    }

    package var pendingTimers: Int { scriptTimers.count }

    package func isPending(token: Int) -> Bool {
        scriptTimers[token] != nil
    }

    /// `on("finish", fn)`: `fn(totals)`, once, with the run's totals; `emit` and `after` there
    /// are script errors (the run is over).
    package func runFinished(_ totals: RunTotals, context: StageContext) {
        isFinished = true
        runHooks("finish", context: context) { self.pushTotals(totals) }
    }

    /// `{ toasts =, shown =, dropped = { STAGE = N, ... }, errors_shown =, errors_dropped =,
    /// rejected_lines = }`.
    private func pushTotals(_ totals: RunTotals) {
        state.pushTable(fieldCount: 6)
        for (name, value) in [("toasts", totals.toasts), ("shown", totals.shown), ("errors_shown", totals.errorsShown),
                              ("errors_dropped", totals.errorsDropped), ("rejected_lines", totals.rejectedLines)] {
            state.push(value)
            state.setField(name)
        }
        state.pushTable(fieldCount: totals.dropped.count)
        for (stage, count) in totals.dropped {
            state.push(count)
            state.setField(stage)
        }
        state.setField("dropped")
    }

    /// The `on(event)` hooks of the run's clock (`LuaRuntime.clockHookEvents`), in the order
    /// they were set; `pushArgument`, when given, pushes the one argument each gets.
    private func runHooks(_ event: String, context: StageContext, pushArgument: (() -> Void)? = nil) {
        guard let functions = hooks[event] else { return }
        running(in: ScriptCall(context: context, inputLine: 0, during: event)) {
            let top = state.top
            defer { state.setTop(top) }
            for function in functions {
                state.pushReference(function.reference)
                pushArgument?()
                _ = callFailing(argumentCount: pushArgument == nil ? 0 : 1, resultCount: 0, place: function.place,
                                source: "on \(event)")
            }
        }
    }
}
