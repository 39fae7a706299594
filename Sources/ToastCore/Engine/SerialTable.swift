/// A hash table from the run's own serial numbers (counted from 1) to values: the screens by
/// serial, looked up for every timer of every screen.
///
/// The serials come from a counter, not from input, so a multiplicative hash spreads them
/// and nothing can be crafted to collide; a `Dictionary` hashed each one with the seeded
/// SipHash of `Hasher`, which cost more than the rest of the lookup. Open addressing, probed
/// linearly, at most half the buckets used; removal shifts the rest of the probe run back, so
/// there are no tombstones.
struct SerialTable<Value> {
    /// The serial in each bucket; 0 is empty.
    private var serials = [Int](repeating: 0, count: 16)
    private var stored = [Value?](repeating: nil, count: 16)
    private(set) var count = 0

    /// The value stored for `serial`, if any; setting nil removes it.
    subscript(serial: Int) -> Value? {
        get {
            guard let bucket = bucket(of: serial) else { return nil }
            return stored[bucket]
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
    var values: [Value] { stored.compactMap { $0 } }

    mutating func removeAll() {
        self = SerialTable()
    }

    private var mask: Int { serials.count - 1 }

    /// Fibonacci hashing: the high bits of the serial times 2⁶⁴/φ, masked to the table.
    private func home(of serial: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(serial)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private func bucket(of serial: Int) -> Int? {
        var bucket = home(of: serial)
        while true {
            let found = serials[bucket]
            if found == serial { return bucket }
            if found == 0 { return nil }
            bucket = (bucket + 1) & mask
        }
    }

    private mutating func insert(_ value: Value, for serial: Int) {
        var bucket = home(of: serial)
        while serials[bucket] != 0 && serials[bucket] != serial { bucket = (bucket + 1) & mask }
        if serials[bucket] == 0 { count += 1 }
        serials[bucket] = serial
        stored[bucket] = value
        if count * 2 > serials.count { grow() }
    }

    /// Empties `bucket` and moves back each entry after it in the probe run that may no longer
    /// be reachable from its home bucket.
    private mutating func remove(at bucket: Int) {
        var hole = bucket
        var next = (bucket + 1) & mask
        while serials[next] != 0 {
            let home = home(of: serials[next])
            // Whether `home` lies cyclically outside (hole, next]: then the entry may move to the hole.
            let reachable = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !reachable {
                serials[hole] = serials[next]
                stored[hole] = stored[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        serials[hole] = 0
        stored[hole] = nil
        count -= 1
    }

    private mutating func grow() {
        let old = zip(serials, stored)
        serials = [Int](repeating: 0, count: serials.count * 2)
        stored = [Value?](repeating: nil, count: serials.count)
        count = 0
        for (serial, value) in old where serial != 0 {
            if let value { insert(value, for: serial) }
        }
    }
}
