/// A drop's stage or reason (`Drop.stage`, `DropReason`): nearly always one of the built-in
/// words, kept then as the word's number, so that copying a drop (done for most toasts of a
/// flood) copies no string and counts no reference, and an encoder writes the word without
/// comparing strings. Any other text (a plugin's own stage or reason) is kept as it is; a text
/// that spells a built-in word is always kept as the word, so two labels are equal exactly
/// when their texts are.
package enum DropLabel: Hashable, Sendable {
    case word(Word)
    case text(String)

    /// The built-in stages that drop and the built-in reasons (`rule` is both).
    package enum Word: String, CaseIterable, Sendable {
        case host, dedup, rule, debounce, digest
        case rateLimit = "rate_limit"
        case duplicate, `repeat`, evicted, cancelled, debounced, digested
        case rateLimited = "rate_limited"
        case hostRemoved = "host_removed"
        case screenLimit = "screen_limit"
    }

    package init(_ text: String) {
        self = Word(rawValue: text).map(DropLabel.word) ?? .text(text)
    }

    package var text: String {
        switch self {
        case .word(let word): word.rawValue
        case .text(let text): text
        }
    }
}
