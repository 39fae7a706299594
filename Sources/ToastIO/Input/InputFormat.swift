/// How input lines are read: as JSON events, as plain text lines that each become a show, or
/// as log lines of a format read natively (syslog, logfmt), each a show with its fields.
package enum InputFormat: String, Sendable, CaseIterable {
    case json, text, syslog, logfmt

    /// Whether lines are log text rather than JSON (kept when not UTF-8, with U+FFFD).
    package var isText: Bool { self != .json }
}
