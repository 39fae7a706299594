/// The words a toast's `duration` may be given in, instead of seconds, wherever it is set (an
/// input line, a rule, `config{ queue = { duration = ... } }`): the one place that says what
/// they mean.
package enum NamedDuration: String, CaseIterable, Sendable {
    case short, long

    /// How long a toast with this duration stays: 2 s and 3.5 s, as on Android.
    package var microseconds: Microseconds {
        switch self {
        case .short: return 2 * StreamTime.perSecond
        case .long: return 3_500_000
        }
    }
}
