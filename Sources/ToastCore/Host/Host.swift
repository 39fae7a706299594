/// The last stage: the waiting line and the screen (docs/lua.md, "config").
///
/// A toast that reaches the host is first checked against the newest toast in the host
/// (repeats), then placed by its policy: `replace` is shown at once, `enqueue` and `stack`
/// join the waiting line, ordered by priority, then arrival. After every change the head of
/// the line is promoted while it may be shown, and the line is cut to `limit` by evicting
/// the lowest-priority, oldest toast. Visible toasts leave by timeout or interaction, and a
/// sticky one (no timeout) also when an error would wait behind it (`preempted`).
///
/// Not final: a screen is its own host (`Screen`, one object for both, with a million screens
/// held at once); nothing overrides it.
package class Host {
    /// Replaced when the scripts are reloaded (`Pipeline.reload`, in `shared`); what the host
    /// holds stays.
    package var settings: QueueSettings { shared.settings }
    /// The settings and the tracing, which every host of a pipeline shares (`HostShared`).
    let shared: HostShared
    /// Where records go and timers are set: the pipeline that owns this host, or whatever a
    /// caller of the public initializer passed. Called without a reference count on every
    /// record and timer (`UnretainedEnvironment`); safe because it cannot go away while the
    /// host runs: the pipeline owns its host (and a screen is its own), and the public
    /// initializer keeps its environment alive in the host's own `HostShared`.
    var environment: UnretainedEnvironment

    /// What the host holds and counts, read and changed through the properties below. A toast
    /// is removed from its list and slot before the host writes its record or calls out, so no
    /// access to the rest overlaps another.
    /// Everything the host holds (read from a saved host's text in `SavedHostText.swift`).
    struct State {
        var slots = HostSlots()
        var visible = SlotLine()
        var waiting: [Int] = []
        var delayed: [Int] = []
        var nextSerial = 0
        var nextArrivalOrder = 0
    }
    private var state: State

    /// The toasts the host holds, by slot number.
    private var slots: HostSlots {
        _read { yield state.slots }
        _modify { yield &state.slots }
    }
    /// Visible toasts, in the order they were presented.
    private var visible: SlotLine {
        _read { yield state.visible }
        _modify { yield &state.visible }
    }
    /// The waiting line: priority descending, then arrival order.
    private var waiting: [Int] {
        _read { yield state.waiting }
        _modify { yield &state.waiting }
    }
    /// Toasts still in their `after` delay, in the order they were admitted.
    private var delayed: [Int] {
        _read { yield state.delayed }
        _modify { yield &state.delayed }
    }
    /// Receives the host's decisions when the run is traced (see `TraceRecord`).
    private var trace: ((TraceRecord) -> Void)? { shared.trace }
    private var arrivingForTrace: Toast? {
        get { shared.arriving }
        set { shared.arriving = newValue }
    }

    /// A host that sends its records and timers to `environment`, which it keeps alive.
    package convenience init(settings: QueueSettings, environment: any HostEnvironment) {
        let shared = HostShared(settings: settings)
        shared.keptEnvironment = environment
        self.init(sharing: shared, environment: environment)
    }

    private init(sharing shared: HostShared, environment: any HostEnvironment) {
        self.shared = shared
        self.state = State()
        self.environment = UnretainedEnvironment(environment)
    }

    /// For a host whose environment is its owner or itself (the pipeline's, a screen), which
    /// sets `environment` before anything reaches it; the host does not keep it.
    init(sharing shared: HostShared) {
        self.shared = shared
        self.state = State()
        self.environment = UnretainedEnvironment(NoEnvironment.shared)
    }

    package var isEmpty: Bool { visible.isEmpty && waiting.isEmpty && delayed.isEmpty }

    /// The ids of the visible toasts, in the order they were presented.
    package var visibleIDs: [String] { visible.map { slots.toast($0).id } }
    /// How many toasts are on screen, and how many wait (`--metrics`).
    package var visibleCount: Int { visible.count }
    package var waitingCount: Int { waiting.count }
    /// The ids of the waiting toasts, in line order.
    package var waitingIDs: [String] { waiting.map { slots.toast($0).id } }
    /// The ids of the toasts still in their `after` delay, in the order admitted.
    package var delayedIDs: [String] { delayed.map { slots.toast($0).id } }

    private var now: Microseconds { environment.now }

    // MARK: Toasts coming in

    /// Takes a toast that passed every stage: it arrives now, or after its delay.
    package func admit(_ toast: Toast) {
        let serial = state.nextSerial
        state.nextSerial += 1
        let slot = slots.add(toast, HostedToast(serial: serial, priority: toast.priority ?? 0))
        if toast.afterMicros > 0 {
            delayed.append(slot)
            if isTraced { traced(toast, .delayed, [JSONMember("until", .number(StreamTime.seconds(now + toast.afterMicros)))],
                   because: "its after of \(StreamTime.format(toast.afterMicros)) s holds it back until \(environment.timeDisplay.moment(now + toast.afterMicros))") }
            environment.schedule(.arrival(serial: serial), at: now + toast.afterMicros)
        } else {
            arrive(slot)
        }
    }

    /// Whether a timer still means something (not cancelled by what happened since).
    package func isLive(_ timer: HostTimer) -> Bool {
        switch timer {
        case .arrival(let serial):
            return delayed.contains { slots[$0].serial == serial }
        case .timeout(let serial, let generation):
            return visible.contains { slots[$0].serial == serial && slots[$0].timeoutGeneration == generation && !slots[$0].isPaused }
        }
    }

    package func timerFired(_ timer: HostTimer) {
        switch timer {
        case .arrival(let serial):
            guard let index = delayed.firstIndex(where: { slots[$0].serial == serial }) else { return }
            arrive(delayed.remove(at: index))
        case .timeout(let serial, let generation):
            guard let index = visible.firstIndex(where: { slots[$0].serial == serial }),
                  slots[visible[index]].timeoutGeneration == generation, !slots[visible[index]].isPaused else { return }
            dismiss(at: index, reason: .timeout)
            settle()
        }
    }

    /// A toast (in `slot`) reaches the host: dropped as a repeat, shown at once (`replace`)
    /// or placed in the waiting line.
    private func arrive(_ slot: Int) {
        var entry = slots[slot]
        (entry.arrivalTime, entry.arrivalOrder) = (now, state.nextArrivalOrder)
        slots[slot] = entry
        state.nextArrivalOrder += 1
        let toast = slots.toast(slot)
        if settings.dropRepeats, let newest = newestSlot().map(slots.toast),
           newest.role == toast.role, newest.hasEqualMessage(to: toast) {
            if isTraced {
                traced(toast, .drop, [JSONMember("reason", .string(DropReason.repeat.rawValue))],
                       because: "same role and message as \(newest.id), the newest toast in the host (drop_repeats)")
            }
            drop(slot, reason: .repeat)
            return
        }
        if toast.policy == .replace {
            endVisible(reason: .replacement, by: toast.id)
            present(slot)
        } else {
            let priority = slots[slot].priority
            let position = waiting.lastIndex { slots[$0].priority >= priority }.map { $0 + 1 } ?? 0
            // At the end (the usual place: an empty line, or no lower priority waiting) an
            // append; `insert(_:at:)` goes through the array's generic `replaceSubrange`.
            if position == waiting.count { waiting.append(slot) } else { waiting.insert(slot, at: position) }
            if isTraced { traced(toast, .queued, [JSONMember("position", .integer(Int64(position + 1))),
                                          JSONMember("priority", .integer(Int64(priority)))],
                   because: "place \(position + 1) in the waiting line (priority \(priority), then arrival)") }
            if priority >= RoleTable.errorPriority { preemptStickyToasts(for: slot) }
        }
        if isTraced { arrivingForTrace = toast }
        settle()
        if isTraced { arrivingForTrace = nil }
    }

    /// The newest toast in the host (an arriving one is in no line yet): the waiting toast that
    /// reached the host last, else the most recently presented visible one (docs/events.md).
    private func newestSlot() -> Int? {
        guard var latest = waiting.first else { return visible.last }
        for slot in waiting where slots[slot].arrivalOrder > slots[latest].arrivalOrder { latest = slot }
        return latest
    }

    // MARK: Promotion and eviction

    /// A toast of priority `RoleTable.errorPriority` or more has just joined the waiting line (in `slot`): while it
    /// would still wait, the visible toasts of lower priority without a timeout are dismissed
    /// (`preempted`), the earliest presented first, each followed by promotion, until it is
    /// presented or none is left. Before any eviction its arrival causes (`settle` follows).
    private func preemptStickyToasts(for slot: Int) {
        let priority = slots[slot].priority
        // Nothing to preempt (nearly always): the line is left to `settle` as it is.
        guard stickyVisibleIndex(below: priority) != nil else { return }
        promote()
        while waiting.contains(slot), let index = stickyVisibleIndex(below: priority) {
            dismiss(at: index, reason: .preempted, by: slots.toast(slot).id)
            promote()
        }
        // Presented, or nothing of lower priority without a timeout left to make room.
        assert(!waiting.contains(slot) || stickyVisibleIndex(below: priority) == nil)
    }

    /// The earliest presented visible toast below `priority` without a timeout.
    private func stickyVisibleIndex(below priority: Int) -> Int? {
        visible.firstIndex { slots[$0].priority < priority && slots.toast($0).durationMicros == nil }
    }

    /// Promotes the head of the line while it may be shown.
    @inline(__always)
    private func promote() {
        while let head = waiting.first, mayPresent(policy: slots.toast(head).policy) {
            waiting.removeFirst()
            if slots.toast(head).policy == .replace { endVisible(reason: .replacement, by: slots.toast(head).id) }
            present(head)
        }
    }

    /// Promotes the head of the line while it may be shown, then evicts down to `limit`;
    /// again while an eviction took the head.
    private func settle() {
        while true {
            promote()
            var evictedHead = false
            while waiting.count > settings.limit {
                let victim = evictionVictim()
                if victim == 0 { evictedHead = true }
                let evicted = waiting.remove(at: victim)
                if isTraced {
                    traced(slots.toast(evicted), .evicted, [JSONMember("reason", .string(DropReason.evicted.rawValue))]
                               + (arrivingForTrace.map { [JSONMember("by", .string($0.id))] } ?? []),
                           because: "the waiting line holds \(settings.limit)" + (arrivingForTrace.map { " and \($0.id) arrived" } ?? "")
                               + "; the lowest priority, oldest toast goes")
                }
                drop(evicted, reason: .evicted)
            }
            guard evictedHead else {
                assertLinesHold()
                return
            }
        }
    }

    /// Debug builds (and so the tests) check what the lines promise after every change: each
    /// toast the host holds is in exactly one line, the waiting line is in order (priority
    /// descending, then arrival) and no longer than `limit`, and none waits that may be shown.
    private func assertLinesHold() {
        assert(slots.occupied == visible.count + waiting.count + delayed.count, "a toast is in no line, or in two")
        assert(waiting.count <= settings.limit, "the waiting line is longer than its limit")
        assert(zip(waiting, waiting.dropFirst()).allSatisfy { earlier, later in
            slots[earlier].priority > slots[later].priority
                || (slots[earlier].priority == slots[later].priority && slots[earlier].arrivalOrder < slots[later].arrivalOrder)
        }, "the waiting line is out of order")
        assert(waiting.first.map { !mayPresent(policy: slots.toast($0).policy) } ?? true, "the head of the line waits, and may be shown")
    }

    /// Lets go of the waiting line's memory when it is empty: for a screen's host, which holds
    /// a toast or two at a time among a million screens (the one host keeps its line's room).
    func releaseEmptyLine() {
        if waiting.isEmpty && waiting.capacity > 0 { waiting = [] }
    }

    /// Whether the head of the line, with this policy, may be shown now.
    private func mayPresent(policy: Policy) -> Bool {
        switch policy {
        case .enqueue: return visible.isEmpty
        case .stack: return visible.count < settings.maxVisible
        case .replace: return true
        }
    }

    /// The lowest priority waiting toast, the oldest among equals: the first of the last
    /// run of equal priorities, since the line is sorted.
    private func evictionVictim() -> Int {
        var index = waiting.count - 1
        let lowest = slots[waiting[index]].priority
        while index > 0 && slots[waiting[index - 1]].priority == lowest { index -= 1 }
        return index
    }

    private func present(_ slot: Int) {
        slots[slot].presentedAt = now
        visible.append(slot)
        let toast = slots.toast(slot)
        let waited = now - slots[slot].arrivalTime
        if isTraced { traced(toast, .presented, [JSONMember("waited", .number(StreamTime.seconds(waited))),
                                         JSONMember("visible", .integer(Int64(visible.count)))],
               because: presentation(of: toast, waited: waited)) }
        environment.write(.present(toast, at: now, waited: waited))
        startTimeout(of: slot)
    }

    private func startTimeout(of slot: Int) {
        var entry = slots[slot]
        entry.timeoutGeneration += 1
        entry.isPaused = false
        slots[slot] = entry
        guard let duration = slots.toast(slot).durationMicros else { return }
        environment.schedule(.timeout(serial: slots[slot].serial, generation: slots[slot].timeoutGeneration),
                             at: now + duration)
    }

    // MARK: Endings

    /// Dismisses the visible toast at `index` of the visible ones; `replacement` is the toast
    /// that replaced it (`replacement`) or preempted it (`preempted`).
    private func dismiss(at index: Int, reason: DismissReason, by replacement: String? = nil) {
        let slot = visible.remove(at: index)
        let shown = now - slots[slot].presentedAt
        let toast = slots.remove(slot)
        if isTraced, reason == .preempted, let arriving = replacement {
            traced(toast, .preempted, [JSONMember("reason", .string(reason.rawValue)), JSONMember("by", .string(arriving)),
                                       JSONMember("shown", .number(StreamTime.seconds(shown)))],
                   because: "\(arriving) would have waited behind it, with a higher priority, and it has no timeout")
        } else if isTraced, let replacement {
            traced(toast, .replaced, [JSONMember("by", .string(replacement))],
                   because: "\(replacement) has policy replace")
        } else if isTraced {
            traced(toast, .dismissed, [JSONMember("reason", .string(reason.rawValue)),
                                       JSONMember("shown", .number(StreamTime.seconds(shown)))],
                   because: dismissal(reason: reason, shown: shown))
        }
        environment.write(.dismiss(toast, at: now, reason: reason, shown: shown))
    }

    /// Drops the toast in `slot`, which is in no line any more.
    private func drop(_ slot: Int, reason: DropReason) {
        environment.write(.drop(slots.remove(slot), at: now, Drop(stage: .host, reason: reason)))
    }

    private func endVisible(reason: DismissReason, by replacement: String? = nil) {
        while !visible.isEmpty { dismiss(at: 0, reason: reason, by: replacement) }
    }

    /// Ends every toast in one step: visible ones (dismissed with `visibleReason`) in the
    /// order presented, then waiting ones in line order, then delayed ones in the order
    /// admitted (dropped with `hiddenReason`), per docs/events.md.
    private func endAll(visibleReason: DismissReason, hiddenReason: DropReason) {
        endVisible(reason: visibleReason)
        let hidden = waiting + delayed
        waiting.removeAll()
        delayed.removeAll()
        for slot in hidden {
            if isTraced {
                traced(slots.toast(slot), .drop, [JSONMember("reason", .string(hiddenReason.rawValue))],
                       because: hiddenReason == .cancelled ? "dismiss_all came before it was shown"
                           : hiddenReason == .screenLimit ? "\(endingNote ?? "its screen was ended") before it was shown"
                           : "the run ended before it was shown")
            }
            drop(slot, reason: hiddenReason)
        }
    }

    /// The end of the run: everything left ends with `host_removed`.
    package func removeAll() {
        endAll(visibleReason: .hostRemoved, hiddenReason: .hostRemoved)
    }

    /// Its screen is ended to make room for a new one (`screens.limit`): everything left ends
    /// with `screen_limit`; `note` says why, for the explanations.
    package func endForScreenLimit(note: String) {
        endingNote = note
        defer { endingNote = nil }
        endAll(visibleReason: .screenLimit, hiddenReason: .screenLimit)
    }

    /// Why the host's toasts are being ended, while `endForScreenLimit` runs.
    private var endingNote: String?

    /// Whether it shows, queues or delays a toast of at least `priority` (its own, else its
    /// role's): such a screen is spared by `screens.limit` while another can be ended.
    package func holdsToast(ofPriorityAtLeast priority: Int, roles: RoleTable) -> Bool {
         (Array(visible) + waiting + delayed).contains { slots.toast($0).effectivePriority(in: roles) >= priority }
    }

    // MARK: Interactions

    /// Applies an interaction event; an interaction whose target is not visible changes
    /// nothing, except that `dismiss` also cancels waiting and delayed toasts. Returns false
    /// for a `dismiss` that found no toast (the pipeline then looks among the held ones).
    @discardableResult
    package func interact(_ kind: Event.Kind) -> Bool {
        switch kind {
        case .show, .tick:
            return true
        case .dismissAll:
            endAll(visibleReason: .programmatic, hiddenReason: .cancelled)
        case .dismiss(let target):
            if let index = visibleIndex(target) {
                dismiss(at: index, reason: .programmatic)
            } else if let id = target, let index = waiting.firstIndex(where: { slots.toast($0).id == id }) {
                let slot = waiting.remove(at: index)
                if isTraced { traceCancel(slot, "a dismiss for it came while it waited") }
                drop(slot, reason: .cancelled)
            } else if let id = target, let index = delayed.firstIndex(where: { slots.toast($0).id == id }) {
                let slot = delayed.remove(at: index)
                if isTraced { traceCancel(slot, "a dismiss for it came during its after delay") }
                drop(slot, reason: .cancelled)
            } else {
                return false
            }
        case .tap(let target):
            if let index = visibleIndex(target), slots.toast(visible[index]).dismissOnTap {
                dismiss(at: index, reason: .tap)
            }
        case .closedByUser(let target):
            if let index = visibleIndex(target) {
                dismiss(at: index, reason: .tap)
            }
        case .longPress(let target):
            if let index = visibleIndex(target), slots.toast(visible[index]).dismissOnLongPress {
                dismiss(at: index, reason: .longPress)
            }
        case .swipe(let target):
            if let index = visibleIndex(target), slots.toast(visible[index]).swipe {
                dismiss(at: index, reason: .swipe)
            }
        case .drag(let target, let phase, let dy):
            guard let index = visibleIndex(target) else { return true }
            let slot = visible[index]
            let toast = slots.toast(slot)
            switch phase {
            case .begin:
                if !slots[slot].isPaused {
                    var entry = slots[slot]
                    entry.isPaused = true
                    entry.timeoutGeneration += 1
                    slots[slot] = entry
                    if isTraced { traced(toast, .paused, because: "a drag holds it: no timeout runs") }
                }
            case .end:
                if toast.swipe && Self.isPastThreshold(dy, placement: toast.placement) {
                    dismiss(at: index, reason: .swipe)
                } else {
                    startTimeout(of: slot)
                    if isTraced { traced(toast, .resumed,
                           because: toast.durationMicros.map { "the drag ended short of a swipe: its \(StreamTime.format($0)) s duration starts again" }
                               ?? "the drag ended short of a swipe") }
                }
            }
        }
        settle()
        return true
    }

    /// The drag distance that dismisses: 30 points towards the toast's edge.
    static let dragThreshold = 30.0

    static func isPastThreshold(_ dy: Double, placement: Placement) -> Bool {
        switch placement {
        case .top: return dy <= -dragThreshold
        case .bottom: return dy >= dragThreshold
        case .center: return abs(dy) >= dragThreshold
        }
    }

    /// A visible target: the most recently presented one with `id`, or with no id the most
    /// recently presented one.
    private func visibleIndex(_ id: String?) -> Int? {
        guard let id else { return visible.indices.last }
        return visible.lastIndex { slots.toast($0).id == id }
    }

    // MARK: Tracing

    /// Whether the run is traced. Every trace call stands behind it, so an untraced run pays
    /// one check a decision and builds nothing.
    private var isTraced: Bool { shared.trace != nil }

    /// Traces one decision on `toast`, with the waiting line's length after it.
    private func traced(_ toast: Toast, _ verdict: TraceVerdict, _ details: [JSONMember] = [], because: String? = nil) {
        trace?(TraceRecord(time: now, toast: toast, stage: "host", verdict: verdict,
                           details: details + [JSONMember("waiting", .integer(Int64(waiting.count)))], because: because))
    }

    private func traceCancel(_ slot: Int, _ because: String) {
        traced(slots.toast(slot), .drop, [JSONMember("reason", .string(DropReason.cancelled.rawValue))], because: because)
    }

    private func presentation(of toast: Toast, waited wait: Microseconds) -> String {
        let waited = wait == 0 ? "at once" : "after waiting \(StreamTime.format(wait)) s"
        switch toast.policy {
        case .replace: return "shown \(waited) (policy replace)"
        case .enqueue: return "shown \(waited) (policy enqueue: one at a time)"
        case .stack: return "shown \(waited) (policy stack: up to \(settings.maxVisible) at once)"
        }
    }

    private func dismissal(reason: DismissReason, shown time: Microseconds) -> String {
        let shown = "after \(StreamTime.format(time)) s on screen"
        switch reason {
        case .timeout: return "its duration ran out \(shown)"
        case .tap: return "tapped \(shown)"
        case .longPress: return "long-pressed \(shown)"
        case .swipe: return "swiped away \(shown)"
        case .programmatic: return "a dismiss event came \(shown)"
        case .replacement: return "replaced \(shown)"
        case .hostRemoved: return "the run ended \(shown)"
        case .screenLimit: return "\(endingNote ?? "its screen was ended") \(shown)"
        case .preempted: return "preempted \(shown)"
        }
    }
}

// MARK: Saved state (--state)

extension Host {
    /// What the host holds, for `--state` (SPEC 11.4): each visible, waiting and delayed toast
    /// with its bookkeeping, in the order of its line, and the counters. The host's timers are
    /// the pipeline's, saved with it; the settings come from the scripts of the run that
    /// restores it.
    package var savedState: JSONValue {
        var writer = JSONWriter()
        writeSavedState(to: &writer)
        return writer.value ?? .null
    }

    /// `savedState`'s text, written straight into `writer` (a checkpoint's screens).
    package func writeSavedState(to writer: inout JSONWriter) {
        func entries(_ slotsInLine: some Sequence<Int>) {
            writer.beginArray()
            for slot in slotsInLine {
                let entry = slots[slot]
                writer.beginObject()
                writer.member("serial", entry.serial)
                writer.member("priority", entry.priority)
                writer.member("arrival_time", entry.arrivalTime)
                writer.member("arrival_order", entry.arrivalOrder)
                writer.member("presented_at", entry.presentedAt)
                writer.member("timeout_generation", entry.timeoutGeneration)
                writer.member("paused", entry.isPaused)
                writer.key("toast")
                slots.toast(slot).writeSavedState(to: &writer)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.beginObject()
        writer.key("visible")
        entries(visible)
        writer.key("waiting")
        entries(waiting)
        writer.key("delayed")
        entries(delayed)
        writer.member("next_serial", state.nextSerial)
        writer.member("next_arrival_order", state.nextArrivalOrder)
        writer.endObject()
    }

    /// Makes the host hold what `readSavedState` read, in place of what it holds.
    package func restore(from read: ReadState) {
        state = read.state
    }

    /// Makes the host hold what `savedState` gave, in place of what it holds (nothing is
    /// written). Throws `SavedStateError` naming the part that is wrong, the host unchanged.
    package func restore(from saved: JSONValue) throws {
        let object = try SavedObject(saved, path: "host")
        var restored = State()
        func line(_ name: String) throws -> [Int] {
            let items = try object.list(name)
            return try items.enumerated().map { index, item in
                let saved = try SavedObject(item, item: index, of: name, in: "host")
                var entry = HostedToast(serial: Int(try saved.integer("serial")), priority: Int(try saved.integer("priority")))
                entry.arrivalTime = try saved.integer("arrival_time")
                entry.arrivalOrder = Int(try saved.integer("arrival_order"))
                entry.presentedAt = try saved.integer("presented_at")
                entry.timeoutGeneration = Int(try saved.integer("timeout_generation"))
                entry.isPaused = try saved.bool("paused")
                return restored.slots.add(try Toast(savedState: saved.required("toast")), entry)
            }
        }
        restored.visible = SlotLine(try line("visible"))
        restored.waiting = try line("waiting")
        restored.delayed = try line("delayed")
        restored.nextSerial = Int(try object.integer("next_serial"))
        restored.nextArrivalOrder = Int(try object.integer("next_arrival_order"))
        state = restored
    }
}

/// What every host of a pipeline shares: the queue settings, which a reload replaces for all
/// at once, and where their decisions are traced. (A copy in each host was a good part of what
/// a screen costs, with a million of them held.)
final class HostShared {
    var settings: QueueSettings
    /// Receives the hosts' decisions when the run is traced; nil untraced.
    var trace: ((TraceRecord) -> Void)?
    /// While traced: the toast whose arrival a host is settling, which an eviction names (one
    /// host settles at a time: the pipeline is single-threaded).
    var arriving: Toast?
    /// The environment a public caller of `Host.init(settings:environment:)` passed, held so
    /// that it lives as long as the host (a temporary environment would otherwise be used
    /// after it was freed); nil for the pipeline's hosts, which must not hold their owner.
    var keptEnvironment: AnyObject?

    init(settings: QueueSettings) {
        self.settings = settings
    }
}

/// The environment a host has until its subclass, its own environment, sets itself: records
/// and timers sent here would go nowhere, and none is (`Host.init(sharing:)`).
private final class NoEnvironment: HostEnvironment {
    nonisolated(unsafe) static let shared = NoEnvironment()
    var now: Microseconds { 0 }
    func schedule(_ timer: HostTimer, at time: Microseconds) {}
    func write(_ record: consuming Record) {}
}
