import Testing
@testable import ToastCore

/// The byte-keyed table the screens, dedup and the rate limit look things up in: against a
/// dictionary, under random inserts and removals that reuse entry numbers, grow the buckets and
/// make the forgotten key bytes be compacted.
@Suite struct ByteKeyTableTests {
    /// A table and the model it must agree with, keys as strings.
    private struct Checked: ~Copyable {
        var table = ByteKeyTable<Int>()
        var model: [String: (number: Int, value: Int)] = [:]

        mutating func number(of key: String) -> Int? {
            var key = key
            return key.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                return table.number(of: raw, hash: ByteKeyTable<Int>.hash(raw))
            }
        }

        mutating func insert(_ key: String, _ value: Int) {
            var bytes = key
            let number = bytes.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                return table.insert(raw, hash: ByteKeyTable<Int>.hash(raw), value)
            }
            #expect(!model.values.contains { $0.number == number }, "a stored entry's number given again")
            model[key] = (number, value)
        }

        mutating func remove(_ key: String) {
            guard let number = model.removeValue(forKey: key)?.number else { return }
            table.remove(at: number)
        }

        /// Every key of the model is found with its number and value; the count agrees.
        mutating func expectAgreement() {
            #expect(table.count == model.count)
            for (key, entry) in model {
                #expect(number(of: key) == entry.number, "\(key)")
                #expect(table[entry.number] == entry.value)
            }
        }
    }

    @Test func agreesWithADictionaryUnderRandomChanges() {
        var random = InvariantTests.SeededGenerator(state: 7)
        var checked = Checked()
        for step in 0..<20_000 {
            // Long keys now and then, so forgotten bytes pass 4 KB and the keys are compacted.
            let key = "k\(random.next() % 600)" + (random.next() % 8 == 0 ? String(repeating: "x", count: 300) : "")
            if checked.model[key] != nil {
                if random.next() % 3 == 0 {
                    checked.table[checked.model[key]!.number] = step
                    checked.model[key]!.value = step
                } else {
                    checked.remove(key)
                    #expect(checked.number(of: key) == nil)
                }
            } else {
                checked.insert(key, step)
            }
            if step % 997 == 0 { checked.expectAgreement() }
        }
        checked.expectAgreement()
    }

    @Test func removedNumbersAreGivenAgainAndEmptyingKeepsItUsable() {
        var checked = Checked()
        for index in 0..<100 { checked.insert("key \(index)", index) }
        let freed = [3, 50, 97].map { checked.model["key \($0)"]!.number }
        for index in [3, 50, 97] { checked.remove("key \(index)") }
        for index in 100..<103 { checked.insert("key \(index)", index) }
        #expect(Set(freed) == Set((100..<103).map { checked.model["key \($0)"]!.number }))
        checked.expectAgreement()

        // A sweep's way: the numbers of the even values, then each removed; a removed number
        // is no longer stored but keeps its value until the number is given again.
        var even: [(number: Int, value: Int)] = []
        checked.table.forEachStored { number, value in if value % 2 == 0 { even.append((number, value)) } }
        #expect(even.count == checked.model.values.filter { $0.value % 2 == 0 }.count)
        for entry in even { checked.table.remove(at: entry.number) }
        #expect(even.allSatisfy { !checked.table.isStored($0.number) && checked.table[$0.number] == $0.value })
        checked.model = checked.model.filter { $0.value.value % 2 != 0 }
        #expect(checked.model.values.allSatisfy { checked.table.isStored($0.number) })
        checked.expectAgreement()

        checked.table.removeAll()
        checked.model = [:]
        checked.expectAgreement()
        #expect(checked.number(of: "key 1") == nil)
        for index in 0..<40 { checked.insert("again \(index)", index) }
        checked.expectAgreement()
    }
}
