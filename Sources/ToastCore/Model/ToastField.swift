/// The fields of a show event (docs/events.md), and the one table that says what the pipeline
/// knows about each: its name, what it holds (`Kind`), where a toast keeps it (`Storage`), and
/// where a `present` record writes it (`presentRecord`). The decoder checks a field by its
/// kind, the Lua bridge pushes and reads it by its kind, `Toast.withValue`, `hasSameValue` and
/// `set` reach it through its storage, and a hook's `info` follows `presentRecord`.
///
/// A new show field is two edits, both here: its case, and its row in `row`, made with
/// `Row.generic` (its name, kind and default, and whether records carry it). From then on the
/// decoder reads and checks it, scripts read and write it, dedup keys and templates can name
/// it, traces show its changes, and records carry it if the row says so. Only a field that a
/// stage reads on every toast needs more: a property of its own in `Toast.Fields` (the row
/// then reads and writes it), and, for one most lines have, a member of its own in the
/// decoder's `EventFields` — each faster than the general storage, which is why the fields
/// below have them. The README, "Adding a field to a show", walks through it.
package enum ToastField: Int, CaseIterable, Sendable {
    case id, message, subtitle, role, duration, after, placement, policy, priority, source, key
    case dismissOnTap, dismissOnLongPress, swipe, at, type

    /// The schema, one row per field.
    private var row: Row {
        switch self {
        case .id: Row("id", .identifier, .text({ $0.id }, { $0.id = $1 }))
        case .message: Row("message", .message, .message)
        case .subtitle: Row("subtitle", .subtitle, .subtitle)
        case .role: Row("role", .role, .text({ $0.role }, { $0.role = $1 }))
        case .duration: Row("duration", .duration, .optionalTime({ $0.durationMicros }, { $0.duration = $1 }))
        case .after: Row("after", .delay, .time({ $0.afterMicros }, { $0.after = $1 }))
        case .placement: .choice("placement", Placement.self, { $0.placement }, { $0.placement = $1 })
        case .policy: .choice("policy", Policy.self, { $0.policy }, { $0.policy = $1 })
        case .priority: Row("priority", .priority, .optionalInteger({ $0.priority }, { $0.priority = $1 }))
        case .source: Row("source", .optionalText, .optionalText({ $0.source }, { $0.source = $1 }), valuesRepeat: true)
        case .key: Row("key", .optionalText, .optionalText({ $0.key }, { $0.key = $1 }))
        case .dismissOnTap: Row("dismiss_on_tap", .flag, .flag({ $0.dismissOnTap }, { $0.dismissOnTap = $1 }))
        case .dismissOnLongPress: .generic("dismiss_on_long_press", .flag, default: .flag(false))
        case .swipe: Row("swipe", .flag, .flag({ $0.swipe }, { $0.swipe = $1 }))
        // Set when the toast comes in, never through the schema (a script cannot move it).
        case .at: Row("at", .arrivalTime, .time({ $0.atMicros }, { _, _ in }))
        case .type: Row("type", .eventType, .constant("show"))
        }
    }

    /// The members of a `present` record after those of every record (`event`, `t`, `screen`,
    /// `id`), in order (docs/events.md, "Records"): the fields records carry, and what the
    /// stages and the host add; the `generic` fields whose rows say `recorded` come after
    /// `source`, in the order of their cases.
    static let presentRecord: [PresentMember] = [
        .field(.message), .field(.subtitle), .field(.role), .field(.placement), .field(.policy),
        .field(.priority), .field(.duration), .symbol, .glyph, .color, .announcement, .waited, .field(.source),
    ] + recordedGenericFields.map(PresentMember.field) + [.extra]

    /// The `generic` fields that `present` records carry (see `presentRecord`).
    package static let recordedGenericFields = allCases.filter { field in
        if case .generic(_, recorded: true) = field.storage { return true }
        return false
    }

    /// A field's row of the schema.
    struct Row {
        let name: String
        let kind: Kind
        let storage: Storage
        /// Whether its string values come back line after line, so the decoder keeps one
        /// `String` of each (a role, a choice, or as the row says).
        let valuesRepeat: Bool
        /// The names a `choice` may take.
        var choices: [String] = []

        init(_ name: String, _ kind: Kind, _ storage: Storage, valuesRepeat: Bool? = nil) {
            self.name = name
            self.kind = kind
            self.storage = storage
            self.valuesRepeat = valuesRepeat ?? [.eventType, .role, .choice].contains(kind)
        }

        /// A field kept in general storage (`Storage.generic`) with `defaultValue` until
        /// something sets it; `recorded`: `present` records carry it.
        static func generic(_ name: String, _ kind: Kind, default defaultValue: Toast.FieldValue = .absent,
                            recorded: Bool = false) -> Row {
            Row(name, kind, .generic(defaultValue: defaultValue, recorded: recorded))
        }

        /// A field whose values are the raw values of `Choice`'s cases.
        static func choice<Choice: RawRepresentable<String> & CaseIterable & Sendable>(
            _ name: String, _: Choice.Type, _ get: @escaping Get<Choice>, _ set: @escaping Set<Choice>) -> Row {
            var row = Row(name, .choice, .text({ get($0).rawValue }, { fields, name in
                if let choice = Choice(rawValue: name) { set(&fields, choice) }
            }))
            row.choices = Choice.allCases.map(\.rawValue)
            return row
        }
    }

    /// What a field holds, which says how it is checked wherever a value comes in (an input
    /// line, a script's table) and how it goes out.
    package enum Kind {
        /// `type`: always `"show"`, never set.
        case eventType
        /// `at`: the time the toast came in, never set by a script.
        case arrivalTime
        /// `id`: a string, made (`t<N>`) when the input has none.
        case identifier
        /// `message`: a string that must not be empty.
        case message
        /// `subtitle`: a string or nothing.
        case subtitle
        /// A string or nothing.
        case optionalText
        /// A role the run knows.
        case role
        /// Seconds, `"short"` or `"long"`; nothing or 0 is no timeout.
        case duration
        /// Seconds ≥ 0.
        case delay
        /// One of a few names (`choices`).
        case choice
        /// A whole number; nothing is the role's priority.
        case priority
        /// true or false.
        case flag

        /// Seconds, which the decoder also reads as exact microseconds.
        package var isTime: Bool { self == .arrivalTime || self == .duration || self == .delay }
    }

    /// Where a toast keeps a field: `message` and `subtitle` as the bytes they came in, `type`
    /// nowhere, the others as Swift values.
    enum Storage {
        case constant(String)
        case message
        case subtitle
        case text(Get<String>, Set<String>)
        case optionalText(Get<String?>, Set<String?>)
        case time(Get<Microseconds>, Set<Microseconds>)
        case optionalTime(Get<Microseconds?>, Set<Microseconds?>)
        case optionalInteger(Get<Int?>, Set<Int?>)
        case flag(Get<Bool>, Set<Bool>)
        /// In `Toast.Fields.genericFields`, `defaultValue` while nothing set it; `recorded`: a
        /// `present` record carries it (after `source`).
        case generic(defaultValue: Toast.FieldValue, recorded: Bool)
    }

    /// How a toast's value of a field is read and written: closures of concrete types, not
    /// key paths or a generic wrapper, because they run for every field of every line (a key
    /// path held in a table is applied by the runtime, a generic closure through thunks). The
    /// getter reads the toast, whose storage it reaches without copying the other fields; the
    /// setter writes the fields, which the decoder fills before there is a toast. (A field
    /// without a `Toast` property of its own is read as `$0.uniqueFields.name`.)
    typealias Get<Value> = @Sendable (Toast) -> Value
    typealias Set<Value> = @Sendable (inout Toast.Fields, Value) -> Void

    private static let rows = allCases.map(\.row)

    /// The field's name in events, records, settings and scripts.
    package var name: String { Self.names[rawValue] }

    package var kind: Kind { Self.kinds[rawValue] }

    var storage: Storage { Self.rows[rawValue].storage }

    /// The names a `choice` field may take.
    package var choices: [String] { Self.rows[rawValue].choices }

    /// Whether its string values come back line after line (see `Row.valuesRepeat`).
    package var valuesRepeat: Bool { Self.rows[rawValue].valuesRepeat }

    /// The kinds apart from the rows, so that asking a field's kind (the decoder does for every
    /// field of every line) copies no closures.
    private static let kinds = rows.map(\.kind)
    /// The names apart from the rows, likewise (a checkpoint writes a name for every field it
    /// saves of every toast).
    private static let names = rows.map(\.name)

    /// The field named `name`, if a show has one.
    package init?(named name: String) {
        guard let position = Self.rows.firstIndex(where: { $0.name == name }) else { return nil }
        self = Self.allCases[position]
    }

    /// The fields an input line or a script may set, in the order they are checked (the
    /// first wrong one is the one reported).
    package static let settable: [ToastField] = allCases.filter { $0 != .id && $0 != .at && $0 != .type }

    /// The fields a stage may change: the id and the settable ones, in record order.
    static let changeable: [ToastField] = [.id] + settable
}

/// A member of a `present` record (`ToastField.presentRecord`).
package enum PresentMember {
    /// A show field: a text or a time as JSON; `priority` 0 and `duration` null when the toast
    /// has none, any other field left out then.
    case field(ToastField)
    /// The role's look, as the `style` stage applied it (`""` without one).
    case symbol, glyph, color
    /// What a screen reader would say (`""` without one).
    case announcement
    /// How long the toast waited before it was shown.
    case waited
    /// The fields docs/events.md does not name, as one object (left out when there are none).
    case extra

    /// What a record writes for a field the toast has no value of: `priority` 0 (the stage
    /// that fills it in did not run), `duration` null (no timeout); nil leaves it out.
    package static func valueWhenAbsent(of field: ToastField) -> JSONValue? {
        switch field.kind {
        case .priority: .integer(0)
        case .duration: .null
        default: nil
        }
    }
}

/// A field as settings name it (dedup `fields`, the rate-limit `key`, announce templates):
/// one of docs/events.md, else an extra field. Resolved once from its name, so a stage does not
/// compare names for every toast.
package enum FieldReference: Hashable, Sendable {
    case field(ToastField)
    case extra(String)

    package init(name: String) {
        self = ToastField(named: name).map(FieldReference.field) ?? .extra(name)
    }
}
