/// A map from byte strings of bounded size that forgets the least recently stored entry first.
/// Looking up does not count as use; only storing does (dedup remembers passes, not drops).
/// Keys are looked up as borrowed bytes (`ByteKeyTable`).
///
/// Safe to use as `ByteKeyTable` is: a key is borrowed only for the call that looks it up or
/// stores it, and entries are linked by number, not by pointer.
struct RecencyCache<Value>: ~Copyable {
    private struct Node {
        var value: Value
        var newer: Int
        var older: Int
    }

    let capacity: Int
    private var table = ByteKeyTable<Node>()
    private var newest = -1
    private var oldest = -1

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Forgets every key, keeping the memory.
    mutating func removeAll() {
        table.removeAll()
        (newest, oldest) = (-1, -1)
    }

    var count: Int { table.count }

    static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        ByteKeyTable<Node>.hash(key)
    }

    /// Where `key` (whose `hash` is given) is stored, if it is; a lookup that is not a use.
    /// (`mutating`, like `ByteKeyTable.number`, so that it runs on the cache in place.)
    mutating func slot(of key: UnsafeRawBufferPointer, hash: Int) -> Int? {
        table.number(of: key, hash: hash)
    }

    /// The value at `slot` (`mutating` for the same reason as `slot(of:hash:)`).
    mutating func value(at slot: Int) -> Value {
        table[slot].value
    }

    /// Stores a new value for the key at `slot`, which becomes the most recently used.
    mutating func update(at slot: Int, _ value: Value) {
        table[slot].value = value
        unlink(slot)
        linkAsNewest(slot)
    }

    /// Stores a key that is not stored yet, forgetting the least recently used at capacity.
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: Int, _ value: Value) {
        guard capacity > 0 else { return }
        if table.count >= capacity {
            let forgotten = oldest
            unlink(forgotten)
            table.remove(at: forgotten)
        }
        let slot = table.insert(key, hash: hash, Node(value: value, newer: -1, older: -1))
        linkAsNewest(slot)
    }

    /// Every key and value, the least recently used first (for `--state`).
    func entriesOldestFirst() -> [(key: [UInt8], value: Value)] {
        var entries: [(key: [UInt8], value: Value)] = []
        var slot = oldest
        while slot >= 0 {
            entries.append((table.key(at: slot), table[slot].value))
            slot = table[slot].newer
        }
        return entries
    }

    /// Stores `key` as the most recently used (a key not stored yet; for `--state`).
    mutating func insert(_ key: [UInt8], _ value: Value) {
        key.withUnsafeBytes { insert($0, hash: Self.hash($0), value) }
    }

    private mutating func unlink(_ slot: Int) {
        let newer = table[slot].newer
        let older = table[slot].older
        if newer >= 0 { table[newer].older = older } else { newest = older }
        if older >= 0 { table[older].newer = newer } else { oldest = newer }
    }

    private mutating func linkAsNewest(_ slot: Int) {
        table[slot].older = newest
        table[slot].newer = -1
        if newest >= 0 { table[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
