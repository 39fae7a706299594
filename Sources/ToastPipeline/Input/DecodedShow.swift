/// A show read from a JSON line, with its text still in the batch's `TextArena`: the reading
/// thread makes these, and the pipeline's thread makes each into a `Toast` when it handles it.
struct DecodedShow {
    /// Every field after defaults; `message`, `subtitle` and `extra` are ranges in `arena`.
    var fields: Toast.Fields
    let arena: TextArena
    /// The event's time (nil: the clock's current time) and input line.
    var at: Microseconds?
    var line: Int

    /// The toast, in storage of its own that holds its text.
    func makeToast() -> Toast {
        arena.withBytes(fields.message.storedRange) { message in
            arena.withBytes(fields.subtitle?.storedRange) { subtitle in
                arena.withBytes(fields.extra.storedRange) { extra in
                    Toast(storage: Toast.Storage.make(message: message, subtitle: subtitle, extra: extra) { message, subtitle, extra in
                        var fields = self.fields
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
    func makeEvent() -> Event {
        Event(.show(makeToast()), at: at, line: line)
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
