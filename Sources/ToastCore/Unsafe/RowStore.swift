/// Rows that are each appended once and taken out once, moved out in place: a show's fields
/// wait in their batch as a row (`ShowBatch`) and move from there straight into their toast's
/// storage. An array of optionals took each row out by copying it whole and writing `nil`
/// behind it, and the fields are some 300 bytes: the toast was made with four copies of them.
///
/// Safe to use: `take` lends the row's memory only while the row is there (appended and not
/// taken: checked), and marks it taken before lending it, so no row is read or moved twice;
/// the one borrower, `FieldStorage.make(movingFieldsFrom:)`, moves the row out before it
/// returns. The rows never taken are deinitialized with the store, the taken ones are not.
struct RowStore<Row>: ~Copyable {
    private var base: UnsafeMutablePointer<Row>
    private var capacity: Int
    /// Whether each row appended so far has been taken.
    private var taken: [Bool] = []

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = .allocate(capacity: self.capacity)
        taken.reserveCapacity(self.capacity)
    }

    deinit {
        for (index, isTaken) in taken.enumerated() where !isTaken { (base + index).deinitialize(count: 1) }
        base.deallocate()
    }

    /// Rows appended, taken ones included.
    var count: Int { taken.count }

    /// Keeps `row`; returns its number.
    mutating func append(_ row: consuming Row) -> Int {
        let index = taken.count
        if index == capacity {
            let larger = UnsafeMutablePointer<Row>.allocate(capacity: capacity * 2)
            // Only the rows still there are moved: a taken row's memory is uninitialized.
            for (row, isTaken) in taken.enumerated() where !isTaken { (larger + row).moveInitialize(from: base + row, count: 1) }
            base.deallocate()
            base = larger
            capacity *= 2
        }
        (base + index).initialize(to: row)
        taken.append(false)
        return index
    }

    /// `body` with the memory of row `index`, which it must move out (`pointer.move()`) before
    /// it returns; nil, without calling `body`, when that row was taken before.
    mutating func take<Result>(_ index: Int, _ body: (UnsafeMutablePointer<Row>) -> Result) -> Result? {
        precondition(index >= 0 && index < taken.count, "a row of the store")
        guard !taken[index] else { return nil }
        taken[index] = true
        return body(base + index)
    }
}
