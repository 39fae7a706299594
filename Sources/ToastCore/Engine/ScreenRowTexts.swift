/// The text of the rows of many screens at once, for a checkpoint (`Pipeline.savedRows`).
///
/// A busy service's checkpoint finds thousands of screens changed, and the pipeline waits while
/// their rows are made: the rows are then made by two threads, each half of them with a writer
/// of its own. Safe, as both only read: the pipeline changes nothing until both are done, and a
/// screen's row reads its host and the parts of the built-in stages that key their state by
/// screen (a plugin's stage of a screen, whose `saveState` may do anything, keeps it on one).
extension Pipeline {
    /// From how many rows a second thread makes half of them.
    static let rowsForTwoThreads = 1_000

    /// The rows' texts of `screens`, in their order.
    func screenRowTexts(_ screens: [Screen], in table: ScreenTable, keyedParts: [KeyedStage]) throws -> [ArraySlice<UInt8>] {
        guard screens.count >= Self.rowsForTwoThreads, !table.hasOwnStages else {
            return try rowTexts(screens[...], in: table, keyedParts: keyedParts)
        }
        let half = screens.count / 2
        let firstHalf = LentWork { try self.rowTexts(screens[..<half], in: table, keyedParts: keyedParts) }
        guard let thread = SystemThread.start({ firstHalf.run() }) else {
            return try rowTexts(screens[...], in: table, keyedParts: keyedParts)
        }
        let secondHalf = Result { try rowTexts(screens[half...], in: table, keyedParts: keyedParts) }
        thread.join()
        return try firstHalf.result().get() + secondHalf.get()
    }

    /// The rows of `screens`, slices of one array: one allocation for them all, freed at once
    /// once they are written.
    private func rowTexts(_ screens: ArraySlice<Screen>, in table: ScreenTable, keyedParts: [KeyedStage]) throws -> [ArraySlice<UInt8>] {
        var writer = JSONWriter(reservingCapacity: Self.rowLengthToReserve * screens.count)
        let ends = try screens.map { screen in
            try writeSavedScreen(screen, in: table, keyedParts: keyedParts, to: &writer)
            return writer.endText()
        }
        let text = writer.takeText()
        return ends.indices.map { index in text[(index == 0 ? 0 : ends[index - 1])..<ends[index]] }
    }

    /// Room for a screen's row, a guess that saves the array from growing many times.
    private static let rowLengthToReserve = 1_024
}

/// Work lent to another thread, whose result is taken once that thread is joined.
///
/// `@unchecked Sendable`: the thread that lends it reads `result` only after joining the one
/// that runs it, and what the work reads does not change until then.
private final class LentWork<Value>: @unchecked Sendable {
    private let work: () throws -> Value
    private var outcome: Result<Value, any Error>?

    init(_ work: @escaping () throws -> Value) {
        self.work = work
    }

    func run() {
        outcome = Result { try work() }
    }

    /// What `run` gave (after the thread that ran it was joined).
    func result() -> Result<Value, any Error> {
        outcome ?? Result { try work() }
    }
}
