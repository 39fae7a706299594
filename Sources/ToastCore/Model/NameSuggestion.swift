/// "Did you mean …?" wherever a name is looked up and not found (options, option values,
/// settings, stages, kinds, roles, fields): every known name at the smallest edit distance
/// from the mistyped one, if near enough to be a typo — two edits at most, and at least 60 % of
/// the longer name left as it is (`eor` is `error` with two letters dropped, 3 of 5 kept;
/// `nope` is not `once`, 2 of 4), none for names of one or two characters, which are too short
/// to tell — or else the one known name it begins (`--stat` names `--state` and `--stats`;
/// `--fo` names `--format` when no other option starts so).
package enum NameSuggestion {
    /// The names to suggest for `name`, in `known`'s order; empty when none is near enough.
    /// `ignoringPrefix` is left out of both sides before comparing (an option's `--`).
    package static func candidates(for name: String, among known: [String], ignoringPrefix prefix: String = "") -> [String] {
        func stem(_ text: String) -> String { prefix.isEmpty || !text.hasPrefix(prefix) ? text : String(text.dropFirst(prefix.count)) }
        let typed = stem(name)
        let limit = typed.count <= 2 ? 0 : 2
        let scored = known.map { ($0, editDistance(typed, stem($0))) }.filter { candidate, distance in
            let longer = max(typed.utf8.count, stem(candidate).utf8.count)
            return distance > 0 && distance <= limit && 5 * (longer - distance) >= 3 * longer
        }
        if let best = scored.map(\.1).min() {
            return scored.filter { $0.1 == best }.map(\.0)
        }
        // A name cut short: the names it begins, when they are few enough to list.
        let extending = known.filter { !typed.isEmpty && stem($0).hasPrefix(typed) && $0 != name }
        return extending.count <= 3 ? extending : []
    }

    /// `did you mean "a"?`, `did you mean "a" or "b"?`; nil with nothing to suggest.
    package static func question(for name: String, among known: [String], ignoringPrefix prefix: String = "",
                                 quote: (String) -> String = { quoted($0) }) -> String? {
        let found = candidates(for: name, among: known, ignoringPrefix: prefix)
        guard !found.isEmpty else { return nil }
        let names = found.map(quote)
        let listed = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
        return "did you mean \(listed)?"
    }

    /// `; did you mean "a"?` for a near miss, else ` (known: a, b, c)`: what an error about an
    /// unknown name ends with.
    package static func hint(for name: String, among known: [String]) -> String {
        question(for: name, among: known).map { "; " + $0 } ?? " (known: \(known.joined(separator: ", ")))"
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
