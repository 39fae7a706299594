/// A map from byte strings of bounded size that forgets the least recently stored entry first.
/// Looking up does not count as use; only storing does (dedup remembers passes, not drops).
/// Keys are looked up as borrowed bytes (`ByteKeyTable`).
///
/// Safe to use as `ByteKeyTable` is: a key is borrowed only for the call that looks it up or
/// stores it, and entries are linked by number, not by pointer.
struct RecencyCache<Value>: ~Copyable {
    /// A stored value with its neighbours in its list (entry numbers; -1: none). Entry numbers
    /// fit in 32 bits: a cache of 2³¹ keys would not fit in memory.
    private struct Node {
        var value: Value
        var newer: Int32
        var older: Int32
    }

    /// Keys from the least recently stored to the most, at most `capacity` of them: the cache
    /// keeps one (`keys`), or a caller keeps one for each part of its keys (dedup with screens
    /// on: a list a screen, each in the screen's slot, all in one cache) and passes it in.
    typealias List = CachedKeyList

    let capacity: Int
    private var table = ByteKeyTable<Node>()
    /// The list of a cache that keeps one.
    private var keys = List()

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Forgets every key, keeping the memory.
    mutating func removeAll() {
        table.removeAll()
        keys = List()
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
        var list = keys
        update(at: slot, value, in: &list)
        keys = list
    }

    /// Stores a key that is not stored yet, forgetting the least recently used at capacity.
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: Int, _ value: Value) {
        var list = keys
        insert(key, hash: hash, value, in: &list)
        keys = list
    }

    /// Every key and value, the least recently used first (for `--state`).
    func entriesOldestFirst() -> [(key: [UInt8], value: Value)] {
        entriesOldestFirst(of: keys)
    }

    /// Stores `key` as the most recently used (a key not stored yet; for `--state`).
    mutating func insert(_ key: [UInt8], _ value: Value) {
        key.withUnsafeBytes { insert($0, hash: Self.hash($0), value) }
    }

    // MARK: A list kept by the caller

    /// `update(at:_:)` for a key of `list`.
    mutating func update(at slot: Int, _ value: Value, in list: inout List) {
        table[slot].value = value
        unlink(slot, from: &list)
        linkAsNewest(slot, in: &list)
    }

    /// `insert(_:hash:_:)` into `list`, forgetting its least recently used at capacity.
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: Int, _ value: Value, in list: inout List) {
        guard capacity > 0 else { return }
        if Int(list.count) >= capacity {
            let forgotten = Int(list.oldest)
            unlink(forgotten, from: &list)
            table.remove(at: forgotten)
        }
        let slot = table.insert(key, hash: hash, Node(value: value, newer: -1, older: -1))
        linkAsNewest(slot, in: &list)
    }

    /// Forgets every key of `list`, which is left empty.
    mutating func removeAll(in list: inout List) {
        var slot = Int(list.oldest)
        while slot >= 0 {
            let newer = Int(table[slot].newer)
            table.remove(at: slot)
            slot = newer
        }
        list = List()
    }

    /// The keys and values of `list`, the least recently used first (for `--state`).
    /// Each entry of `list`, the least recently used first, its key's bytes lent for the call
    /// (a checkpoint writes them without an array for each).
    func forEachOldestFirst(of list: List, _ body: (UnsafeRawBufferPointer, Value) -> Void) {
        var slot = Int(list.oldest)
        while slot >= 0 {
            table.withKey(at: slot) { body($0, table[slot].value) }
            slot = Int(table[slot].newer)
        }
    }

    func entriesOldestFirst(of list: List) -> [(key: [UInt8], value: Value)] {
        var entries: [(key: [UInt8], value: Value)] = []
        var slot = Int(list.oldest)
        while slot >= 0 {
            entries.append((table.key(at: slot), table[slot].value))
            slot = Int(table[slot].newer)
        }
        return entries
    }

    @inline(__always)
    private mutating func unlink(_ slot: Int, from list: inout List) {
        let newer = table[slot].newer
        let older = table[slot].older
        if newer >= 0 { table[Int(newer)].older = older } else { list.newest = older }
        if older >= 0 { table[Int(older)].newer = newer } else { list.oldest = newer }
        list.count -= 1
    }

    @inline(__always)
    private mutating func linkAsNewest(_ slot: Int, in list: inout List) {
        let number = Int32(truncatingIfNeeded: slot)
        table[slot].older = list.newest
        table[slot].newer = -1
        if list.newest >= 0 { table[Int(list.newest)].newer = number }
        list.newest = number
        if list.oldest < 0 { list.oldest = number }
        list.count += 1
    }
}
