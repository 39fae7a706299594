/// The `debounce` stage: a burst of toasts with one key ends in its last toast. A toast whose
/// key holds nothing is held and starts a burst; a later one of the key drops the held one
/// (`debounced`, `by` the newcomer) and is held in its place. The held toast goes on at
/// `last + window` (`last`: when it arrived), or at `first + max_wait` when that is sooner.
/// A toast's key here is the tuple of its `fields` alone: its `key` field is dedup's.
///
/// A progress line every 200 ms ("Saving 10 %", "Saving 20 %", …, with `fields = {"upload"}`)
/// shows once, the last one, when the progress settles.
package final class DebounceStage: ToastStage, CalledUnretained {
    package private(set) var settings: DebounceSettings
    /// An error is never dropped or held back for being one of many.
    package var defaultSpare: DefaultSpare { .errors }
    private var fields: [FieldReference]
    fileprivate var bursts: [[UInt8]: Burst] = [:]
    /// The key each pending release timer is for; a burst's timer is the one it names.
    private var timerKeys: [Int: [UInt8]] = [:]
    private var nextToken = 0
    private var scratch = ByteBuffer(capacity: 64)

    fileprivate struct Burst {
        var held: HoldHandle
        var first: Microseconds
        var timer: Int
    }

    package init(settings: DebounceSettings) {
        self.settings = settings
        self.fields = settings.fields.map(FieldReference.init(name:))
    }

    /// New settings; the bursts held now go on as they were set.
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? DebounceStage else { return }
        (settings, fields) = (replacement.settings, replacement.fields)
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        scratch.removeAll()
        toast.appendFieldsIdentity(fields: fields, roles: context.roles, to: &scratch)
        let key = scratch.bytes
        let now = context.nowMicros
        var first = now
        var continues = false
        if let burst = bursts[key], context.isHeld(burst.held) {
            (first, continues) = (burst.first, true)
            context.drop(burst.held, Drop(stage: context.stageName, reason: .debounced, by: toast.id))
        }
        var release = now + settings.window
        if let maxWait = settings.maxWait { release = min(release, first + maxWait) }
        nextToken += 1
        let handle = context.hold()
        bursts[key] = Burst(held: handle, first: first, timer: nextToken)
        timerKeys[nextToken] = key
        context.setTimer(atMicros: release, token: nextToken)
        context.explain(!continues
            ? "a burst starts: held until \(context.describe(release)), unless a toast of its key comes first"
            : "the burst since \(context.describe(first)) goes on: held until \(context.describe(release))")
        return .hold(handle)
    }

    /// For a screen reused after another was forgotten: no burst.
    func empty() {
        bursts = [:]
        timerKeys = [:]
    }

    /// With screens on, each screen has its own bursts.
    package func forNewScreen() -> (any ToastStage)? {
        DebounceStage(settings: settings)
    }

    package func timerFired(token: Int, context: StageContext) {
        guard let key = timerKeys.removeValue(forKey: token), let burst = bursts[key], burst.timer == token else { return }
        bursts[key] = nil
        context.release(burst.held)
    }
}

extension DebounceStage {
    /// Each burst's key (`SavedKey`) with its held toast, its start and its timer; the
    /// timers' keys by token, and the token counter.
    package func saveState() -> JSONValue? {
        .object([
            JSONMember("bursts", .array(bursts.sorted { $0.value.timer < $1.value.timer }.map { key, burst in
                .object([JSONMember("key", SavedKey.value(key)), JSONMember("held", burst.held.savedState),
                         JSONMember("first", .integer(burst.first)), JSONMember("timer", .integer(Int64(burst.timer)))])
            })),
            JSONMember("timers", .array(timerKeys.sorted { $0.key < $1.key }.map { token, key in
                .object([JSONMember("token", .integer(Int64(token))), JSONMember("key", SavedKey.value(key))])
            })),
            JSONMember("next_token", .integer(Int64(nextToken))),
        ])
    }

    package func restoreState(from saved: JSONValue) throws {
        let path = "state"
        let object = try SavedObject(saved, path: path)
        var restoredBursts: [[UInt8]: Burst] = [:]
        var burstTimers = Set<Int>()
        let savedBursts = try object.list("bursts")
        for (index, item) in savedBursts.enumerated() {
            let itemPath = "\(path).bursts[\(index)]"
            let burst = try SavedObject(item, path: itemPath)
            let key = try SavedKey.bytes(try burst.required("key"), path: "\(itemPath).key")
            let timer = Int(try burst.integer("timer"))
            // Each burst has a key and a timer of its own: a timer releases one burst.
            guard restoredBursts[key] == nil else { throw SavedStateError("\(itemPath).key is another burst's too") }
            guard burstTimers.insert(timer).inserted else { throw SavedStateError("\(itemPath).timer is another burst's too") }
            restoredBursts[key] = Burst(held: try HoldHandle(savedState: try burst.required("held"), path: "\(itemPath).held"),
                                        first: try burst.integer("first"), timer: timer)
        }
        var restoredTimers: [Int: [UInt8]] = [:]
        let savedTimers = try object.list("timers")
        for (index, item) in savedTimers.enumerated() {
            let timer = try SavedObject(item, path: "\(path).timers[\(index)]")
            let token = Int(try timer.integer("token"))
            guard restoredTimers[token] == nil else { throw SavedStateError("\(path).timers[\(index)].token is another timer's too") }
            restoredTimers[token] = try SavedKey.bytes(try timer.required("key"), path: "\(path).timers[\(index)].key")
        }
        let token = Int(try object.integer("next_token"))
        (bursts, timerKeys, nextToken) = (restoredBursts, restoredTimers, token)
    }
}

extension DebounceStage: ScreenState {
    /// A burst keeps its screen until its release timer fires, while its toast is held: a
    /// burst whose toast was cancelled (a `dismiss`) holds nothing.
    func stateEnds(now: Microseconds, isHeld: (HoldHandle) -> Bool) -> ScreenStateEnd {
        bursts.values.contains { isHeld($0.held) } ? .onActivity : .now
    }
}

extension DebounceStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}

