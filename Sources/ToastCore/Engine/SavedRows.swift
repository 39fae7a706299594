/// A saved run's pipeline as rows (docs/service.md, "The state file"): a checkpoint writes the
/// rows that changed since the last one and deletes those of what is gone, instead of the whole
/// state. A row's value is the JSON of one thing the pipeline keeps.
package struct SavedRowID: Hashable, Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// One of the pipeline's parts, by name: `clock`, `host`, `screens` (the screen table's
        /// counters), `stage NAME` (a stage's state, or every screen's part of it for a stage
        /// that keys its state by screen).
        case part
        /// A screen, by serial: its key, host, own stages and held counts.
        case screen
        /// A timer of the pipeline, by the sequence it was set with.
        case timer
        /// When the screen table looks at a screen again (a window ends), by sequence.
        case window
        /// A toast a stage holds, by its hold serial.
        case held
    }

    package var kind: Kind
    /// A part's name; empty for the other kinds.
    package var name: String
    /// A screen's or a held toast's serial, a timer's sequence; 0 for a part.
    package var number: Int64

    package static func part(_ name: String) -> SavedRowID { SavedRowID(kind: .part, name: name, number: 0) }

    package init(kind: Kind, name: String = "", number: Int64 = 0) {
        self.kind = kind
        self.name = name
        self.number = number
    }
}

/// One row as a checkpoint writes it: its JSON text, made on the pipeline's thread (the values
/// it saves change as soon as the pipeline goes on), and what the row's table keeps beside
/// the text, so that the writer need not read the text again.
///
/// The text is a slice: the rows of many screens made at once share one buffer (one
/// allocation, freed at once by the thread that writes them, instead of one for each row).
package struct SavedRow: Sendable {
    package var id: SavedRowID
    package var text: ArraySlice<UInt8>
    package var columns: Columns

    /// The columns of a row's table besides its number and its text.
    package enum Columns: Sendable, Equatable {
        case none
        /// A screen's key (`screens.key`).
        case screen(key: ScreenKey)
        /// When a timer or a window is due (`timers.due`, `windows.due`).
        case due(Microseconds)
        /// The screen and the stage of a held toast (`held.screen`, `held.stage`).
        case held(screen: Int64, stage: String)
    }

    package init(id: SavedRowID, text: ArraySlice<UInt8>, columns: Columns = .none) {
        self.id = id
        self.text = text
        self.columns = columns
    }

    package init(id: SavedRowID, text: [UInt8], columns: Columns = .none) {
        self.init(id: id, text: text[...], columns: columns)
    }

    /// A row of `value`'s text, its columns read from it.
    package init(id: SavedRowID, value: JSONValue) {
        var text: [UInt8] = []
        JSONText.appendValue(value, to: &text)
        let object = try? SavedObject(value, path: "")
        let columns: Columns = switch id.kind {
        case .part: .none
        case .screen: ScreenKey(naming: object?.optional("key")).map { .screen(key: $0) } ?? .none
        case .timer, .window: .due((try? object?.integer("due")) ?? 0)
        case .held: .held(screen: (try? object?.integer("screen")) ?? 0, stage: (try? object?.string("stage")) ?? "")
        }
        self.init(id: id, text: text, columns: columns)
    }

    /// The row's value, read back from its text (tests, the fuzz target).
    package var value: JSONValue? { try? text.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try JSONScanner.value(of: buffer) } }
}

/// What a checkpoint writes of the pipeline: the rows that may have changed since the last
/// checkpoint (the parts always; the writer leaves out a row whose text is what it wrote
/// before), and the rows of what is gone.
package struct SavedRowChanges: Sendable {
    package var written: [SavedRow] = []
    package var deleted: [SavedRowID] = []
    /// Debug builds: the rows the pipeline left out because nothing changed them. The writer
    /// checks that each is what it wrote before (`ScreenTable.touch` promises it).
    package var unchanged: [SavedRow] = []

    package init() {}
}

/// What the pipeline saved at the last checkpoint, to tell what changed since: the rows it
/// holds by number, and the held toasts changed in place.
struct SavedRowTracker {
    var timers: Set<UInt64> = []
    var windows: Set<UInt64> = []
    var held: Set<Int> = []
    var heldChanged: Set<Int> = []
    var screens: Set<Int> = []
    var stages: Set<String> = []

    /// The rows of a restored run: a checkpoint after the restore writes only what changes.
    init(restoredFrom rows: some Sequence<SavedRowID>) {
        for id in rows {
            switch id.kind {
            case .part where id.name.hasPrefix(Pipeline.stagePartPrefix): stages.insert(String(id.name.dropFirst(Pipeline.stagePartPrefix.count)))
            case .part: break
            case .screen: screens.insert(Int(id.number))
            case .timer: timers.insert(UInt64(bitPattern: id.number))
            case .window: windows.insert(UInt64(bitPattern: id.number))
            case .held: held.insert(Int(id.number))
            }
        }
    }

    init() {}
}
