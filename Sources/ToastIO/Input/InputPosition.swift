import ToastCore

/// Where the input stood after the last line the pipeline took: the byte offset of the next
/// line, the number of the last line, and what the decoder counts across lines. A run saved
/// with it (`--state`) and restarted reads on from `offset` with the same line numbers and the
/// same `t<N>` ids as the run that never stopped.
package struct InputPosition: Equatable, Sendable {
    /// The byte offset of the next unread line.
    package var offset: Int64
    /// The last line's number (lines count from 1).
    package var line: Int
    /// Shows decoded so far: the next show without an id is `t<shows + 1>`.
    package var shows: Int
    /// Whether a line that is not blank was seen (only the first one is looked at for a header).
    package var sawFirstLine: Bool

    package init(offset: Int64 = 0, line: Int = 0, shows: Int = 0, sawFirstLine: Bool = false) {
        self.offset = offset
        self.line = line
        self.shows = shows
        self.sawFirstLine = sawFirstLine
    }
}

extension InputPosition: StateRepresentable {
    package var savedState: JSONValue {
        .object([JSONMember("offset", .integer(offset)), JSONMember("line", .integer(Int64(line))),
                 JSONMember("shows", .integer(Int64(shows))), JSONMember("saw_first_line", .bool(sawFirstLine))])
    }

    package init(savedState: JSONValue) throws {
        let object = try SavedObject(savedState, path: "input")
        offset = try object.integer("offset")
        line = Int(try object.integer("line"))
        shows = Int(try object.integer("shows"))
        sawFirstLine = try object.bool("saw_first_line")
        guard offset >= 0, line >= 0, shows >= 0 else { throw SavedStateError("input has a negative count") }
    }
}
