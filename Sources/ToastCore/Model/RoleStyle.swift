/// How a role looks and sounds: what the `style`, `priority` and `announce` stages read.
public struct RoleStyle {
    /// SF Symbols name, for an app that renders the record.
    public var symbol: String
    /// One terminal character, for `--format text`.
    public var glyph: String
    public var color: String
    /// The word a screen reader says before the message; empty says nothing.
    public var label: String
    /// The priority of a toast of this role that sets none itself.
    public var priority: Int
    /// Replaces the default announcement when set.
    public var announcement: AnnouncementFormat?

    public init(symbol: String, glyph: String, color: String, label: String, priority: Int = 0,
                announcement: AnnouncementFormat? = nil) {
        self.symbol = symbol
        self.glyph = glyph
        self.color = color
        self.label = label
        self.priority = priority
        self.announcement = announcement
    }
}

/// A role's own announcement: a template with `{field}` placeholders, or a script's function
/// of the toast (when it fails, the default announcement stands).
public enum AnnouncementFormat: Equatable {
    case template(String)
    case function(ScriptFunction)
}

/// The roles a run knows: the four built-in ones plus those a script defines (docs/lua.md, "config").
///
/// A handful of roles, looked up for every toast by several stages: a short list searched
/// in order is cheaper than hashing the name each time.
public struct RoleTable {
    private struct Entry {
        let name: String
        /// The name's length in UTF-8: compared first, so that looking a role up costs one
        /// comparison of strings, not one for every role before it (two different short
        /// strings compare in a call to the standard library; two lengths in one instruction).
        let nameLength: Int

        func isNamed(_ role: String) -> Bool { nameLength == role.utf8.count && name == role }
        var style: RoleStyle {
            didSet { applied = AppliedStyle(style) }
        }
        /// What the `style` stage applies, made once rather than for every toast.
        private(set) var applied: AppliedStyle

        init(_ name: String, _ style: RoleStyle) {
            self.name = name
            nameLength = name.utf8.count
            self.style = style
            applied = AppliedStyle(style)
        }
    }

    private var entries: [Entry]

    /// The priority from which a toast counts as an error (the built-in `error` role's): what
    /// rate_limit and debounce spare, what preempts a sticky toast, and what the run's counts
    /// call errors.
    package static let errorPriority = 2

    public static var builtIn: RoleTable {
        RoleTable(entries: [
            Entry("info", RoleStyle(symbol: "info.circle.fill", glyph: "ℹ", color: "blue", label: "")),
            Entry("success", RoleStyle(symbol: "checkmark.circle.fill", glyph: "✔", color: "green", label: "Success")),
            Entry("warning", RoleStyle(symbol: "exclamationmark.triangle.fill", glyph: "⚠", color: "orange", label: "Warning", priority: 1)),
            Entry("error", RoleStyle(symbol: "xmark.octagon.fill", glyph: "✖", color: "red", label: "Error", priority: errorPriority)),
        ])
    }

    public subscript(role: String) -> RoleStyle? {
        for entry in entries where entry.isNamed(role) { return entry.style }
        return nil
    }

    public func contains(_ role: String) -> Bool {
        entries.contains { $0.isNamed(role) }
    }

    /// The UTF-8 lengths (below 64) of the names of the roles of priority `bound` or more, as
    /// bits, with bit 63 for any longer name: a role whose length is not among them has less
    /// (for `bound` above 0), found without comparing names.
    package func lengthsOfRoles(withPriorityAtLeast bound: Int) -> UInt64 {
        var bits: UInt64 = 0
        for entry in entries where entry.style.priority >= bound { bits |= 1 << UInt64(min(entry.nameLength, 63)) }
        return bits
    }

    /// A role's priority, without copying its style (the `priority` stage asks for every toast).
    public func priority(of role: String) -> Int? {
        // By index: a `for` over the entries copied each one out.
        let length = role.utf8.count
        for index in entries.indices where entries[index].nameLength == length && entries[index].name == role {
            return entries[index].style.priority
        }
        return nil
    }

    /// What the `style` stage applies for a role; a role it does not know looks like `info`.
    public func appliedStyle(of role: String) -> AppliedStyle {
        for entry in entries where entry.isNamed(role) { return entry.applied }
        return AppliedStyle(newRoleBase)
    }

    /// Runs `body` with a role's style (`info`'s for a role it does not know), without
    /// copying it: the `announce` stage reads two of its fields for every toast.
    public func withStyle<Result>(of role: String, _ body: (RoleStyle) -> Result) -> Result {
        for index in entries.indices where entries[index].isNamed(role) { return body(entries[index].style) }
        return body(newRoleBase)
    }

    /// Defines or replaces a role outright.
    public mutating func define(_ role: String, as style: RoleStyle) {
        if let index = entries.firstIndex(where: { $0.isNamed(role) }) {
            entries[index].style = style
        } else {
            entries.append(Entry(role, style))
        }
    }

    /// The style a new role starts from: `info`'s values (docs/events.md).
    public var newRoleBase: RoleStyle {
        self["info"] ?? RoleTable.builtIn.entries[0].style
    }

    /// The names, sorted, for messages that list them.
    public var names: [String] { entries.map(\.name).sorted() }
}
