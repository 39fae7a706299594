/// A hash table from the run's own serial numbers (counted from 1) to values: the screens by
/// serial, looked up for every timer of every screen.
///
/// The serials come from a counter, not from input, so a multiplicative hash spreads them
/// and nothing can be crafted to collide; a `Dictionary` hashed each one with the seeded
/// SipHash of `Hasher`, which cost more than the rest of the lookup. (The serial itself as
/// the hash put screens made one after another side by side, but then removing one walked the
/// whole run of later ones: more instructions and more time.) Each bucket holds its serial
/// and its value together, one miss in the cache for both. Open addressing, probed linearly,
/// at most half the buckets used; removal shifts the rest of the probe run back, so there are
/// no tombstones.
struct SerialTable<Value> {
    private struct Bucket {
        /// 0 is empty.
        var serial: Int
        var value: Value?
    }

    private var buckets = [Bucket](repeating: Bucket(serial: 0, value: nil), count: 16)
    private(set) var count = 0

    /// The value stored for `serial`, if any; setting nil removes it.
    subscript(serial: Int) -> Value? {
        get {
            guard let bucket = bucket(of: serial) else { return nil }
            return buckets[bucket].value
        }
        set {
            precondition(serial > 0, "serials count from 1")
            if let newValue {
                insert(newValue, for: serial)
            } else if let bucket = bucket(of: serial) {
                remove(at: bucket)
            }
        }
    }

    /// Every value, in no particular order.
    var values: [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for bucket in buckets { if let value = bucket.value { values.append(value) } }
        return values
    }

    /// Calls `body` with every value, in no particular order (without a list of them).
    func forEachValue(_ body: (Value) throws -> Void) rethrows {
        for bucket in buckets { if let value = bucket.value { try body(value) } }
    }

    /// Whether a value satisfies `predicate` (without a list of the values).
    func contains(where predicate: (Value) -> Bool) -> Bool {
        buckets.contains { bucket in bucket.value.map(predicate) ?? false }
    }

    mutating func removeAll() {
        self = SerialTable()
    }

    private var mask: Int { buckets.count - 1 }

    /// Fibonacci hashing: the high bits of the serial times 2⁶⁴/φ, masked to the table.
    private func home(of serial: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(serial)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private func bucket(of serial: Int) -> Int? {
        var bucket = home(of: serial)
        while true {
            let found = buckets[bucket].serial
            if found == serial { return bucket }
            if found == 0 { return nil }
            bucket = (bucket + 1) & mask
        }
    }

    private mutating func insert(_ value: Value, for serial: Int) {
        var bucket = home(of: serial)
        while buckets[bucket].serial != 0 && buckets[bucket].serial != serial { bucket = (bucket + 1) & mask }
        if buckets[bucket].serial == 0 { count += 1 }
        buckets[bucket] = Bucket(serial: serial, value: value)
        if count * 2 > buckets.count { grow() }
    }

    /// Empties `bucket` and moves back each entry after it in the probe run that may no longer
    /// be reachable from its home bucket.
    private mutating func remove(at bucket: Int) {
        var hole = bucket
        var next = (bucket + 1) & mask
        while buckets[next].serial != 0 {
            let home = home(of: buckets[next].serial)
            // Whether `home` lies cyclically outside (hole, next]: then the entry may move to the hole.
            let reachable = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !reachable {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Bucket(serial: 0, value: nil)
        count -= 1
    }

    private mutating func grow() {
        let old = buckets
        buckets = [Bucket](repeating: Bucket(serial: 0, value: nil), count: buckets.count * 2)
        count = 0
        for bucket in old where bucket.serial != 0 {
            if let value = bucket.value { insert(value, for: bucket.serial) }
        }
    }
}
