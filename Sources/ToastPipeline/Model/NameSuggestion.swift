/// "Did you mean …?": the known name nearest to a mistyped one, if it is near enough to be a
/// typo (by default none for names of one or two characters, which are too short to tell,
/// one edit up to four, two for longer ones). Used for options and event fields.
public enum NameSuggestion {
    public static func closest(to name: String, among known: [String], maximumEdits: Int? = nil) -> String? {
        let limit = maximumEdits ?? (name.count <= 2 ? 0 : name.count <= 4 ? 1 : 2)
        let scored = known.map { ($0, editDistance(name, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit, best.1 > 0 else { return nil }
        return best.0
    }

    /// Levenshtein distance over UTF-8 bytes.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
