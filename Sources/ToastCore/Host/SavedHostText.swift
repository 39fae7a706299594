/// A host's saved state read straight from its text, as `writeSavedState` writes it, without a
/// JSON value in between: a restart reads a host for every screen it held, and the values made
/// and freed on the way cost more than the reading.
///
/// It reads that one form only (the members in their order, nothing else) and is nil for any
/// other text, which `restore(from:)` reads as a value and says what is wrong with; for the
/// text it reads, both give one host.
extension Host {
    /// A host's state read from its text, to be restored into a host (`restore(from:)`).
    ///
    /// Sendable as it is handed over (`@unchecked`): made on one thread and handed to another
    /// once; no one else holds its toasts.
    package struct ReadState: @unchecked Sendable {
        var state: State
    }

    /// The host state at the scanner's place; nil for text in another form.
    package static func readSavedState(_ scanner: inout JSONScanner) -> ReadState? {
        var state = State()
        guard scanner.skip(UInt8(ascii: "{")), scanner.skipMember("visible"), let visible = readLine(&scanner, into: &state.slots),
              scanner.skip(UInt8(ascii: ",")), scanner.skipMember("waiting"), let waiting = readLine(&scanner, into: &state.slots),
              scanner.skip(UInt8(ascii: ",")), scanner.skipMember("delayed"), let delayed = readLine(&scanner, into: &state.slots),
              scanner.skip(UInt8(ascii: ",")), scanner.skipMember("next_serial"), let nextSerial = scanner.integerValue(),
              scanner.skip(UInt8(ascii: ",")), scanner.skipMember("next_arrival_order"), let nextArrivalOrder = scanner.integerValue(),
              scanner.skip(UInt8(ascii: "}")) else { return nil }
        state.visible = SlotLine(visible)
        (state.waiting, state.delayed) = (waiting, delayed)
        (state.nextSerial, state.nextArrivalOrder) = (Int(nextSerial), Int(nextArrivalOrder))
        return ReadState(state: state)
    }


    /// A line of hosted toasts, each added to `slots`: their slots, in order.
    private static func readLine(_ scanner: inout JSONScanner, into slots: inout HostSlots) -> [Int]? {
        guard scanner.skip(UInt8(ascii: "[")) else { return nil }
        var line: [Int] = []
        if scanner.skip(UInt8(ascii: "]")) { return line }
        repeat {
            guard scanner.skip(UInt8(ascii: "{")),
                  scanner.skipMember("serial"), let serial = scanner.integerValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("priority"), let priority = scanner.integerValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("arrival_time"), let arrivalTime = scanner.integerValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("arrival_order"), let arrivalOrder = scanner.integerValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("presented_at"), let presentedAt = scanner.integerValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("timeout_generation"), let generation = scanner.integerValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("paused"), let isPaused = scanner.boolValue(), scanner.skip(UInt8(ascii: ",")),
                  scanner.skipMember("toast"), let toast = Toast(scanningSaved: &scanner),
                  scanner.skip(UInt8(ascii: "}")) else { return nil }
            var entry = HostedToast(serial: Int(serial), priority: Int(priority))
            entry.arrivalTime = arrivalTime
            entry.arrivalOrder = Int(arrivalOrder)
            entry.presentedAt = presentedAt
            entry.timeoutGeneration = Int(generation)
            entry.isPaused = isPaused
            line.append(slots.add(toast, entry))
        } while scanner.skip(UInt8(ascii: ","))
        return scanner.skip(UInt8(ascii: "]")) ? line : nil
    }
}
