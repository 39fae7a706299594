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
            add("message", .string(toast.message))
            add("subtitle", toast.subtitle.map(JSONValue.string))
            add("role", .string(toast.role))
            add("placement", .string(toast.placement.rawValue))
            add("policy", .string(toast.policy.rawValue))
            add("priority", .integer(Int64(toast.priority ?? 0)))
            add("duration", toast.durationMicros.map(Self.seconds) ?? .null)
            add("symbol", .string(toast.style?.symbol ?? ""))
            add("glyph", .string(toast.style?.glyph ?? ""))
            add("color", .string(toast.style?.color ?? ""))
            add("announcement", .string(toast.announcement ?? ""))
            add("waited", Self.seconds(waited))
            add("source", toast.source.map(JSONValue.string))
            add("extra", toast.extra.isEmpty ? nil : .object(toast.extra))
        case .dismiss(_, _, let reason, let shown):
            add("reason", .string(reason.rawValue))
            add("shown", Self.seconds(shown))
        case .drop(_, _, let drop):
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
