import ToastCore

/// The live toast proxies by their Lua table's address: every toast's rules make one entry and
/// Lua's collector removes it, so both must be cheap. A `Dictionary` hashes each address with a
/// seeded SipHash, several times the work of an insert and a removal here;
/// here an address is spread by one multiplication (Fibonacci hashing). Addresses come from the
/// allocator, not from input, so nothing needs the seed's protection.
///
/// Open addressing, probed linearly, at most half the slots used; removal shifts the rest of the
/// probe run back, so there are no tombstones.
///
/// Safe: an address is a key only, never read through; its entry goes (Lua's `__gc`) before the
/// allocator can hand the address out again.
struct ProxyTable {
    private var keys: [UnsafeRawPointer?]
    private var values: [ToastProxy?]
    /// log2 of the number of slots.
    private var bits: Int
    private(set) var count = 0

    init() {
        bits = 6
        keys = Array(repeating: nil, count: 1 << bits)
        values = Array(repeating: nil, count: 1 << bits)
    }

    private func home(of key: UnsafeRawPointer) -> Int {
        let spread = UInt(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: spread >> UInt(UInt.bitWidth - bits))
    }

    subscript(key: UnsafeRawPointer) -> ToastProxy? {
        get {
            let mask = keys.count - 1
            var slot = home(of: key)
            while let stored = keys[slot] {
                if stored == key { return values[slot] }
                slot = (slot + 1) & mask
            }
            return nil
        }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    private mutating func insert(_ key: UnsafeRawPointer, _ value: ToastProxy) {
        let mask = keys.count - 1
        var slot = home(of: key)
        while let stored = keys[slot] {
            if stored == key {
                values[slot] = value
                return
            }
            slot = (slot + 1) & mask
        }
        keys[slot] = key
        values[slot] = value
        count += 1
        if count * 2 > keys.count { grow() }
    }

    private mutating func remove(_ key: UnsafeRawPointer) {
        let mask = keys.count - 1
        var slot = home(of: key)
        while true {
            guard let stored = keys[slot] else { return }
            if stored == key { break }
            slot = (slot + 1) & mask
        }
        keys[slot] = nil
        values[slot] = nil
        count -= 1
        // Move back every later entry of the run that may sit at the freed slot.
        var hole = slot
        var next = (slot + 1) & mask
        while let moving = keys[next] {
            let wanted = home(of: moving)
            // The entry may move to the hole if the hole lies on its way from home to `next`.
            if (next - wanted) & mask >= (next - hole) & mask {
                keys[hole] = moving
                values[hole] = values[next]
                keys[next] = nil
                values[next] = nil
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        bits += 1
        keys = Array(repeating: nil, count: 1 << bits)
        values = Array(repeating: nil, count: 1 << bits)
        count = 0
        for (key, value) in zip(oldKeys, oldValues) {
            if let key, let value { insert(key, value) }
        }
    }
}
