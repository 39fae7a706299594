/// A show read from a JSON line, with its text still in the batch's `TextArena`: the reading
/// thread makes these, and the pipeline's thread makes each into a `Toast` when it handles it.
package struct DecodedShow {
    /// Every field after defaults; `message`, `subtitle` and `extra` are ranges in `arena`.
    var fields: Toast.Fields
    let arena: TextArena
    /// The event's time (nil: the clock's current time) and input line.
    var at: Microseconds?
    var line: Int

    package init(fields: Toast.Fields, arena: TextArena, at: Microseconds?, line: Int) {
        (self.fields, self.arena, self.at, self.line) = (fields, arena, at, line)
    }

    /// The toast, in storage of its own that holds its text. Consuming: the fields move into
    /// the storage instead of being copied (and this show's copy released).
    consuming func makeToast() -> Toast {
        let arena = self.arena
        let ranges = (fields.message.storedRange, fields.subtitle?.storedRange, fields.extra.storedRange)
        var moving: Toast.Fields? = self.fields
        return arena.withBytes(ranges.0) { message in
            arena.withBytes(ranges.1) { subtitle in
                arena.withBytes(ranges.2) { extra in
                    Toast(storage: Toast.Storage.make(message: message, subtitle: subtitle, extra: extra) { message, subtitle, extra in
                        guard var fields = moving.take() else { preconditionFailure("a decoded show makes one toast") }
                        if let message { fields.message = .stored(message) }
                        if let subtitle { fields.subtitle = .stored(subtitle) }
                        if let extra { fields.extra = .stored(extra) }
                        return fields
                    })
                }
            }
        }
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
    var storedRange: TextRange? {
        if case .stored(let range) = self { return range }
        return nil
    }
}
