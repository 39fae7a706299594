/// A show read from a JSON line, its fields a row of the batch it was decoded into and its text
/// in the batch's `TextArena`: the reading thread makes these, and the pipeline's thread makes
/// each into a `Toast` when it handles it.
package struct DecodedShow {
    /// Where the fields are (`message`, `subtitle` and `extra` as ranges in the batch's text).
    let batch: ShowBatch
    let row: Int
    /// The event's time (nil: the clock's current time) and input line.
    package var at: Microseconds?
    var line: Int

    /// A show with `fields` after defaults, kept in `batch`.
    package init(fields: consuming Toast.Fields, batch: ShowBatch, at: Microseconds?, line: Int) {
        row = batch.append(consume fields)
        (self.batch, self.at, self.line) = (batch, at, line)
    }

    /// The toast, in storage of its own that holds its text. Consuming: the fields move out of
    /// the batch into the storage (a show makes one toast).
    consuming func makeToast() -> Toast {
        let batch = self.batch
        let made = batch.take(row) { fields in
            let ranges = (fields.pointee.message.storedRange, fields.pointee.subtitle?.storedRange,
                          fields.pointee.extra.storedRange, fields.pointee.extra.isKnownCanonical)
            return batch.text.withBytes(ranges.0) { message in
                batch.text.withBytes(ranges.1) { subtitle in
                    batch.text.withBytes(ranges.2) { extra in
                        Toast(storage: Toast.Storage.make(message: message, subtitle: subtitle, extra: extra,
                                                          movingFieldsFrom: fields) { fields, message, subtitle, extra in
                            if let message { fields.message = .stored(message) }
                            if let subtitle { fields.subtitle = .stored(subtitle) }
                            if let extra { fields.extra = .text(extra, knownCanonical: ranges.3) }
                        })
                    }
                }
            }
        }
        guard let made else { preconditionFailure("a decoded show makes one toast") }
        return made
    }

    /// A show as an event, with its toast made.
    package consuming func makeEvent() -> Event {
        let (at, line) = (self.at, self.line)
        return Event(.show(makeToast()), at: at, line: line)
    }
}

extension Toast.ToastText {
    var storedRange: TextRange? {
        if case .stored(let range) = self { return range }
        return nil
    }
}

extension Toast.ExtraFields {
    var isKnownCanonical: Bool {
        if case .canonical = self { return true }
        return false
    }
}
