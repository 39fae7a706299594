/// The `dedup` stage: drops a toast whose key passed less than `window` ago (SPEC §3 dedup).
///
/// The window counts from the last toast that passed, so a steady flood passes once per
/// window. At most `cache` keys are remembered, the least recently passed forgotten first.
public final class DedupStage: ToastStage {
    public let settings: DedupSettings
    private let fields: [FieldReference]
    /// `cache` and `scratch` go without the run-time exclusivity check (docs/performance.md,
    /// "Exclusivity checks"): each access is one step of `process` that calls out to nothing
    /// that could reach this stage.
    @exclusivity(unchecked) private var cache: RecencyCache<ByteKey, PassedToast>
    /// Reused for building each key.
    @exclusivity(unchecked) private var scratch = ByteBuffer(capacity: 256)

    struct PassedToast {
        var time: Microseconds
        var id: String
    }

    public init(settings: DedupSettings) {
        self.settings = settings
        self.fields = settings.fields.map(FieldReference.init(name:))
        self.cache = RecencyCache(capacity: settings.cache)
    }

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        let key = identity(of: toast, roles: context.roles)
        let now = context.nowMicros
        let passed = PassedToast(time: now, id: toast.id)
        guard let slot = cache.slot(of: key) else {
            cache.insert(key, passed)
            return .pass
        }
        let earlier = cache.value(at: slot)
        if settings.window == 0 || now - earlier.time < settings.window {
            context.explain(self.explanation(of: toast, earlier: earlier))
            return .drop(Drop(stage: "dedup", reason: .duplicate, of: earlier.id))
        }
        cache.update(at: slot, passed)
        return .pass
    }

    /// "same message, subtitle and role as t1 at 2 s, within the 5 s window".
    private func explanation(of toast: Toast, earlier: PassedToast) -> String {
        let what = toast.key != nil ? "key \(quoted(toast.key ?? ""))" : Self.list(settings.fields)
        let window = settings.window == 0 ? "the window is 0: every repeat is dropped"
                                          : "within the \(StreamTime.format(settings.window)) s window"
        return "same \(what) as \(earlier.id) at \(StreamTime.format(earlier.time)) s, \(window)"
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "nothing" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// The toast's key, or a tuple of its fields; the two never collide, an absent field
    /// differs from `""` (SPEC §8 "Dedup"), and values compare byte for byte.
    func identity(of toast: Toast, roles: RoleTable) -> ByteKey {
        scratch.removeAll()
        if let key = toast.key {
            scratch.append(UInt8(ascii: "K"))
            scratch.appendUTF8(key)
        } else {
            scratch.append(UInt8(ascii: "F"))
            for field in fields {
                scratch.append(UInt8(ascii: "|"))
                toast.appendKey(of: field, roles: roles, to: &scratch)
            }
        }
        return ByteKey(scratch.bytes)
    }
}

/// A map of bounded size that forgets the least recently stored entry first.
/// Looking up does not count as use; only storing does (dedup remembers passes, not drops).
struct RecencyCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var newer: Int
        var older: Int
    }

    let capacity: Int
    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var newest = -1
    private var oldest = -1

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { index.count }

    /// Where `key` is stored, if it is; a lookup that is not a use.
    func slot(of key: Key) -> Int? {
        index[key]
    }

    func value(at slot: Int) -> Value {
        nodes[slot].value
    }

    /// Stores a new value for the key at `slot`, which becomes the most recently used.
    mutating func update(at slot: Int, _ value: Value) {
        nodes[slot].value = value
        unlink(slot)
        linkAsNewest(slot)
    }

    /// Stores a key that is not stored yet, forgetting the least recently used at capacity.
    mutating func insert(_ key: Key, _ value: Value) {
        guard capacity > 0 else { return }
        let slot: Int
        if nodes.count < capacity {
            slot = nodes.count
            nodes.append(Node(key: key, value: value, newer: -1, older: -1))
        } else {
            slot = oldest
            unlink(slot)
            index[nodes[slot].key] = nil
            nodes[slot] = Node(key: key, value: value, newer: -1, older: -1)
        }
        index[key] = slot
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer
        let older = nodes[slot].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
