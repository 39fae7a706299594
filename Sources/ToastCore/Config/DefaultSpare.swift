/// The toasts a kind of stage leaves alone unless a script says otherwise: its default `spare`
/// (docs/lua.md, "Sparing toasts"). A kind that holds or drops toasts declares it, so that a
/// script's `when` narrows what the stage takes without ever letting errors in: rate_limit and
/// debounce spare errors, dedup and digest nothing, a plugin stage what it declares
/// (`ToastStage.defaultSpare`).
public struct DefaultSpare: Equatable, Sendable {
    /// The match that spares a toast; nil spares nothing.
    package let scope: StageScope?

    /// Spares nothing: every toast in the stage's `when` is taken.
    public static let nothing = DefaultSpare(scope: nil)
    /// Spares toasts of priority 2 or more (errors, and roles at least as urgent), as rate_limit
    /// and debounce do: an error is never held back or dropped for being one of many.
    public static let errors = priority(atLeast: RoleTable.errorPriority)

    /// Spares toasts whose priority (their own, else their role's) is `atLeast` or more.
    public static func priority(atLeast: Int) -> DefaultSpare {
        DefaultSpare(scope: .priority(atLeast: atLeast))
    }
}
