/// A message template with `{name}` places (a role's `announce`, a digest's `message`).
enum Template {
    /// `template` with each `{name}` replaced by `value(name)`; a name `value` does not know
    /// (nil), and a `{` without a closing `}`, stay as written.
    static func fill(_ template: String, _ value: (Substring) -> String?) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            result += value(rest[rest.index(after: open)..<close]) ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
