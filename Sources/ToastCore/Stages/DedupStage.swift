/// The `dedup` stage: drops a toast whose key passed less than `window` ago (docs/lua.md, "config").
///
/// The window counts from the last toast that passed, so a steady flood passes once per
/// window. At most `cache` keys are remembered, the least recently passed forgotten first.
/// With screens on, each screen has its own keys and its own `cache` of them, all in one
/// table, each key prefixed with its screen's serial, the head of each screen's list in the
/// screen's slot for this stage (`ScreenKeyedStage`).
package final class DedupStage: ToastStage, CalledUnretained {
    package private(set) var settings: DedupSettings
    private var fields: [FieldReference]

    // Each access is one step of `process` that calls out to nothing that could reach this
    // stage: no access to `cache` overlaps another.
    /// The keys that passed, least recently passed first to go.
    private var cache: RecencyCache<PassedToast>
    /// Reused for building each key.
    private var scratch = ByteBuffer(capacity: 64)

    struct PassedToast {
        var time: Microseconds
        var id: String
    }

    /// The keys with screens off (the cache's one list).
    private var single = ScreenStageSlot()
    /// With screens on, the screens, each with its keys in its slot `slot` (the pipeline owns
    /// the table and this stage: `unowned(unsafe)`, as `StageContext.pipeline`).
    private unowned(unsafe) var screens: ScreenTable?
    private var slot = 0

    package init(settings: DedupSettings) {
        self.settings = settings
        self.fields = settings.fields.map(FieldReference.init(name:))
        self.cache = RecencyCache(capacity: settings.cache)
    }

    /// New `window` and `fields`; the keys remembered stay, and so does the cache's size (a
    /// new `cache` takes effect at the next start).
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? DedupStage else { return }
        settings = replacement.settings
        settings.cache = cache.capacity
        fields = replacement.fields
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        guard let screens else { return decide(&toast, context: context, keys: &single, screen: nil) }
        return screens.withSlotInHand(slot) { decide(&toast, context: context, keys: &$0, screen: $1) }
    }

    /// Decides on `toast` against `keys`, the keys of its screen (`screen`, whose serial
    /// starts each of them; nil with screens off).
    @inline(__always)
    private func decide(_ toast: inout Toast, context: StageContext, keys: inout ScreenStageSlot, screen: Int?) -> StageVerdict {
        buildIdentity(of: toast, screen: screen, roles: context.roles)
        let now = context.nowMicros
        let passed = PassedToast(time: now, id: toast.id)
        let found = scratch.withBytes { key -> Int? in
            let hash = RecencyCache<PassedToast>.hash(key)
            if let slot = cache.slot(of: key, hash: hash) { return slot }
            cache.insert(key, hash: hash, passed, in: &keys.keys)
            return nil
        }
        guard let slot = found else {
            if screen != nil { keys.lastPass = now }
            return .pass
        }
        let earlier = cache.value(at: slot)
        if settings.window == 0 || now - earlier.time < settings.window {
            context.explain(self.explanation(of: toast, earlier: earlier, context: context))
            return .drop(Drop(stage: context.stageLabel, reason: .duplicate, of: earlier.id))
        }
        cache.update(at: slot, passed, in: &keys.keys)
        if screen != nil { keys.lastPass = now }
        return .pass
    }

    /// "same message, subtitle and role as t1 at 2 s, within the 5 s window".
    private func explanation(of toast: Toast, earlier: PassedToast, context: StageContext) -> String {
        let what = toast.key != nil ? "key \(quoted(toast.key ?? ""))" : Self.list(settings.fields)
        let window = settings.window == 0 ? "the window is 0: every repeat is dropped"
                                          : "within the \(StreamTime.format(settings.window)) s window"
        return "same \(what) as \(earlier.id) at \(context.describe(earlier.time)), \(window)"
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "nothing" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Builds in `scratch` the toast's identity (`Toast.appendIdentity`), after its screen's
    /// serial when there is one.
    private func buildIdentity(of toast: Toast, screen: Int?, roles: RoleTable) {
        scratch.removeAll()
        if let screen { scratch.appendSerial(screen) }
        toast.appendIdentity(fields: fields, roles: roles, to: &scratch)
    }
}

extension DedupStage {
    /// The keys that passed, the least recently passed first, each with when and which toast;
    /// with screens on, those of each screen (by serial), each key without the serial.
    package func saveState() -> JSONValue? {
        guard let screens else { return .object(saved(single)) }
        let held = screens.bySerial.values.sorted { $0.serial < $1.serial }
        return .object([JSONMember("screens", .array(held.compactMap(savedPart(of:))))])
    }

    /// With screens on, nothing but the screens' parts: each is saved with its screen.
    func savedSharedState() -> JSONValue? {
        screens == nil ? saveState() : .object([JSONMember("screens", .array([]))])
    }

    func hasSavedPart(of screen: Screen) -> Bool { !screen.stageSlots[slot].isEmpty }

    /// A screen's keys, as `saveState` lists them under `screens`.
    func writeSavedPart(of screen: Screen, to writer: inout JSONWriter) {
        let keys = screen.stageSlots[slot]
        writer.beginObject()
        writer.member("screen", screen.serial)
        writer.key("keys")
        writer.beginArray()
        cache.forEachOldestFirst(of: keys.keys) { key, passed in
            writer.beginObject()
            writer.key("key")
            SavedKey.write(UnsafeRawBufferPointer(rebasing: key[ScreenSerialPrefix.count...]), to: &writer)
            writer.member("time", passed.time)
            writer.member("id", passed.id)
            writer.endObject()
        }
        writer.endArray()
        writer.key("last_pass")
        if let lastPass = keys.lastPass { writer.integer(lastPass) } else { writer.null() }
        writer.endObject()
    }

    /// The keys with screens off.
    private func saved(_ keys: ScreenStageSlot) -> [JSONMember] {
        [JSONMember("keys", .array(cache.entriesOldestFirst(of: keys.keys).map { entry in
            .object([JSONMember("key", SavedKey.value(entry.key)),
                     JSONMember("time", .integer(entry.value.time)), JSONMember("id", .string(entry.value.id))])
        }))]
    }

    /// With screens on, each screen's keys are restored with the screen (`restoreSavedPart`).
    package func restoreState(from saved: JSONValue) throws {
        let object = try SavedObject(saved, path: "state")
        var restored = RecencyCache<PassedToast>(capacity: cache.capacity)
        if screens != nil {
            cache = restored
        } else {
            let keys = try restore(object, path: "state", into: &restored, screen: nil)
            cache = restored
            single = keys
        }
    }

    /// A screen's keys, into the cache `restoreState` emptied.
    func restoreSavedPart(of screen: Screen, from saved: SavedObject, path: String) throws {
        screen.stageSlots[slot] = try restore(saved, path: path, into: &cache, screen: screen.serial)
    }

    private func restore(_ object: SavedObject, path: String, into restored: inout RecencyCache<PassedToast>,
                         screen: Int?) throws -> ScreenStageSlot {
        var keys = ScreenStageSlot()
        var key = ByteBuffer(capacity: 64)
        for (index, item) in try object.list("keys").enumerated() {
            let entry = try SavedObject(item, item: index, of: "keys", in: path)
            key.removeAll()
            if let screen { key.appendSerial(screen) }
            try SavedKey.append(try entry.required("key"), path: "\(path).keys[\(index)].key", to: &key)
            let passed = PassedToast(time: try entry.integer("time"), id: try entry.string("id"))
            key.withBytes { restored.insert($0, hash: RecencyCache<PassedToast>.hash($0), passed, in: &keys.keys) }
        }
        guard screen != nil else { return keys }
        switch try object.required("last_pass") {
        case .null: keys.lastPass = nil
        case .integer(let time): keys.lastPass = time
        default: throw SavedStateError("\(path).last_pass is not a time")
        }
        return keys
    }
}

extension DedupStage: ScreenKeyedStage {
    func keyByScreen(in table: ScreenTable, slot: Int) {
        (screens, self.slot) = (table, slot)
    }

    /// A key keeps its screen for `window` after it passed; with `window = 0` no key does (a
    /// repeat on a screen that came back is no repeat).
    func stateEnds(of screen: Screen, now: Microseconds) -> ScreenStateEnd {
        guard settings.window > 0, let lastPass = screen.stageSlots[slot].lastPass, now < lastPass + settings.window else { return .now }
        return .at(lastPass + settings.window)
    }

    func forget(_ screen: Screen) {
        cache.removeAll(in: &screen.stageSlots[slot].keys)
        screen.stageSlots[slot] = ScreenStageSlot()
    }
}

extension DedupStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}

