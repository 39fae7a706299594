/// A stage's `when` as the loop checks it for every toast: whether it has one, and a
/// range of priorities read without the scope itself (rate_limit's and debounce's default).
struct ScopeCheck {
    let scope: StageScope?
    let hasScope: Bool
    let isPriorityRange: Bool
    let atLeast: Int
    let below: Int
    /// Only `below`, above 0 (the default): a toast with no priority of its own is taken
    /// when its role's name has none of the lengths of the roles that reach `below`.
    let isBelowOnly: Bool
    let lengthsReachingBelow: UInt64

    init(_ scope: StageScope?, roles: RoleTable) {
        self.scope = scope
        hasScope = scope != nil
        let range = scope?.priorityRange
        isPriorityRange = range != nil
        (atLeast, below) = range ?? (Int.min, Int.max)
        isBelowOnly = isPriorityRange && atLeast == Int.min && below > 0 && below < Int.max
        lengthsReachingBelow = isBelowOnly ? roles.lengthsOfRoles(withPriorityAtLeast: below) : 0
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
