/// The pipeline with screens on (docs/events.md, "Screens"): each screen has its own host and
/// its own instance of each stage that keeps state per screen; a toast's screen is the value of
/// its field `screens.by`, read where it matters (at such a stage, at the host, in a drop), so
/// a rule may move it.
extension Pipeline {
    /// Whether no toast is visible, waiting, delayed or held anywhere (`--clock replay` skips
    /// such stretches of idle time).
    package var holdsNoToast: Bool {
        heldCount == 0 && !anyHostHoldsToasts
    }

    /// Whether a host (the one host, or a screen's) holds a toast.
    var anyHostHoldsToasts: Bool {
        guard let screenTable else { return !host.isEmpty }
        return screenTable.bySerial.contains { !$0.host.isEmpty }
    }

    /// `body` with every host: the one host, or every screen's in the order they first
    /// appeared (the screens listed once, not a list of their hosts beside them: with a
    /// million screens held, the end of a run is where memory peaks). Each screen counts as
    /// changed (`body` may end its toasts): the next checkpoint saves it again.
    func forEachHost(_ body: (Host) -> Void) {
        guard let screenTable else { return body(host) }
        for screen in screenTable.inOrderOfAppearance {
            screenTable.markChanged(screen)
            body(screen.host)
        }
    }

    /// The screen `toast` is on now, made when it is new; the toast keeps its screen for its
    /// records (`Toast.screenKey`).
    func screen(of toast: inout Toast, in table: ScreenTable) -> Screen {
        stampScreen(&toast)
        let key = toast.screenKey ?? .unnamed
        if let screen = table.screen(key) {
            table.touch(screen)
            return screen
        }
        return makeScreen(key, in: table)
    }

    /// Stage `index` of the toast's screen (`screenInHand`) decides on it: the screen in hand
    /// is lent, not counted, for each stage after the first.
    func processOnScreen(_ toast: inout Toast, at index: Int, in table: ScreenTable) -> StageVerdict {
        if let verdict = table.withScreenInHand({ $0.process(&toast, at: index) }) { return verdict }
        return screenInHand(of: &toast, in: table).process(&toast, at: index)
    }

    /// `screen(of:in:)`, found once while the stages that run cannot move the toast.
    func screenInHand(of toast: inout Toast, in table: ScreenTable) -> Screen {
        // The toast has the key already: `screen(of:in:)` wrote it when it found the screen in
        // hand, and no stage since has been one that may move it (the table forgets the screen
        // in hand when it forgets the screen).
        if let screen = table.inHand { return screen }
        let screen = screen(of: &toast, in: table)
        table.inHand = screen
        return screen
    }

    /// Writes the toast's screen into it, as its field says now. A screen named by an extra
    /// field and found while the extra fields are still the bytes they were decoded from (by
    /// the decoder, or here before) still holds: no rule has written an extra field since.
    func stampScreen(_ toast: inout Toast) {
        guard let table = screenTable else { return }
        if toast.screenKey != nil, case .extra = table.field, toast.keepsDecodedExtra { return }
        toast.screenKey = toast.screen(by: table.field, roles: settings.roles)
    }

    /// A new screen; past `limit`, a screen is ended first: the least recently named one that
    /// shows or holds no error, else the least recently named of all.
    private func makeScreen(_ key: ScreenKey, in table: ScreenTable) -> Screen {
        if table.count >= table.settings.limit, let ended = screenToEnd(in: table) {
            end(ended, in: table, note: "its screen was ended by screens.limit (limit \(table.settings.limit), "
                + "\(table.count) screens held state) to make room for a new one")
            table.endedByLimit += 1
        }
        let serial = table.makeSerial()
        if let screen = table.spare.popLast() {
            screen.key = key
            screen.serial = serial
            // (It may still be in the list of screens to look at: it stays there, once.)
            (screen.held, screen.heldErrors, screen.isRemembered) = (0, 0, true)
            for index in screen.ownPlugins {
                screen.stages[index] = stageInstances[index].forNewScreen() ?? stageInstances[index]
            }
            table.add(screen)
            return screen
        }
        return addNewScreen(key, serial: serial, in: table)
    }

    /// A new screen object with `key` and `serial` (a new screen's, or a saved run's, whose host
    /// and stages are restored after), added to the table as the most recently named.
    func addNewScreen(_ key: ScreenKey, serial: Int, in table: ScreenTable) -> Screen {
        // Without a stage of its own (the built-in stages key their state by screen in tables
        // of their own), a screen has no stage list: its toasts are run by the pipeline's.
        let stages = !table.hasOwnStages ? [] : stageInstances.indices.map { index in
            table.perScreen[index] ? (stageInstances[index].forNewScreen() ?? stageInstances[index]) : stageInstances[index]
        }
        let screen = Screen(key: key, serial: serial, pipeline: self, stages: stages, ownStages: table.perScreen)
        if table.hasOwnStages { screen.contexts = screenContexts(for: screen) }
        table.add(screen)
        return screen
    }

    /// Forgets `screen`, keeping the object for another screen when there is room: its host is
    /// empty, and its stages are emptied here (a plugin's are made again when it is reused).
    private func forget(_ screen: Screen, in table: ScreenTable) {
        table.remove(screen)
        for stage in table.keyedStages { stage.forget(screen) }
        guard table.spare.count < ScreenTable.spareLimit, screen.host.isEmpty, screen.held == 0 else { return }
        for builtIn in screen.builtIns { builtIn.empty() }
        table.spare.append(screen)
    }

    /// The contexts of a screen's stages: its own for the stages it has its own instance of.
    func screenContexts(for screen: Screen) -> [StageContext] {
        stageNames.enumerated().map { index, name in
            screenTable?.perScreen[index] == true
                ? StageContext(stageName: name, position: index, pipeline: self, screen: screen) : stageContexts[index]
        }
    }

    /// The screen `screens.limit` ends: the least recently named that has no visible, waiting,
    /// delayed or held toast of priority 2 or more; when every screen has one, the least
    /// recently named of all. (The walk stops at the first screen without an error, so it is
    /// long only when most screens hold one.)
    private func screenToEnd(in table: ScreenTable) -> Screen? {
        let roles = settings.roles
        let withoutErrors = table.leastRecent { screen in
            screen.heldErrors == 0 && !screen.host.holdsToast(ofPriorityAtLeast: RoleTable.errorPriority, roles: roles)
        }
        return withoutErrors ?? table.leastRecent
    }

    /// Ends a screen as the end of a run without a drain does, and forgets it: its toasts end
    /// `screen_limit`, its pending summaries and digest windows end without a toast (its
    /// stages, and their timers, are gone).
    private func end(_ screen: Screen, in table: ScreenTable, note: String) {
        screen.host.endForScreenLimit(note: note)
        endAllHeld(reason: .screenLimit, because: note, screen: screen.serial)
        forget(screen, in: table)
    }

    /// The stage `index` of the screen with `serial` (0: the shared one) and its context; nil
    /// when that screen is forgotten (its timers are stale).
    func stage(_ index: Int, ofScreen serial: Int) -> (any ToastStage, StageContext)? {
        guard serial != 0 else { return (stageInstances[index], stageContexts[index]) }
        guard let table = screenTable, let screen = table.bySerial[serial] else { return nil }
        table.touch(screen)
        return screen.stageAndContext(index)
    }

    /// An interaction acts on the screen it names; a screen that holds nothing is not made.
    /// A `dismiss_all` that names none acts on every screen, in the order they first appeared.
    func interact(_ event: Event, on table: ScreenTable) {
        if case .tick = event.kind {
            if let key = event.screen, let screen = table.screen(key) { table.named(screen) }
            return
        }
        if case .dismissAll = event.kind, event.screen == nil {
            for screen in table.inOrderOfAppearance {
                table.named(screen)
                screen.host.interact(.dismissAll)
                endAllHeld(reason: .cancelled, because: "dismiss_all came while it was held", screen: screen.serial)
            }
            return
        }
        guard let screen = table.screen(event.screen ?? .unnamed) else { return }
        table.named(screen)
        let found = screen.host.interact(event.kind)
        switch event.kind {
        case .dismiss(let target?) where !found:
            endHeldToast(id: target, screen: screen.serial)
        case .dismissAll:
            endAllHeld(reason: .cancelled, because: "dismiss_all came while it was held", screen: screen.serial)
        default:
            break
        }
    }

    /// Forgets the screens in which nothing remains, among those used since the last event
    /// and those whose window has ended.
    func forgetIdleScreens(_ table: ScreenTable) {
        table.lookAtScreens(now: now) { screen in
            guard screen.isRemembered else { return }
            switch stateEnds(of: screen, in: table) {
            case .now: forget(screen, in: table)
            case .at(let time): table.lookAgain(screen, at: time)
            case .onActivity: break
            case .nextEvent: table.touch(screen)
            }
        }
    }

    private enum ScreenStateEndOrEvent {
        case now, at(Microseconds), onActivity, nextEvent
    }

    /// When what `screen` holds ends: nothing visible, waiting, delayed or held, and nothing
    /// in its own stages (docs/events.md, "Screens").
    private func stateEnds(of screen: Screen, in table: ScreenTable) -> ScreenStateEndOrEvent {
        guard screen.host.isEmpty && screen.held == 0 else { return .onActivity }
        var latest: Microseconds?
        for stage in table.keyedStages {
            switch stage.stateEnds(of: screen, now: now) {
            case .now: continue
            case .at(let time): latest = max(latest ?? time, time)
            case .onActivity: return .onActivity
            }
        }
        for builtIn in screen.builtIns {
            switch builtIn.stateEnds(now: now, isHeld: { heldToast($0) != nil }) {
            case .now: continue
            case .at(let time): latest = max(latest ?? time, time)
            case .onActivity: return .onActivity
            }
        }
        let askAgain = screen.ownPlugins.contains { !screen.stages[$0].isIdle(at: .microseconds(now)) }
        if askAgain { return .nextEvent }
        return latest.map(ScreenStateEndOrEvent.at) ?? .now
    }

    /// What `--stats` and the run summary count of screens: seen, ended by the limit, at most
    /// at once; nil with screens off.
    var screenCounts: PipelineStatistics.ScreenCounts? {
        screenTable.map { .init(seen: $0.seen, endedByLimit: $0.endedByLimit, mostAtOnce: $0.mostAtOnce) }
    }
}

extension Screen {
    func stageAndContext(_ index: Int) -> (any ToastStage, StageContext) {
        (stages[index], contexts[index])
    }
}

extension Pipeline {
    /// The toasts on screen and waiting, on every screen, and the screens remembered
    /// (`--metrics`' gauges; a walk over the screens, made once a scrape).
    package var toastsOnScreens: (visible: Int, waiting: Int, screens: Int) {
        var visible = host.visibleCount, waiting = host.waitingCount, screens = 0
        screenTable?.forEachScreen { screen in
            visible += screen.host.visibleCount
            waiting += screen.host.waitingCount
            screens += 1
        }
        return (visible, waiting, screens)
    }
}
