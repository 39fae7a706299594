/// One toast on its way through the pipeline: every field of a show event (docs/events.md) after
/// defaults, plus what the stages add (style, announcement).
///
/// A value type: a stage changes its own copy, and a record keeps the toast as it was. The
/// fields live in one shared storage that is copied only when a shared toast is changed, so
/// handing a toast from stage to host to record costs one reference count. A toast decoded
/// from a JSON line keeps its message, subtitle and extra fields as the bytes that came in
/// (`Toast.Storage`, a `FieldStorage`): a `String` is made only when someone reads `message`,
/// `subtitle` or `extra`; the built-in stages, the host and the encoders read the bytes.
public struct Toast {
    /// The stored fields; `Toast` wraps them with copy-on-write.
    @usableFromInline package struct Fields {
        @usableFromInline package var id: String
        @usableFromInline package var message: ToastText
        @usableFromInline package var subtitle: ToastText? = nil
        @usableFromInline package var role = "info"
        @usableFromInline package var duration: Microseconds?
        @usableFromInline package var after: Microseconds = 0
        @usableFromInline package var placement = Placement.top
        @usableFromInline package var policy: Policy
        @usableFromInline package var priority: Int? = nil
        @usableFromInline package var source: String? = nil
        @usableFromInline package var key: String? = nil
        @usableFromInline package var dismissOnTap = true
        @usableFromInline package var swipe = true
        /// The fields whose row says `generic` storage.
        @usableFromInline package var genericFields = GenericFieldValues()
        @usableFromInline package var extra = ExtraFields.members([])
        @usableFromInline package var at: Microseconds = 0
        @usableFromInline package var inputLine: Int
        @usableFromInline package var style: AppliedStyle? = nil
        @usableFromInline package var announcement: Announcement? = nil
        /// The stage that made the toast (`rate_limit`'s summaries); nil for any other toast.
        @usableFromInline package var madeBy: String? = nil
        /// With screens on, the screen the pipeline last found it on (its records say it).
        @usableFromInline package var screenKey: ScreenKey? = nil
    }

    /// What the `announce` stage set: a text, or the standard announcement with its role's
    /// label, `label: message, subtitle`, made only when it is read (most toasts are never
    /// shown). Changing the message or subtitle afterwards first makes it a text, so it always
    /// says what they were when it was set.
    @usableFromInline package enum Announcement {
        case text(String)
        case standard(label: String)
    }

    /// The fields of a show that sets its id and message (and perhaps its subtitle, role,
    /// source, extra fields, `others` and screen): every other field at its default
    /// (docs/events.md), `duration` and `policy` as the queue settings give them. (All given at
    /// once, the fields are made in place; set one by one afterwards, they were copied whole.)
    package static func showFields(id: String, message: ToastText, subtitle: ToastText? = nil, role: String? = nil,
                                   source: String? = nil, extra: ExtraFields = .members([]),
                                   others: [(field: ToastField, value: FieldValue)] = [], screenKey: ScreenKey? = nil,
                                   duration: Microseconds?, policy: Policy, inputLine: Int) -> Fields {
        var fields = Fields(id: id, message: message, subtitle: subtitle, role: role ?? "info", duration: duration,
                            policy: policy, source: source, extra: extra, inputLine: inputLine, screenKey: screenKey)
        for (field, value) in others { fields.set(field, to: value) }
        return fields
    }

    /// A text field: a `String`, or bytes in the toast's storage (valid UTF-8, as decoded).
    @usableFromInline package enum ToastText {
        case string(String)
        case stored(TextRange)
    }

    /// The extra fields: members, or the text of a JSON object in the toast's storage (read
    /// into members when asked for); `canonical` when the decoder saw that the text is what
    /// writing the members gives (`JSONText.isCanonicalObject`), so that a record copies it
    /// without looking (`stored`: it did not look).
    @usableFromInline package enum ExtraFields {
        case members([JSONMember])
        case stored(TextRange)
        case canonical(TextRange)

        /// A stored text, canonical as the decoder found it or not known to be.
        package static func text(_ range: TextRange, knownCanonical: Bool) -> Self {
            knownCanonical ? .canonical(range) : .stored(range)
        }

        /// Where the text is, when the fields are text.
        @inlinable package var storedRange: TextRange? {
            switch self {
            case .members: nil
            case .stored(let range), .canonical(let range): range
            }
        }
    }

    @usableFromInline var storage: Storage

    /// One allocation: the fields, then the bytes of the text they point into.
    @usableFromInline package typealias Storage = FieldStorage<Fields>

    /// A toast whose fields are in `storage` (the decoder's `DecodedShow` makes it).
    package init(storage: Storage) {
        self.storage = storage
    }

    /// Whether the two share their storage, and so are equal without comparing fields.
    package func sharesStorage(with other: Toast) -> Bool { storage === other.storage }

    /// The fields, copied first if another toast shares them.
    var uniqueFields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            yield &storage.fields
        }
    }

    public var id: String {
        @inlinable get { storage.fields.id }
        _modify { yield &uniqueFields.id }
        set { uniqueFields.id = newValue }
    }

    public var message: String {
        get { string(storage.fields.message) }
        set {
            fixAnnouncement()
            uniqueFields.message = .string(newValue)
        }
    }

    public var subtitle: String? {
        @inlinable get { storage.fields.subtitle.map(string) }
        set {
            fixAnnouncement()
            uniqueFields.subtitle = newValue.map(ToastText.string)
        }
    }

    public var role: String {
        @inlinable get { storage.fields.role }
        _modify { yield &uniqueFields.role }
        set { uniqueFields.role = newValue }
    }

    /// Time it stays visible; nil: until something dismisses it.
    public var duration: Duration? {
        get { durationMicros.map { .microseconds($0) } }
        set { durationMicros = newValue.map(StreamTime.microseconds) }
    }

    /// Delay between admission by the pipeline and arrival at the host.
    public var after: Duration {
        get { .microseconds(afterMicros) }
        set { afterMicros = StreamTime.microseconds(newValue) }
    }

    /// `duration` in the microseconds the pipeline counts in.
    package var durationMicros: Microseconds? {
        @inlinable get { storage.fields.duration }
        _modify { yield &uniqueFields.duration }
        set { uniqueFields.duration = newValue }
    }

    /// `after` in microseconds.
    var afterMicros: Microseconds {
        @inlinable get { storage.fields.after }
        _modify { yield &uniqueFields.after }
        set { uniqueFields.after = newValue }
    }

    public var placement: Placement {
        @inlinable get { storage.fields.placement }
        _modify { yield &uniqueFields.placement }
        set { uniqueFields.placement = newValue }
    }

    public var policy: Policy {
        @inlinable get { storage.fields.policy }
        _modify { yield &uniqueFields.policy }
        set { uniqueFields.policy = newValue }
    }

    /// Its own priority; nil takes its role's (the `priority` stage fills it in).
    public var priority: Int? {
        @inlinable get { storage.fields.priority }
        _modify { yield &uniqueFields.priority }
        set { uniqueFields.priority = newValue }
    }

    public var source: String? {
        @inlinable get { storage.fields.source }
        _modify { yield &uniqueFields.source }
        set { uniqueFields.source = newValue }
    }

    /// Identity for `dedup`, instead of its fields.
    public var key: String? {
        @inlinable get { storage.fields.key }
        _modify { yield &uniqueFields.key }
        set { uniqueFields.key = newValue }
    }

    public var dismissOnTap: Bool {
        @inlinable get { storage.fields.dismissOnTap }
        _modify { yield &uniqueFields.dismissOnTap }
        set { uniqueFields.dismissOnTap = newValue }
    }

    /// (Kept in the schema's general storage: only a long press reads it.)
    public var dismissOnLongPress: Bool {
        get { value(of: .dismissOnLongPress) == .flag(true) }
        set { set(.dismissOnLongPress, to: .flag(newValue)) }
    }

    /// Whether a swipe, or a drag past the threshold, dismisses it.
    public var swipe: Bool {
        @inlinable get { storage.fields.swipe }
        _modify { yield &uniqueFields.swipe }
        set { uniqueFields.swipe = newValue }
    }

    /// Whether the extra fields are still the text they were decoded from: nothing has
    /// written an extra field since.
    var keepsDecodedExtra: Bool {
        storage.fields.extra.storedRange != nil
    }

    /// Whether the extra fields are stored text the decoder saw is canonical JSON.
    package var extraTextIsKnownCanonical: Bool {
        if case .canonical = storage.fields.extra { return true }
        return false
    }


    /// Fields that docs/events.md does not name, in input order; they come back in `present.extra`.
    public var extra: [JSONMember] {
        get {
            switch storage.fields.extra {
            case .members(let members): return members
            case .stored(let range), .canonical(let range): return storage.withBytes(range, Self.members(ofObjectText:))
            }
        }
        set { uniqueFields.extra = .members(newValue) }
    }

    /// When it came into the pipeline, on the stream clock (the span since its zero).
    public var at: Duration {
        get { .microseconds(atMicros) }
        set { atMicros = StreamTime.microseconds(newValue) }
    }

    /// `at` in microseconds.
    package var atMicros: Microseconds {
        @inlinable get { storage.fields.at }
        _modify { yield &uniqueFields.at }
        set { uniqueFields.at = newValue }
    }

    /// The input line that brought it in (or whose handling emitted it); 0 for none.
    /// The name of the stage that made this toast (`rate_limit` for its summaries, `digest`,
    /// a plugin's name); nil for a toast from input, `emit` or `parse`. Rules see it as
    /// `toast.made_by`; it is not a field, and no record carries it.
    public var madeBy: String? {
        @inlinable get { storage.fields.madeBy }
        set { uniqueFields.madeBy = newValue }
    }

    /// With screens on, the screen the pipeline last found the toast on, by its field
    /// `screens.by`: what its records carry as `screen`. Nil with screens off.
    package var screenKey: ScreenKey? {
        @inlinable get { storage.fields.screenKey }
        set { uniqueFields.screenKey = newValue }
    }

    public var inputLine: Int {
        @inlinable get { storage.fields.inputLine }
        _modify { yield &uniqueFields.inputLine }
        set { uniqueFields.inputLine = newValue }
    }

    /// Set by the `style` stage.
    public var style: AppliedStyle? {
        @inlinable get { storage.fields.style }
        _modify { yield &uniqueFields.style }
        set { uniqueFields.style = newValue }
    }

    /// Set by the `announce` stage: what a screen reader would say.
    public var announcement: String? {
        get {
            switch storage.fields.announcement {
            case nil: return nil
            case .text(let text)?: return text
            case .standard(let label)?: return standardAnnouncement(label: label)
            }
        }
        set { uniqueFields.announcement = newValue.map(Announcement.text) }
    }

    /// Sets the standard announcement, `label: message, subtitle` (see `Announcement`).
    mutating func announce(label: String) {
        uniqueFields.announcement = .standard(label: label)
    }

    /// A standard announcement becomes the text it stands for, before its message or subtitle
    /// changes.
    mutating func fixAnnouncement() {
        if case .standard? = storage.fields.announcement { announcement = announcement }
    }

    public init(id: String, message: String, subtitle: String? = nil, role: String = "info",
                duration: Duration? = .seconds(3), after: Duration = .zero,
                placement: Placement = .top, policy: Policy = .enqueue, priority: Int? = nil,
                source: String? = nil, key: String? = nil, dismissOnTap: Bool = true,
                dismissOnLongPress: Bool = false, swipe: Bool = true, extra: [JSONMember] = [],
                at: Duration = .zero, inputLine: Int = 0) {
        var fields = Fields(
            id: id, message: .string(message), subtitle: subtitle.map(ToastText.string), role: role,
            duration: duration.map(StreamTime.microseconds), after: StreamTime.microseconds(after),
            placement: placement, policy: policy, priority: priority, source: source, key: key,
            dismissOnTap: dismissOnTap, swipe: swipe, extra: .members(extra),
            at: StreamTime.microseconds(at), inputLine: inputLine, style: nil, announcement: nil)
        if dismissOnLongPress { fields.set(.dismissOnLongPress, to: .flag(true)) }
        self.init(fields: fields)
    }

    /// A toast with `fields` and no stored text.
    package init(fields: Fields) {
        storage = Storage.make(fields)
    }

    /// Its priority: its own, else its role's, else 0.
    public func effectivePriority(in roles: RoleTable) -> Int {
        priority ?? roles.priority(of: role) ?? 0
    }

    /// The value of a field by its docs/events.md name (extra fields included), after defaults;
    /// nil when the toast has no value for it. Dedup keys, rate-limit groups and announcement
    /// templates read fields this way.
    public func fieldValue(_ name: String, roles: RoleTable) -> JSONValue? {
        value(of: FieldReference(name: name), roles: roles)
    }

    /// The value of a field, after defaults; nil when the toast has no value for it.
    package func value(of field: FieldReference, roles: RoleTable) -> JSONValue? {
        guard case .field(let known) = field else {
            if case .extra(let name) = field { return extraValue(name) }
            return nil
        }
        if known == .priority { return .integer(Int64(effectivePriority(in: roles))) }
        return withValue(of: known) { view in
            switch view {
            case .absent: known == .duration ? .null : nil
            case .text(let bytes): .string(String(decoding: bytes, as: UTF8.self))
            case .time(let time): .number(StreamTime.seconds(time))
            case .integer(let integer): .integer(Int64(integer))
            case .flag(let flag): .bool(flag)
            }
        }
    }

}

/// A role's look as the `style` stage applied it to one toast.
///
/// The three texts live in one shared, immutable allocation: the `style` stage gives every toast
/// of a role the role's own (one reference count, not three), and a toast's fields stay small
/// (one word instead of six) for every move and copy of a toast.
public struct AppliedStyle: Equatable, Sendable {
    private final class Look: Sendable {
        let symbol: String
        let glyph: String
        let color: String
        /// `,"symbol":"…","glyph":"…","color":"…"` as a JSON record writes them, made once
        /// for the look: every present record of a role writes the same three members.
        let jsonMembers: [UInt8]

        init(symbol: String, glyph: String, color: String) {
            self.symbol = symbol
            self.glyph = glyph
            self.color = color
            var members = ByteBuffer(capacity: 64)
            for (opening, text) in [(#","symbol":""#, symbol), (#"","glyph":""#, glyph), (#"","color":""#, color)] as [(StaticString, String)] {
                members.appendLiteral(opening)
                JSONText.appendEscaped(text, to: &members)
            }
            members.append(UInt8(ascii: "\""))
            jsonMembers = members.bytes
        }
    }

    private var look: Look

    public var symbol: String {
        get { look.symbol }
        set { look = Look(symbol: newValue, glyph: glyph, color: color) }
    }

    public var glyph: String {
        get { look.glyph }
        set { look = Look(symbol: symbol, glyph: newValue, color: color) }
    }

    public var color: String {
        get { look.color }
        set { look = Look(symbol: symbol, glyph: glyph, color: newValue) }
    }

    public init(symbol: String, glyph: String, color: String) {
        look = Look(symbol: symbol, glyph: glyph, color: color)
    }

    /// The look's `symbol`, `glyph` and `color` members as a JSON record writes them, with
    /// the comma before the first; lent for the call of `body` from the look's own array.
    package func withJSONMembers<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        look.jsonMembers.withUnsafeBytes(body)
    }

    public static func == (lhs: AppliedStyle, rhs: AppliedStyle) -> Bool {
        lhs.look === rhs.look || (lhs.symbol == rhs.symbol && lhs.glyph == rhs.glyph && lhs.color == rhs.color)
    }

    /// The look of a role.
    public init(_ style: RoleStyle) {
        self.init(symbol: style.symbol, glyph: style.glyph, color: style.color)
    }
}
