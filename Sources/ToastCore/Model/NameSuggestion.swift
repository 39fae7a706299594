/// "Did you mean …?": the known name nearest to a mistyped one, if it is near enough to be a
/// typo (by default none for names of one or two characters, which are too short to tell,
/// one edit up to four, two for longer ones). Used for options and event fields.
package enum NameSuggestion {
    package static func closest(to name: String, among known: [String], maximumEdits: Int? = nil) -> String? {
        let limit = maximumEdits ?? (name.count <= 2 ? 0 : name.count <= 4 ? 1 : 2)
        let scored = known.map { ($0, editDistance(name, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit, best.1 > 0 else { return nil }
        return best.0
    }

    /// Edit distance over UTF-8 bytes, a swap of two neighbours counting as one edit (`form`
    /// for `from`), as people type.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious = Array(repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
