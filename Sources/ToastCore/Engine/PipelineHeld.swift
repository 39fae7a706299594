/// The toasts the stages hold (`StageContext.hold()`): each kept by the pipeline under its
/// handle's serial until its stage releases or drops it, a `dismiss` cancels it, or the run
/// ends — so that every toast still ends exactly once, whichever way it goes.
extension Pipeline {
    func newHold(of toast: Toast?) -> HoldHandle {
        nextHoldSerial += 1
        // A stage holds at most the toast in hand in a call: a handle left from an earlier call
        // (one that was not returned as `.hold`) holds nothing.
        holdsInHand.removeAll(keepingCapacity: true)
        holdsInHand.append((nextHoldSerial, toast, false))
        return HoldHandle(serial: nextHoldSerial)
    }

    /// How many toasts the stages hold.
    package var heldCount: Int { held.count }

    func isHeld(_ handle: HoldHandle) -> Bool {
        held[handle.serial] != nil || holdsInHand.contains { $0.serial == handle.serial }
    }

    func heldToast(_ handle: HoldHandle) -> Toast? {
        held[handle.serial]?.toast ?? holdsInHand.first { $0.serial == handle.serial }?.toast
    }

    /// Changes a held toast (`StageContext.changeHeld`), traced as a change of its stage.
    func changeHeld(_ handle: HoldHandle, stage: Int, _ change: (inout Toast) -> Void) -> Bool {
        if let index = holdsInHand.firstIndex(where: { $0.serial == handle.serial }) {
            guard var toast = holdsInHand[index].toast else { return false }
            change(&toast)
            holdsInHand[index].toast = toast
            holdsInHand[index].changed = true
            return true
        }
        guard var entry = held[handle.serial] else { return false }
        let before = entry.toast
        change(&entry.toast)
        // A change of role or priority may make it an error, or no longer one, for its screen.
        if entry.screen != 0, let screen = screenTable?.bySerial[entry.screen], isError(entry.toast) != entry.isError {
            entry.isError.toggle()
            screen.heldErrors += entry.isError ? 1 : -1
            screenTable?.touch(screen)
        }
        held[handle.serial] = entry
        rowTracker.heldChanged.insert(handle.serial)
        let changed = entry.toast.changedFields(since: before)
        if !changed.isEmpty {
            trace(TraceRecord(time: now, toast: entry.toast, stage: stageNames[entry.stage], verdict: .change,
                              changedFields: changed, because: "changed while held"), aboutToastInHand: false)
        }
        return true
    }

    /// A held toast goes on from the stage after its holder, now.
    func release(_ handle: HoldHandle) -> Bool {
        guard let entry = takeHeld(handle.serial) else { return false }
        counts.stages[entry.stage].released += 1
        counts.stages[entry.stage].passedBy += 1
        trace(TraceRecord(time: now, toast: entry.toast, stage: stageNames[entry.stage], verdict: .released,
                          details: [JSONMember("held", .number(StreamTime.seconds(now - entry.since)))],
                          because: "held for \(StreamTime.format(now - entry.since)) s, since \(timeDisplay.moment(entry.since))"),
              aboutToastInHand: false)
        pending.append((entry.toast, entry.stage + 1, false))
        if stepDepth == 0 { runPending() }
        return true
    }

    /// A held toast ends with a drop record of its stage's `drop`.
    func dropHeld(_ handle: HoldHandle, _ drop: Drop) -> Bool {
        guard let entry = takeHeld(handle.serial) else { return false }
        counts.stages[entry.stage].droppedCounts.add(drop.reason)
        trace(TraceRecord(time: now, toast: entry.toast, stage: stageNames[entry.stage], verdict: .drop,
                          details: drop.traceDetails, because: "held for \(StreamTime.format(now - entry.since)) s"),
              aboutToastInHand: false)
        write(.drop(entry.toast, at: now, drop))
        return true
    }

    /// Ends a held toast for the pipeline (a dismiss, the end of the run): a drop of its stage.
    func endHeld(_ serial: Int, reason: DropReason, because: String) {
        guard let entry = takeHeld(serial) else { return }
        let drop = Drop(stage: stageNames[entry.stage], reason: reason)
        counts.stages[entry.stage].droppedCounts.add(reason)
        trace(TraceRecord(time: now, toast: entry.toast, stage: stageNames[entry.stage], verdict: .drop,
                          details: drop.traceDetails, because: because), aboutToastInHand: false)
        write(.drop(entry.toast, at: now, drop))
    }

    /// A `dismiss` for `id` on the screen with `screen` found nothing in its host: the latest
    /// toast with that id its stages hold is cancelled.
    func endHeldToast(id: String, screen: Int) {
        if let serial = held.filter({ $0.value.toast.id == id && $0.value.screen == screen }).keys.max() {
            endHeld(serial, reason: .cancelled, because: "a dismiss for it came while it was held")
        }
    }

    /// Ends every held toast (of one screen, when `screen` is not nil), in the order they were held.
    func endAllHeld(reason: DropReason, because: String, screen: Int? = nil) {
        for serial in held.keys.sorted() where screen == nil || held[serial]?.screen == screen {
            endHeld(serial, reason: reason, because: because)
        }
    }

    /// Takes a toast out of the held ones, and out of its screen's count.
    func takeHeld(_ serial: Int) -> HeldToast? {
        guard let entry = held.removeValue(forKey: serial) else { return nil }
        // Held at a stage that exists, since a time the clock has passed.
        assert(entry.stage < stages.count && entry.since <= now, "a held toast's stage or time went wrong")
        if entry.screen != 0, let screen = screenTable?.bySerial[entry.screen] {
            screen.held -= 1
            if entry.isError { screen.heldErrors -= 1 }
            // A screen counts each toast held for it once, errors among them.
            assert(screen.held >= 0 && screen.heldErrors >= 0 && screen.heldErrors <= screen.held, "a screen's held counts went wrong")
            screenTable?.touch(screen)
        }
        return entry
    }

    /// A toast a stage holds: its stage, since when, the serial of its screen (0: none), and
    /// whether its screen counts it among its held errors (`Screen.heldErrors`).
    struct HeldToast {
        var toast: Toast
        let stage: Int
        let since: Microseconds
        let screen: Int
        var isError: Bool
    }
}
