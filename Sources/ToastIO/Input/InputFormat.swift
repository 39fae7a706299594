/// How input lines are read: as JSON events, or as plain text lines that each become a show.
package enum InputFormat: String, Sendable, CaseIterable {
    case json, text
}
