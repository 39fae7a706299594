import Testing
@testable import ToastCore
@testable import ToastPipeline

/// The cell that holds the hot state of the pipeline, host, stages and Lua bridge: it must own
/// its value (free it once, when the cell ends) and change it in place.
@Suite struct UncheckedCellTests {
    final class Tracked {
        let name: String
        init(name: String) { self.name = name }
    }

    @Test func theValueEndsWithTheCell() {
        weak var watched: Tracked?
        do {
            let cell = UncheckedCell(Tracked(name: "first"))
            watched = cell.value
            #expect(watched?.name == "first")
            cell.value = Tracked(name: "second")   // the first is released here
            #expect(watched == nil)
            watched = cell.value
            #expect(watched?.name == "second")
        }
        #expect(watched == nil)
    }

    @Test func aValueIsChangedInPlace() {
        let cell = UncheckedCell<[Int]>([])
        cell.value.reserveCapacity(1_000)
        let storage = cell.value.withUnsafeBufferPointer { $0.baseAddress }
        for number in 0..<1_000 { cell.value.append(number) }
        #expect(cell.value.withUnsafeBufferPointer { $0.baseAddress } == storage)
        #expect(cell.value.count == 1_000 && cell.value[999] == 999)
    }

    @Test func aNoncopyableValueIsHeldAndChanged() {
        let cell = UncheckedCell(ByteBuffer(capacity: 4))
        for byte in Array("toast, longer than four bytes".utf8) { cell.value.append(byte) }
        let text = cell.value.withBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text == "toast, longer than four bytes")
        cell.value.removeAll()
        let isEmpty = cell.value.isEmpty
        #expect(isEmpty)
    }
}
