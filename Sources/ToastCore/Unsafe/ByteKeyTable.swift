/// A hash table from byte strings to values, looked up with borrowed bytes: no allocation for a
/// lookup, and the keys stored one after another in one array, so storing or forgetting a key
/// allocates and frees nothing (emptying the table frees nothing either). The dedup cache and
/// the rate limit's groups key their state by the bytes of a toast's fields this way.
///
/// An open-addressing table of entry numbers, probed linearly by a hash of the bytes seeded at
/// random for each process (`SeededByteHash`), so input cannot be crafted to make its keys
/// collide; the bytes are compared (one `memcmp`) only when the hashes match. At most half the
/// buckets are used; removal shifts the rest of the probe run back, so there are no tombstones.
/// An entry keeps its number while it is stored. A forgotten key's bytes stay in `keyBytes`
/// until they are half of it and more than there are entries; then the stored keys are copied
/// together again.
///
/// Safe to use: a key is borrowed only for the call that looks it up or copies it in, and every
/// stored key is a range of `keyBytes` that the table checks before it compares.
struct ByteKeyTable<Value>: ~Copyable {
    private struct Entry {
        /// Where the key's bytes are in `keyBytes`; for a removed entry, the next removed one's
        /// number (-1: none), so the free numbers need no array of their own.
        var keyStart: Int
        /// -1 for a removed entry.
        var keyCount: Int32
        /// The low 32 bits of the key's hash, all that a bucket's number takes (the buckets
        /// never number 2³²) and enough to skip most keys without comparing bytes; with
        /// `keyCount` in 32 bits, an entry costs a word less in every table (with screens on,
        /// every screen has an entry in three of them).
        var hash: UInt32

        init(keyStart: Int, keyCount: Int, hash: Int, value: consuming Value) {
            self.keyStart = keyStart
            self.keyCount = Int32(truncatingIfNeeded: keyCount)
            self.hash = UInt32(truncatingIfNeeded: hash)
            self.value = value
        }

        var home: Int { Int(hash) }
        var value: Value

        var isStored: Bool { keyCount >= 0 }
    }

    /// Entries by number; a removed one stays until its number is reused. A screen's tables
    /// are touched only now and then, each array a miss in the cache, so there are few of them.
    private var entries: [Entry] = []
    /// The first removed entry's number (-1: none); each names the next in its `keyStart`.
    private var firstFree = -1
    /// Entry numbers by hash; -1 is empty. In 32 bits (no table holds 2³¹ entries): half the
    /// memory of the buckets, which with screens on hold a million entries or more.
    private var buckets = [Int32](repeating: -1, count: 8)
    private(set) var count = 0
    /// The entry numbers given so far, stored or not: what a look through every entry costs.
    var numberCount: Int { entries.count }
    /// The keys' bytes, each entry's at its `keyStart`; `forgottenBytes` of them belong to no
    /// stored entry.
    private var keyBytes = ByteBuffer(capacity: 64)
    private var forgottenBytes = 0

    static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        SeededByteHash.hash(key)
    }

    /// The number of the entry for `key` (whose `hash` is given), if it is stored.
    ///
    /// `mutating` though it changes nothing: a mutating call works on the table where it is,
    /// where a read made the compiler copy the whole table out first (four arrays retained and
    /// released for every toast).
    mutating func number(of key: UnsafeRawBufferPointer, hash: Int) -> Int? {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while true {
            let number = Int(buckets[bucket])
            if number < 0 { return nil }
            if entries[number].hash == UInt32(truncatingIfNeeded: hash), hasKey(key, at: number) {
                return number
            }
            bucket = (bucket + 1) & mask
        }
    }

    /// Whether entry `number`'s key has the bytes `key`.
    private func hasKey(_ key: UnsafeRawBufferPointer, at number: Int) -> Bool {
        let (start, count) = (entries[number].keyStart, Int(entries[number].keyCount))
        guard count == key.count else { return false }
        return keyBytes.withBytes { UnsafeRawBufferPointer(rebasing: $0[start..<start + count]).hasSameBytes(as: key) }
    }

    /// Stores `key`, which is not stored yet; returns its entry's number.
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: Int, _ value: consuming Value) -> Int {
        let keyStart = keyBytes.count
        keyBytes.append(key)
        // Each entry made where it goes: one made before and stored after was copied (the
        // value's references retained and released) through the type's value witnesses.
        let number: Int
        if firstFree >= 0 {
            number = firstFree
            firstFree = entries[number].keyStart
            entries[number] = Entry(keyStart: keyStart, keyCount: key.count, hash: hash, value: value)
        } else {
            number = entries.count
            entries.append(Entry(keyStart: keyStart, keyCount: key.count, hash: hash, value: value))
        }
        count += 1
        if count * 2 > buckets.count { grow() } else { place(number, hash: entries[number].home) }
        return number
    }

    /// The key bytes of entry `number`, which is stored (a copy).
    func key(at number: Int) -> [UInt8] {
        let (start, count) = (entries[number].keyStart, Int(entries[number].keyCount))
        return keyBytes.withBytes { Array($0[start..<start + count]) }
    }

    /// Calls `body` with the key of entry `number`, which is stored, lent for the call.
    func withKey<Result>(at number: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let (start, count) = (entries[number].keyStart, Int(entries[number].keyCount))
        return keyBytes.withBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
    }

    /// The value of entry `number`, which is stored.
    subscript(number: Int) -> Value {
        get { entries[number].value }
        _modify { yield &entries[number].value }
    }

    /// Forgets entry `number`; its number may be given to a later key.
    mutating func remove(at number: Int) {
        guard entries[number].isStored else { return }
        let hash = entries[number].home
        let mask = buckets.count - 1
        var hole = hash & mask
        while Int(buckets[hole]) != number { hole = (hole + 1) & mask }
        var next = hole
        while true {
            next = (next + 1) & mask
            let moving = buckets[next]
            if moving < 0 { break }
            let home = entries[Int(moving)].home & mask
            // It stays if its home lies cyclically after the hole and up to where it is.
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if staysPut { continue }
            buckets[hole] = moving
            hole = next
        }
        buckets[hole] = -1
        forgottenBytes += Int(entries[number].keyCount)
        entries[number].keyCount = -1
        entries[number].keyStart = firstFree
        firstFree = number
        count -= 1
        // Compacting looks through every entry, so it waits for as many forgotten bytes as there
        // are entries: a table that once held many keys and now holds few compacts as seldom.
        if forgottenBytes > 4_096 && forgottenBytes * 2 > keyBytes.count && forgottenBytes > entries.count { compactKeys() }
    }

    /// Copies the stored keys together, dropping the forgotten bytes between them.
    private mutating func compactKeys() {
        var compacted = ByteBuffer(capacity: keyBytes.count - forgottenBytes)
        keyBytes.withBytes { all in
            for number in entries.indices where entries[number].isStored {
                let start = entries[number].keyStart
                entries[number].keyStart = compacted.count
                compacted.append(UnsafeRawBufferPointer(rebasing: all[start..<start + Int(entries[number].keyCount)]))
            }
        }
        keyBytes = compacted
        forgottenBytes = 0
    }

    /// Forgets every entry, keeping the memory (a screen's table, emptied for another screen).
    mutating func removeAll() {
        // One at a time: `removeAll(keepingCapacity:)` goes through the array's generic
        // `replaceSubrange`, which costs more than the few entries a forgotten screen's table has.
        while entries.popLast() != nil {}
        firstFree = -1
        keyBytes.removeAll()
        forgottenBytes = 0
        for bucket in buckets.indices { buckets[bucket] = -1 }
        count = 0
    }

    /// Every stored key and value, in the order of their entry numbers (for `--state`).
    func storedEntries() -> [(key: [UInt8], value: Value)] {
        entries.indices.filter { entries[$0].isStored }.map { (key(at: $0), entries[$0].value) }
    }

    /// The numbers of the stored entries, in order.
    var storedNumbers: [Int] { entries.indices.filter { entries[$0].isStored } }

    /// Calls `body` with each stored entry's number and value, in the order of their numbers.
    func forEachStored(_ body: (Int, Value) -> Void) {
        for number in entries.indices where entries[number].isStored { body(number, entries[number].value) }
    }

    /// Whether entry `number` holds a key (a removed one's value is what it held, until its
    /// number is given to another key).
    func isStored(_ number: Int) -> Bool { entries[number].isStored }

    /// Puts entry `number` in the first empty bucket from its hash.
    private mutating func place(_ number: Int, hash: Int) {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Int32(truncatingIfNeeded: number)
    }

    /// Doubles the buckets and places every entry again.
    private mutating func grow() {
        buckets = [Int32](repeating: -1, count: buckets.count * 2)
        for number in entries.indices where entries[number].isStored {
            place(number, hash: entries[number].home)
        }
    }
}
