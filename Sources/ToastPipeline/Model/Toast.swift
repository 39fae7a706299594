/// One toast on its way through the pipeline: every field of a show event (SPEC §1) after
/// defaults, plus what the stages add (style, announcement).
///
/// A value type: a stage changes its own copy, and a record keeps the toast as it was.
public struct Toast {
    public var id: String
    public var message: String
    public var subtitle: String?
    public var role: String
    /// Time it stays visible; nil: until something dismisses it.
    public var duration: Microseconds?
    /// Delay between admission by the pipeline and arrival at the host.
    public var after: Microseconds
    public var placement: Placement
    public var policy: Policy
    /// Its own priority; nil takes its role's (the `priority` stage fills it in).
    public var priority: Int?
    public var source: String?
    /// Identity for `dedup`, instead of its fields.
    public var key: String?
    public var dismissOnTap: Bool
    public var dismissOnLongPress: Bool
    /// Whether a swipe, or a drag past the threshold, dismisses it.
    public var swipe: Bool
    /// Fields that SPEC §1 does not name, in input order; they come back in `present.extra`.
    public var extra: [JSONMember]
    /// When it came into the pipeline, on the stream clock.
    public var at: Microseconds
    /// The input line that brought it in (or whose handling emitted it); 0 for none.
    public var inputLine: Int

    /// Set by the `style` stage.
    public var style: AppliedStyle?
    /// Set by the `announce` stage: what a screen reader would say.
    public var announcement: String?

    public init(id: String, message: String, subtitle: String? = nil, role: String = "info",
                duration: Microseconds? = 3 * StreamTime.perSecond, after: Microseconds = 0,
                placement: Placement = .top, policy: Policy = .enqueue, priority: Int? = nil,
                source: String? = nil, key: String? = nil, dismissOnTap: Bool = true,
                dismissOnLongPress: Bool = false, swipe: Bool = true, extra: [JSONMember] = [],
                at: Microseconds = 0, inputLine: Int = 0) {
        self.id = id
        self.message = message
        self.subtitle = subtitle
        self.role = role
        self.duration = duration
        self.after = after
        self.placement = placement
        self.policy = policy
        self.priority = priority
        self.source = source
        self.key = key
        self.dismissOnTap = dismissOnTap
        self.dismissOnLongPress = dismissOnLongPress
        self.swipe = swipe
        self.extra = extra
        self.at = at
        self.inputLine = inputLine
    }

    /// Its priority: its own, else its role's, else 0.
    public func effectivePriority(in roles: RoleTable) -> Int {
        priority ?? roles[role]?.priority ?? 0
    }

    /// The value of a field by its SPEC §1 name (extra fields included), after defaults;
    /// nil when the toast has no value for it. Dedup keys, rate-limit groups and announcement
    /// templates read fields this way.
    public func fieldValue(_ name: String, roles: RoleTable) -> JSONValue? {
        switch name {
        case "id": return .string(id)
        case "message": return .string(message)
        case "subtitle": return subtitle.map(JSONValue.string)
        case "role": return .string(role)
        case "duration": return duration.map { .number(StreamTime.seconds($0)) } ?? .null
        case "after": return .number(StreamTime.seconds(after))
        case "placement": return .string(placement.rawValue)
        case "policy": return .string(policy.rawValue)
        case "priority": return .integer(Int64(effectivePriority(in: roles)))
        case "source": return source.map(JSONValue.string)
        case "key": return key.map(JSONValue.string)
        case "dismiss_on_tap": return .bool(dismissOnTap)
        case "dismiss_on_long_press": return .bool(dismissOnLongPress)
        case "swipe": return .bool(swipe)
        case "at": return .number(StreamTime.seconds(at))
        case "type": return .string("show")
        default: return extraValue(name)
        }
    }

    /// The extra field `name`, if the toast has it.
    public func extraValue(_ name: String) -> JSONValue? {
        for member in extra where member.name == name { return member.value }
        return nil
    }
}

/// A role's look as the `style` stage applied it to one toast.
public struct AppliedStyle: Equatable, Sendable {
    public var symbol: String
    public var glyph: String
    public var color: String

    public init(symbol: String, glyph: String, color: String) {
        self.symbol = symbol
        self.glyph = glyph
        self.color = color
    }
}
