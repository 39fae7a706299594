extension Record {
    /// The record's fields as `--format json` writes them, in the same order: what a script's
    /// `on(...)` hook gets as `info`. The JSON encoder writes the same fields straight from the
    /// toast's bytes; a test holds the two to the same output.
    package var members: [JSONMember] {
        var members = [JSONMember("event", .string(kindName)), JSONMember("t", Self.seconds(time))]
        if let screen = toast.screenKey { members.append(JSONMember("screen", screen.jsonValue)) }
        members.append(JSONMember("id", .string(toast.id)))
        func add(_ name: String, _ value: JSONValue?) {
            if let value { members.append(JSONMember(name, value)) }
        }
        switch self {
        case .present(let toast, _, let waited):
            for member in ToastField.presentRecord {
                switch member {
                case .field(let field):
                    add(field.name, toast.withValue(of: field) { value in
                        switch value {
                        case .absent: PresentMember.valueWhenAbsent(of: field)
                        case .text(let bytes): .string(String(decoding: bytes, as: UTF8.self))
                        case .time(let time): Self.seconds(time)
                        case .integer(let integer): .integer(Int64(integer))
                        case .flag(let flag): .bool(flag)
                        }
                    })
                case .symbol: add("symbol", .string(toast.style?.symbol ?? ""))
                case .glyph: add("glyph", .string(toast.style?.glyph ?? ""))
                case .color: add("color", .string(toast.style?.color ?? ""))
                case .announcement: add("announcement", .string(toast.announcement ?? ""))
                case .waited: add("waited", Self.seconds(waited))
                case .extra: add("extra", toast.extra.isEmpty ? nil : .object(toast.extra))
                }
            }
        case .dismiss(_, _, let reason, let shown):
            add("reason", .string(reason.rawValue))
            add("shown", Self.seconds(shown))
        case .drop(let toast, _, let drop):
            // What was lost, as the toast had it when it was dropped.
            add("message", .string(toast.message))
            add("role", .string(toast.role))
            add("stage", .string(drop.stage))
            add("reason", .string(drop.reason.rawValue))
            add("rule", drop.rule.map(JSONValue.string))
            add("of", drop.of.map(JSONValue.string))
            add("by", drop.by.map(JSONValue.string))
            add("into", drop.into.map(JSONValue.string))
            add("note", drop.note.map(JSONValue.string))
        }
        return members
    }

    /// A time as JSON: whole seconds as an integer, else the exact decimal number.
    private static func seconds(_ time: Microseconds) -> JSONValue {
        time % StreamTime.perSecond == 0 ? .integer(time / StreamTime.perSecond) : .number(StreamTime.seconds(time))
    }
}
