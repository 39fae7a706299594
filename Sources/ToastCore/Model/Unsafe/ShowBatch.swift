/// The shows decoded into one batch on the reading thread, waiting for the pipeline's thread:
/// their text (`text`) and their fields, one row each. A decoded show (`DecodedShow`) is then a
/// row number, so handing it from the decoder through the batch to the run loop moves a few
/// words instead of every field; the pipeline's thread takes each row once, when it makes the
/// show's toast.
///
/// Safe to share as `TextArena` is: the reading thread appends rows only before it hands the
/// batch on (it starts a new one for every batch, and the hand-over is ordered by the batch
/// queue's lock); after that only the pipeline's thread takes them, one at a time.
package final class ShowBatch: @unchecked Sendable {
    /// The messages, subtitles and extra fields of the batch's shows.
    package let text: TextArena
    /// The fields of each show until its toast is made. In a cell: each access is one append
    /// or one take, which calls out to nothing that could reach the rows again.
    private var rows: RowStore<Toast.Fields>

    /// Bytes of text a batch starts with unless told otherwise.
    package static let textCapacity = 16_384

    /// `capacity`: bytes of text; `rows`: shows, both as first guesses (each grows as needed).
    package init(capacity: Int = textCapacity, rows: Int = 0) {
        text = TextArena(capacity: capacity)
        self.rows = RowStore(capacity: rows)
    }

    /// How many shows were kept (taken ones included).
    package var count: Int { rows.count }

    /// Keeps `fields` as a new row; returns its number.
    func append(_ fields: consuming Toast.Fields) -> Int {
        rows.append(consume fields)
    }

    /// `body` with the fields of `row`, which it moves out (`RowStore.take`); nil if they were
    /// taken before.
    func take<Result>(_ row: Int, _ body: (UnsafeMutablePointer<Toast.Fields>) -> Result) -> Result? {
        rows.take(row, body)
    }
}
