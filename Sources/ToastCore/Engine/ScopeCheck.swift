/// A stage's `spare` and `when` as the loop checks them for every toast (docs/lua.md, "Pointing
/// a stage at some toasts"): a toast that a spare matches skips the stage, else one that its
/// `when` does not take. The first spare may be a range of priorities read without the scope
/// itself (rate_limit's and debounce's default, `{ priority = { at_least = 2 } }`).
struct ScopeCheck {
    let when: StageScope?
    /// The matches that spare a toast, the kind's default first; a toast is spared when any
    /// matches.
    let spares: [StageScope]
    /// Whether anything is checked at all (a stage with neither takes every toast).
    let checks: Bool
    /// `when != nil` and `spares.count`, read on every toast without touching the enum or the
    /// list (which would count references).
    let hasWhen: Bool
    let spareCount: Int
    /// The first spare is a range of priorities: `atLeast..<below`.
    let spareIsPriorityRange: Bool
    let atLeast: Int
    let below: Int
    /// The first spare is only `at_least`, above 0 (the default): a toast with no priority of
    /// its own is not spared when its role's name has none of the lengths of the roles that
    /// reach `atLeast`.
    let isAtLeastOnly: Bool
    let lengthsReachingAtLeast: UInt64

    init(when: StageScope?, spares: [StageScope], roles: RoleTable) {
        self.when = when
        self.spares = spares
        checks = when != nil || !spares.isEmpty
        hasWhen = when != nil
        spareCount = spares.count
        let range = spares.first?.priorityRange
        spareIsPriorityRange = range != nil
        (atLeast, below) = range ?? (Int.min, Int.max)
        isAtLeastOnly = spareIsPriorityRange && below == Int.max && atLeast > 0 && atLeast < Int.max
        lengthsReachingAtLeast = isAtLeastOnly ? roles.lengthsOfRoles(withPriorityAtLeast: atLeast) : 0
    }

    /// The check of the stage `name`, as `settings` and the stage's kind (`stage`) say.
    init(stage name: String, _ stage: any ToastStage, settings: PipelineSettings) {
        let spares = settings.spares[name]?.spares(withDefault: stage.defaultSpare) ?? stage.defaultSpare.scope.map { [$0] } ?? []
        self.init(when: settings.scopes[name], spares: spares, roles: settings.roles)
    }
}

extension Pipeline {
    /// Whether `role` may be the name of a role whose name length is among `lengths`
    /// (`RoleTable.lengthsOfRoles`).
    @inline(__always)
    static func mayBeNamed(_ role: String, among lengths: UInt64) -> Bool {
        lengths & (1 << UInt64(min(role.utf8.count, 63))) != 0
    }
}
