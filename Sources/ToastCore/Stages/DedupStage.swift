/// The `dedup` stage: drops a toast whose key passed less than `window` ago (docs/lua.md, "config").
///
/// The window counts from the last toast that passed, so a steady flood passes once per
/// window. At most `cache` keys are remembered, the least recently passed forgotten first.
package final class DedupStage: ToastStage, CalledUnretained {
    package var settings: DedupSettings { shared.configuration.settings }
    private var fields: [FieldReference] { shared.configuration.fields }

    /// The settings and the fields they name, and the key buffer, which the instances for every
    /// screen share.
    private let shared: PerScreenShared<(settings: DedupSettings, fields: [FieldReference])>
    // Each access is one step of `process` that calls out to nothing that could reach this
    // stage: no access to `cache` overlaps another.
    private var cache: RecencyCache<PassedToast>

    /// The keys that passed, least recently passed first to go.
    /// Reused for building each key.
    private var scratch: ByteBuffer {
        _read { yield shared.scratch }
        _modify { yield &shared.scratch }
    }

    struct PassedToast {
        var time: Microseconds
        var id: String
    }

    /// When a toast last passed (a key was remembered), for `stateEnds`.
    private var lastPass: Microseconds?

    package convenience init(settings: DedupSettings) {
        self.init(sharing: PerScreenShared((settings, settings.fields.map(FieldReference.init(name:)))))
    }

    private init(sharing shared: PerScreenShared<(settings: DedupSettings, fields: [FieldReference])>) {
        self.shared = shared
        self.cache = RecencyCache(capacity: shared.configuration.settings.cache)
    }

    /// New `window` and `fields`; the keys remembered stay, and so does the cache's size (a
    /// new `cache` takes effect at the next start).
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? DedupStage else { return }
        var settings = replacement.settings
        settings.cache = cache.capacity
        shared.configuration = (settings, replacement.fields)
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        buildIdentity(of: toast, roles: context.roles)
        let now = context.nowMicros
        let passed = PassedToast(time: now, id: toast.id)
        let found = scratch.withBytes { key -> Int? in
            let hash = RecencyCache<PassedToast>.hash(key)
            if let slot = cache.slot(of: key, hash: hash) { return slot }
            cache.insert(key, hash: hash, passed)
            return nil
        }
        guard let slot = found else {
            lastPass = now
            return .pass
        }
        let earlier = cache.value(at: slot)
        if settings.window == 0 || now - earlier.time < settings.window {
            context.explain(self.explanation(of: toast, earlier: earlier, context: context))
            return .drop(Drop(stage: context.stageLabel, reason: .duplicate, of: earlier.id))
        }
        cache.update(at: slot, passed)
        lastPass = now
        return .pass
    }

    /// For a screen reused after another was forgotten: no key remembered.
    func empty() {
        cache.removeAll()
        lastPass = nil
    }

    /// With screens on, each screen has its own keys (and shares the settings and the buffer).
    package func forNewScreen() -> (any ToastStage)? {
        DedupStage(sharing: shared)
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

    /// Builds in `scratch` the toast's identity (`Toast.appendIdentity`).
    private func buildIdentity(of toast: Toast, roles: RoleTable) {
        scratch.removeAll()
        toast.appendIdentity(fields: fields, roles: roles, to: &scratch)
    }
}

extension DedupStage {
    /// The keys that passed, the least recently passed first, each with when and which toast.
    package func saveState() -> JSONValue? {
        .object([
            JSONMember("keys", .array(cache.entriesOldestFirst().map { entry in
                .object([JSONMember("key", .string(SavedBytes.text(entry.key))),
                         JSONMember("time", .integer(entry.value.time)), JSONMember("id", .string(entry.value.id))])
            })),
            JSONMember("last_pass", lastPass.map { .integer($0) } ?? .null),
        ])
    }

    package func restoreState(from saved: JSONValue) throws {
        let path = "state"
        let object = try SavedObject(saved, path: path)
        let keys = try object.list("keys")
        var restored = RecencyCache<PassedToast>(capacity: cache.capacity)
        for (index, item) in keys.enumerated() {
            let entry = try SavedObject(item, path: "\(path).keys[\(index)]")
            restored.insert(try SavedBytes.bytes(try entry.required("key"), path: "\(path).keys[\(index)].key"),
                            PassedToast(time: try entry.integer("time"), id: try entry.string("id")))
        }
        let lastPass: Microseconds?
        switch try object.required("last_pass") {
        case .null: lastPass = nil
        case .integer(let time): lastPass = time
        default: throw SavedStateError("\(path).last_pass is not a time")
        }
        cache = restored
        self.lastPass = lastPass
    }
}

extension DedupStage: ScreenState {
    /// A key keeps its screen for `window` after it passed; with `window = 0` no key does (a
    /// repeat on a screen that came back is no repeat).
    func stateEnds(now: Microseconds, isHeld: (HoldHandle) -> Bool) -> ScreenStateEnd {
        guard settings.window > 0, let lastPass, now < lastPass + settings.window else { return .now }
        return .at(lastPass + settings.window)
    }
}

extension DedupStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}

