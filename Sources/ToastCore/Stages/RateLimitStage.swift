/// The `rate_limit` stage: at most `limit` toasts of a group pass in any `window`
/// (docs/lua.md, "config"). With `summary`, each run of drops of a group ends in one
/// "N more" toast, `window` after the run's first drop, that says what it stands for: the role
/// of the dropped toast with the highest priority, and their count and ids.
package final class RateLimitStage: ToastStage, CalledUnretained {
    package private(set) var settings: RateLimitSettings
    /// An error is never dropped or held back for being one of many.
    package var defaultSpare: DefaultSpare { .errors }
    private var key: FieldReference

    // While a group is being changed the stage reads only `scratch` and sets a timer, which
    // fires later: no access to `groups` overlaps another.
    /// Groups by the key bytes of their value (see `Toast.appendKey`); with screens on, each
    /// key starts with its screen's serial, so that every screen has its own groups.
    private var groups = ByteKeyTable<GroupState>()

    /// Reused for building each key.
    private var scratch = ByteBuffer(capacity: 64)
    /// The key bytes of the group each pending summary is for, by its timer's token.
    fileprivate var summaryGroups: [Int: [UInt8]] = [:]
    private var nextToken = 0
    private var groupCountAfterLastSweep = 0

    struct GroupState {
        /// Times of the passes still inside the window, oldest first.
        var passes = TimeWindow()
        /// The drops since the pending summary was scheduled; nil: no summary pending.
        var pendingDrops: SummaryDrops?
        /// With screens on, the group of the same screen made before this one (-1: none): a
        /// screen's groups are a list from its slot's `newestGroup`, so that saving a screen
        /// finds its groups without looking through everyone's.
        var previousOfScreen: Int32 = -1
    }

    /// The toasts a pending summary stands for: an object, so that a group without one (most
    /// of them) carries a reference, not the ids and role.
    final class SummaryDrops {
        var ids: [String]
        /// The role of the dropped toast with the highest priority, the latest among equals.
        var role: String
        var priority: Int

        init(_ toast: Toast, roles: RoleTable) {
            (ids, role, priority) = ([toast.id], toast.role, toast.effectivePriority(in: roles))
        }

        init(ids: [String], role: String, priority: Int) {
            (self.ids, self.role, self.priority) = (ids, role, priority)
        }

        func add(_ toast: Toast, roles: RoleTable) {
            ids.append(toast.id)
            let priority = toast.effectivePriority(in: roles)
            if priority >= self.priority { (role, self.priority) = (toast.role, priority) }
        }
    }

    /// The slot `decide` is given with screens off, where nothing keeps a screen (so it stays
    /// empty).
    private var single = ScreenStageSlot()
    /// With screens on, the screens, each with what keeps it here (`stateEnds`: when a toast
    /// of it last passed, and how many of its summaries are pending) in its slot `slot` (the
    /// pipeline owns the table and this stage: `unowned(unsafe)`, as `StageContext.pipeline`).
    private unowned(unsafe) var screens: ScreenTable?
    private var slot = 0
    /// The screens' lists of groups must be made again before they are read: a state saved
    /// before each screen's part held its own groups restored them without their screens.
    private var listsNeedLinking = false

    package init(settings: RateLimitSettings) {
        self.settings = settings
        self.key = FieldReference(name: settings.key)
    }

    /// New settings; the groups' windows and pending summaries stay.
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? RateLimitStage else { return }
        (settings, key) = (replacement.settings, replacement.key)
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        let verdict = if let screens {
            screens.withSlotInHand(slot) { decide(&toast, context: context, slot: &$0, screen: $1) }
        } else {
            decide(&toast, context: context, slot: &single, screen: nil)
        }
        // Not while a screen's slot is lent: a sweep links every screen's groups again.
        sweepIfGrown(now: context.nowMicros)
        return verdict
    }

    /// Decides on `toast` in its group of its screen (`screen`, whose serial starts the
    /// group's key; nil with screens off), whose slot for this stage is `slot`.
    @inline(__always)
    private func decide(_ toast: inout Toast, context: StageContext, slot: inout ScreenStageSlot, screen: Int?) -> StageVerdict {
        scratch.removeAll()
        if let screen { scratch.appendSerial(screen) }
        toast.appendKey(of: key, roles: context.roles, to: &scratch)
        var isNew = false
        let group = scratch.withBytes { key in
            let hash = ByteKeyTable<GroupState>.hash(key)
            if let group = groups.number(of: key, hash: hash) { return group }
            isNew = true
            return groups.insert(key, hash: hash, GroupState())
        }
        if isNew && screen != nil { link(group, into: &slot) }
        return admit(toast, into: &groups[group], slot: &slot, keyStart: screen == nil ? 0 : ScreenSerialPrefix.count,
                     now: context.nowMicros, context: context)
    }

    /// Counts one toast into its group's window: a pass while fewer than `limit` passed.
    private func admit(_ toast: Toast, into state: inout GroupState, slot: inout ScreenStageSlot, keyStart: Int,
                       now: Microseconds, context: StageContext) -> StageVerdict {
        state.passes.removeAll(atOrBefore: now - settings.window)
        if state.passes.count < settings.limit {
            state.passes.append(now)
            if screens != nil { slot.lastPass = now }
            return .pass
        }
        if state.pendingDrops != nil {
            state.pendingDrops?.add(toast, roles: context.roles)
        } else if settings.summary {
            state.pendingDrops = SummaryDrops(toast, roles: context.roles)
            let token = nextToken
            nextToken += 1
            summaryGroups[token] = scratch.bytes   // the group's key, still in the buffer
            if screens != nil { slot.pendingSummaries += 1 }
            context.setTimer(atMicros: now + settings.window, token: token)
        }
        // The group's key is still in `scratch`.
        let label = scratch.withBytes { Toast.groupLabel(ofKey: UnsafeRawBufferPointer(rebasing: $0[keyStart...])) }
        context.explain("\(state.passes.count) toasts with this \(settings.key) (\(label ?? "none")) "
                        + "passed within \(StreamTime.format(settings.window)) s; the limit is \(settings.limit)")
        return .drop(Drop(stage: context.stageLabel, reason: .rateLimited))
    }

    package func timerFired(token: Int, context: StageContext) {
        // The key's bytes are lent by its own array, for the lookup and the label alone.
        guard let key = summaryGroups.removeValue(forKey: token),
              let group = key.withUnsafeBytes({ groups.number(of: $0, hash: ByteKeyTable<GroupState>.hash($0)) }),
              let drops = groups[group].pendingDrops else { return }
        groups[group].pendingDrops = nil
        var screen: Screen?
        if screens != nil {
            // The summary goes to the screen of its group, unless that screen was ended by
            // `screens.limit` meanwhile: its pending summaries end without a toast.
            guard let serial = ScreenSerialPrefix.serial(of: key), let remembered = context.rememberedScreen(serial) else { return }
            remembered.stageSlots[slot].pendingSummaries -= 1
            screen = remembered
        }
        let keyStart = screen == nil ? 0 : ScreenSerialPrefix.count
        let label = key.withUnsafeBytes { Toast.groupLabel(ofKey: UnsafeRawBufferPointer(rebasing: $0[keyStart...])) }
        let count = drops.ids.count
        var summary = context.makeToast(message: label.map { "\(count) more from \($0)" } ?? "\(count) more notifications",
                                        role: drops.role, source: label)
        summary.priority = context.roles.priority(of: drops.role) ?? 0
        summary.extra = [JSONMember("count", .integer(Int64(count))), JSONMember("ids", .array(drops.ids.map(JSONValue.string)))]
        context.emit(summary, onScreen: screen)
    }

    /// Forgets groups with nothing in their window and no summary pending, whenever the
    /// table has doubled, so memory stays flat on a stream of ever new sources (and screens).
    /// A sweep looks through every entry number the table has given, so it also waits for a
    /// quarter of those to be groups again: after a burst of many groups, the table keeps its
    /// entries, and sweeping a few groups out of them at every doubling would cost the burst
    /// each time. With screens on, the screens that lost groups have them taken out of their
    /// lists (and are saved again); the others are not touched.
    private func sweepIfGrown(now: Microseconds) {
        guard groups.count > max(1024, 2 * groupCountAfterLastSweep, groups.numberCount / 4) else { return }
        let horizon = now - settings.window
        var forgotten: [Int] = []
        groups.forEachStored { number, state in
            var passes = state.passes
            passes.removeAll(atOrBefore: horizon)
            if passes.count == 0 && state.pendingDrops == nil { forgotten.append(number) }
        }
        var screensThatLostGroups: [Int] = []
        for group in forgotten {
            if screens != nil, let serial = groups.withKey(at: group, ScreenSerialPrefix.serial(of:)) {
                screensThatLostGroups.append(serial)
            }
            groups.remove(at: group)
        }
        groupCountAfterLastSweep = groups.count
        guard let screens else { return }
        for serial in screensThatLostGroups {
            guard let screen = screens.bySerial[serial] else { continue }
            unlinkForgottenGroups(from: &screen.stageSlots[slot])
            // Its row lists its groups: the next checkpoint saves it again.
            screens.markChanged(screen)
        }
    }

    /// Takes the groups a sweep forgot out of a screen's list (whose slot is `slot`). Their
    /// numbers are not given to new groups before this, so the list still leads through them.
    private func unlinkForgottenGroups(from slot: inout ScreenStageSlot) {
        var newestKept: Int32 = -1
        var lastKept: Int32 = -1
        var group = slot.newestGroup
        while group >= 0 {
            let previous = groups[Int(group)].previousOfScreen
            if groups.isStored(Int(group)) {
                if lastKept >= 0 { groups[Int(lastKept)].previousOfScreen = group } else { newestKept = group }
                lastKept = group
            }
            group = previous
        }
        if lastKept >= 0 { groups[Int(lastKept)].previousOfScreen = -1 }
        slot.newestGroup = newestKept
    }

    /// `group` becomes the newest of its screen's groups (whose slot is `slot`).
    private func link(_ group: Int, into slot: inout ScreenStageSlot) {
        groups[group].previousOfScreen = slot.newestGroup
        slot.newestGroup = Int32(group)
    }

    /// Makes every screen's list of groups again (after a sweep has forgotten some): one look
    /// through the groups, as rare as the sweeps.
    private func linkScreensGroups() {
        guard let screens else { return }
        for screen in screens.bySerial.values { screen.stageSlots[slot].newestGroup = -1 }
        for group in groups.storedNumbers {
            let serial = groups.withKey(at: group) { ScreenSerialPrefix.serial(of: $0) }
            guard let serial, let screen = screens.bySerial[serial] else { continue }
            link(group, into: &screen.stageSlots[slot])
        }
        listsNeedLinking = false
    }
}

extension RateLimitStage: ScreenKeyedStage {
    func keyByScreen(in table: ScreenTable, slot: Int) {
        (screens, self.slot) = (table, slot)
    }

    /// A pending summary keeps its screen until it is sent; a toast that passed, for `window`.
    func stateEnds(of screen: Screen, now: Microseconds) -> ScreenStateEnd {
        let window = screen.stageSlots[slot]
        if window.pendingSummaries > 0 { return .onActivity }
        guard let lastPass = window.lastPass, now < lastPass + settings.window else { return .now }
        return .at(lastPass + settings.window)
    }

    /// Its groups stay until a sweep finds them empty (a screen is forgotten only once its
    /// windows are; one ended by the limit may leave a summary pending, which its timer ends).
    func forget(_ screen: Screen) {
        screen.stageSlots[slot] = ScreenStageSlot()
    }
}

/// Times in ascending order, dropped from the front as they leave a sliding window.
///
/// One time alone is kept without an array: most groups see a single toast in a window (with
/// screens on, every screen has its own groups), and an array for it cost an allocation and
/// a free for each.
struct TimeWindow {
    /// The times when there are two or more, from `start` on.
    private var times: [Microseconds] = []
    private var start = 0
    /// The time when it is the only one (`times` holds none then); `Int64.min`: none (an
    /// optional took a word more in every group).
    private var singleTime = Int64.min
    private var single: Microseconds? {
        get { singleTime == .min ? nil : singleTime }
        set { singleTime = newValue ?? .min }
    }

    var count: Int { single == nil ? times.count - start : 1 }

    /// The times in the window, oldest first.
    var all: [Microseconds] { single.map { [$0] } ?? Array(times[start...]) }

    mutating func append(_ time: Microseconds) {
        if let first = single {
            single = nil
            times.append(first)
            times.append(time)
        } else if start == times.count {
            single = time
        } else {
            times.append(time)
        }
    }

    /// Drops the times `≤ horizon` (those no longer after now − window).
    mutating func removeAll(atOrBefore horizon: Microseconds) {
        if let first = single {
            if first <= horizon { single = nil }
            return
        }
        while start < times.count && times[start] <= horizon { start += 1 }
        if start == times.count {
            times.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 32 && start * 2 > times.count {
            times.removeFirst(start)
            start = 0
        }
    }
}

extension RateLimitStage {
    /// Each group's key (`SavedKey`) with the times of its passes in the window and the
    /// drops its pending summary stands for; the summaries' timers by token, and the counters.
    /// With screens on, a group and a summary name their screen's serial (`screen`, the key
    /// without it), and each screen's last pass and pending summaries are listed (`screens`).
    package func saveState() -> JSONValue? {
        var members = sharedMembers()
        if let screens {
            willWriteSavedParts()
            let held = screens.bySerial.values.sorted { $0.serial < $1.serial }
            members.append(JSONMember("screens", .array(held.compactMap(savedPart(of:)))))
        }
        return .object(members)
    }

    /// With screens on, its state but the screens' parts, which are saved with each screen.
    func savedSharedState() -> JSONValue? {
        guard screens != nil else { return saveState() }
        return .object(sharedMembers() + [JSONMember("screens", .array([]))])
    }

    /// The groups (with screens on, none: each screen's are in its part), the summaries and
    /// the counters.
    private func sharedMembers() -> [JSONMember] {
        [
            JSONMember("groups", .array(screens != nil ? [] : groups.storedEntries().map { entry in
                var members = screenAndKey(entry.key)
                members.append(JSONMember("passes", .array(entry.value.passes.all.map { .integer($0) })))
                if let drops = entry.value.pendingDrops {
                    members.append(JSONMember("pending", .object([
                        JSONMember("ids", .array(drops.ids.map(JSONValue.string))), JSONMember("role", .string(drops.role)),
                        JSONMember("priority", .integer(Int64(drops.priority))),
                    ])))
                }
                return .object(members)
            })),
            JSONMember("summaries", .array(summaryGroups.sorted { $0.key < $1.key }.filter { isOfRememberedScreen($0.value) }.map { token, key in
                .object([JSONMember("token", .integer(Int64(token)))] + screenAndKey(key))
            })),
            JSONMember("next_token", .integer(Int64(nextToken))),
            JSONMember("groups_after_sweep", .integer(Int64(groupCountAfterLastSweep))),
        ]
    }

    func hasSavedPart(of screen: Screen) -> Bool { !screen.stageSlots[slot].isEmpty }

    func willWriteSavedParts() {
        if listsNeedLinking { linkScreensGroups() }
    }

    /// A screen's last pass, pending summaries and groups, as `saveState` lists them under
    /// `screens`.
    func writeSavedPart(of screen: Screen, to writer: inout JSONWriter) {
        let window = screen.stageSlots[slot]
        writer.beginObject()
        writer.member("screen", screen.serial)
        writer.key("last_pass")
        if let lastPass = window.lastPass { writer.integer(lastPass) } else { writer.null() }
        writer.member("pending", Int64(window.pendingSummaries))
        writer.key("groups")
        writer.beginArray()
        var group = Int(window.newestGroup)
        while group >= 0 {
            writer.beginObject()
            writer.key("key")
            groups.withKey(at: group) { SavedKey.write(UnsafeRawBufferPointer(rebasing: $0[ScreenSerialPrefix.count...]), to: &writer) }
            writeSavedGroup(groups[group], to: &writer)
            writer.endObject()
            group = Int(groups[group].previousOfScreen)
        }
        writer.endArray()
        writer.endObject()
    }

    /// A group's passes in the window and its pending summary's drops, after its key.
    private func writeSavedGroup(_ state: GroupState, to writer: inout JSONWriter) {
        writer.key("passes")
        writer.beginArray()
        for pass in state.passes.all { writer.integer(pass) }
        writer.endArray()
        if let drops = state.pendingDrops {
            writer.key("pending")
            writer.beginObject()
            writer.key("ids")
            writer.beginArray()
            for id in drops.ids { writer.string(id) }
            writer.endArray()
            writer.member("role", drops.role)
            writer.member("priority", Int64(drops.priority))
            writer.endObject()
        }
    }

    /// Whether a group's key belongs to a screen the run still remembers (always, with screens
    /// off). A forgotten screen's groups stay in the table until a sweep, and one that comes
    /// back is new, so they are never reached again (a summary of a screen that `screens.limit`
    /// ended finds no group and ends without a toast, as it does when its timer finds no
    /// screen): a saved state leaves them out.
    private func isOfRememberedScreen(_ key: [UInt8]) -> Bool {
        guard let screens else { return true }
        return ScreenSerialPrefix.serial(of: key).map { screens.bySerial[$0] != nil } ?? false
    }

    /// A group's key as saved: with screens on, its screen's serial and the rest of the key.
    private func screenAndKey(_ key: [UInt8]) -> [JSONMember] {
        guard screens != nil, let serial = ScreenSerialPrefix.serial(of: key) else { return [JSONMember("key", SavedKey.value(key))] }
        return [JSONMember("screen", .integer(Int64(serial))),
                JSONMember("key", SavedKey.value(key.dropFirst(ScreenSerialPrefix.count)))]
    }

    /// The key `screenAndKey` saved.
    private func key(from object: SavedObject, path: String) throws -> [UInt8] {
        let key = try SavedKey.bytes(try object.required("key"), path: "\(path).key")
        guard screens != nil else { return key }
        var serial = Int(try object.integer("screen"))
        return withUnsafeBytes(of: &serial) { Array($0) } + key
    }

    package func restoreState(from saved: JSONValue) throws {
        let path = "state"
        let object = try SavedObject(saved, path: path)
        // With screens on, groups here are those of a state saved before each screen's part held
        // its own (they name their screen).
        var restoredGroups = ByteKeyTable<GroupState>()
        for (index, item) in try object.list("groups").enumerated() {
            let itemPath = "\(path).groups[\(index)]"
            let group = try SavedObject(item, path: itemPath)
            let state = try Self.savedGroup(group, path: itemPath)
            _ = try key(from: group, path: itemPath).withUnsafeBytes {
                restoredGroups.insert($0, hash: ByteKeyTable<GroupState>.hash($0), state)
            }
        }
        let savedSummaries = try object.list("summaries")
        var restoredSummaries: [Int: [UInt8]] = [:]
        for (index, item) in savedSummaries.enumerated() {
            let summaryPath = "\(path).summaries[\(index)]"
            let summary = try SavedObject(item, path: summaryPath)
            restoredSummaries[Int(try summary.integer("token"))] = try key(from: summary, path: summaryPath)
        }
        let counters = (Int(try object.integer("next_token")), Int(try object.integer("groups_after_sweep")))
        (nextToken, groupCountAfterLastSweep) = counters
        groups = restoredGroups
        summaryGroups = restoredSummaries
        listsNeedLinking = screens != nil && groups.count > 0
    }

    /// A screen's last pass, pending summaries and groups, into the table `restoreState` made.
    func restoreSavedPart(of screen: Screen, from saved: SavedObject, path: String) throws {
        var window = ScreenStageSlot()
        window.lastPass = try Self.time(try saved.required("last_pass"), path: "\(path).last_pass")
        window.pendingSummaries = Int32(clamping: try saved.integer("pending"))
        if saved.optional("groups") != nil {
            // Written newest first: linked oldest first, each the newest so far, the list is as it was.
            for (index, item) in try saved.list("groups").enumerated().reversed() {
                let saved = try SavedObject(item, item: index, of: "groups", in: path)
                let state = try Self.savedGroup(saved, path: "\(path).groups[\(index)]")
                scratch.removeAll()
                scratch.appendSerial(screen.serial)
                try SavedKey.append(try saved.required("key"), path: "\(path).groups[\(index)].key", to: &scratch)
                let group = scratch.withBytes { groups.insert($0, hash: ByteKeyTable<GroupState>.hash($0), state) }
                link(group, into: &window)
            }
        }
        screen.stageSlots[slot] = window
    }

    /// A group's passes and pending summary as `writeSavedGroup` wrote them.
    private static func savedGroup(_ group: SavedObject, path: @autoclosure () -> String) throws -> GroupState {
        var state = GroupState()
        for pass in try group.list("passes") {
            guard case .integer(let time) = pass else { throw SavedStateError("\(path()).passes holds something but times") }
            state.passes.append(time)
        }
        if let pending = group.optional("pending") {
            let drops = try SavedObject(pending, path: "\(path()).pending")
            let ids = try drops.list("ids")
            state.pendingDrops = SummaryDrops(ids: try ids.map { id in
                guard case .string(let id) = id else { throw SavedStateError("\(path()).pending.ids holds something but ids") }
                return id
            }, role: try drops.string("role"), priority: Int(try drops.integer("priority")))
        }
        return state
    }

    /// A time or null; `path` is made only for the message (a restore reads one for each screen).
    private static func time(_ saved: JSONValue, path: @autoclosure () -> String) throws -> Microseconds? {
        switch saved {
        case .null: return nil
        case .integer(let time): return time
        default: throw SavedStateError("\(path()) is not a time")
        }
    }
}

extension RateLimitStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}

