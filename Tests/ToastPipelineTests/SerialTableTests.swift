import Testing
@testable import ToastCore

/// The screens by serial: whatever is stored and removed, in any order, the table answers as a
/// dictionary would (removal moves entries back along their probe runs, growing rehashes).
@Suite struct SerialTableTests {
    @Test func itAnswersAsADictionaryWouldThroughInsertsRemovalsAndGrowth() {
        var random = InvariantTests.SeededGenerator(state: 41)
        var table = SerialTable<String>()
        var model: [Int: String] = [:]
        var nextSerial = 1
        for step in 0..<40_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                // Serials as the screens get them: counted up, with jumps.
                nextSerial += Int.random(in: 1...3, using: &random)
                table[nextSerial] = "s\(nextSerial)"
                model[nextSerial] = "s\(nextSerial)"
            case 4..<7:
                let serial = model.keys.randomElement(using: &random) ?? 1
                table[serial] = nil
                model[serial] = nil
            case 7:
                if let serial = model.keys.randomElement(using: &random) {
                    table[serial] = "again \(step)"
                    model[serial] = "again \(step)"
                }
            default:
                let serial = Int.random(in: 1...nextSerial + 5, using: &random)
                #expect(table[serial] == model[serial], "serial \(serial) at step \(step)")
            }
            #expect(table.count == model.count)
        }
        #expect(table.values.sorted() == model.values.sorted())
        for (serial, value) in model { #expect(table[serial] == value) }
        table.removeAll()
        #expect(table.count == 0 && table[nextSerial] == nil)
    }
}
