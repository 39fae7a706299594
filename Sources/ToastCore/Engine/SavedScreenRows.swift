/// The rows of a saved run's screens, kept as their text until each is restored.
///
/// A state of many screens read as JSON values all at once is held twice while it is restored
/// (as values and as screens), and a restart would need about twice the memory of the run that
/// saved it; one row parsed at a time is dropped as soon as its screen holds it.
package struct SavedScreenRows: Equatable, Sendable {
    /// Every row's text, one after the other.
    private var text: [UInt8] = []
    /// Each row's serial and where its text ends in `text`.
    private var rows: [RowEnd] = []

    private struct RowEnd: Equatable, Sendable {
        var serial: Int64
        var end: Int
    }

    package init() {}

    package var isEmpty: Bool { rows.isEmpty }
    package var serials: [Int64] { rows.map(\.serial) }

    package mutating func append(serial: Int64, text row: [UInt8]) {
        row.withUnsafeBytes { append(serial: serial, text: $0) }
    }

    /// A row's text lent for the call (a column SQLite holds until its next step), copied in.
    package mutating func append(serial: Int64, text row: UnsafeRawBufferPointer) {
        text.append(contentsOf: row)
        rows.append(RowEnd(serial: serial, end: text.count))
    }

    /// Each row's serial and what it holds, in the order they were appended, read one at a
    /// time; throws `SavedStateError` naming the row whose text is not JSON. Many rows are read on
    /// threads of their own while `body` restores those parsed before (a restart is ready
    /// sooner), at most a few batches ahead (so that they are not held all at once).
    func forEach(_ body: (_ serial: Int64, _ row: ReadRow) throws -> Void) throws {
        let parsers = rows.count >= 2 * Self.batchSize ? startParsers() : []
        defer { Self.stop(parsers) }
        guard !parsers.isEmpty else {
            for index in rows.indices { try body(rows[index].serial, try row(at: index)) }
            return
        }
        var turn = 0
        while let batch = parsers[turn].batches.take() {
            for row in batch { try body(row.serial, try row.read.get()) }
            turn = (turn + 1) % parsers.count
        }
    }

    private typealias Parser = (batches: HandOverQueue<[ParsedRow]>, thread: SystemThread)

    /// Reading costs more than restoring: two threads read every other batch, and the batches
    /// are taken from them in turn, so in order. None when the system would not give both.
    private func startParsers() -> [Parser] {
        let all = self
        var parsers: [Parser] = []
        for first in 0..<Self.parsingThreads {
            let batches = HandOverQueue<[ParsedRow]>(capacity: 2)
            guard let thread = SystemThread.start({ all.parse(batchesFrom: first, every: Self.parsingThreads, into: batches) }) else {
                Self.stop(parsers)
                return []
            }
            parsers.append((batches, thread))
        }
        return parsers
    }

    /// Tells the parsers no more is wanted, and waits for them.
    private static func stop(_ parsers: [Parser]) {
        for parser in parsers {
            parser.batches.cancel()
            parser.thread.join()
        }
    }

    private static let parsingThreads = 2

    /// Parses the batches `first`, `first + every`, … into `batches`, then closes it.
    ///
    /// It keeps the last few batches it handed over, so that what their restore did not keep is
    /// most often freed here, not by the thread that restores (which has more to do, and frees
    /// memory of another thread's arena slower than its own).
    private func parse(batchesFrom first: Int, every: Int, into batches: HandOverQueue<[ParsedRow]>) {
        defer { batches.close() }
        var handedOver: [[ParsedRow]] = []
        var start = first * Self.batchSize
        while start < rows.count {
            let batch = (start..<min(start + Self.batchSize, rows.count)).map { index in
                ParsedRow(serial: rows[index].serial, read: Result { () throws(SavedStateError) in try row(at: index) })
            }
            guard batches.put(batch) else { return }
            handedOver.append(batch)
            if handedOver.count > Self.keptBatches { handedOver.removeFirst() }
            start += every * Self.batchSize
        }
    }

    /// More than the queue holds: a batch is let go once it has most likely been restored.
    private static let keptBatches = 4

    private static let batchSize = 256

    /// The room the values of a row's members but the host are read with (`JSONScanner.firstRoom`):
    /// a dedup key's entry has three members, its key three parts.
    private static let firstRoom = 4

    private struct ParsedRow: Sendable {
        var serial: Int64
        var read: Result<ReadRow, SavedStateError>
    }

    /// A screen's row as read: its value, and its host when it was read from the text
    /// straight (`Host.readSavedState`; the value then has no `host`).
    package struct ReadRow: Sendable {
        package var value: JSONValue
        package var host: Host.ReadState?
    }

    /// Row `index`, its host read straight from its text when it is in the form a run writes.
    private func row(at index: Int) throws(SavedStateError) -> ReadRow {
        let start = index == 0 ? 0 : rows[index - 1].end
        let read = text.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(UnsafeBufferPointer(rebasing: buffer[start..<rows[index].end]))
            return Self.readRow(&scanner)
        }
        if let read { return read }
        do {
            return ReadRow(value: try text.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
                try JSONScanner.value(of: UnsafeBufferPointer(rebasing: buffer[start..<rows[index].end]))
            }, host: nil)
        } catch {
            throw SavedStateError("screen \(rows[index].serial): \(error.message)")
        }
    }

    /// A row whose members are each named once, one of them `host` in the form a run writes;
    /// nil for any other text (read again as a value, which says what is wrong with it).
    private static func readRow(_ scanner: inout JSONScanner) -> ReadRow? {
        guard scanner.skip(UInt8(ascii: "{")) else { return nil }
        var members: [JSONMember] = []
        var host: Host.ReadState?
        repeat {
            guard let rawName = scanner.memberName() else { return nil }
            let name = String(decoding: rawName, as: UTF8.self)
            if name == "host" {
                guard host == nil, let read = Host.readSavedState(&scanner) else { return nil }
                host = read
            } else {
                // Restored and dropped (the keyed stages' parts): read with room for a few members.
                scanner.firstRoom = Self.firstRoom
                defer { scanner.firstRoom = 0 }
                guard !members.contains(where: { $0.name == name }), let value = try? scanner.parseValue(depth: 1) else { return nil }
                members.append(JSONMember(name, value))
            }
        } while scanner.skip(UInt8(ascii: ","))
        guard scanner.skip(UInt8(ascii: "}")), host != nil else { return nil }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { return nil }
        return ReadRow(value: .object(members), host: host)
    }
}

/// A saved run's pipeline as its rows give it: the form `Pipeline.restore(from:)` reads, but
/// for the screens, which stay text until each is restored (`SavedScreenRows`).
package struct SavedPipeline: Equatable, Sendable {
    package var tree: JSONValue
    package var screenRows: SavedScreenRows

    package init(tree: JSONValue, screenRows: SavedScreenRows = SavedScreenRows()) {
        self.tree = tree
        self.screenRows = screenRows
    }
}
