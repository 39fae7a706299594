/// What the run counts besides each stage's passes and drops: toasts shown and dropped by role,
/// errors shown and dropped (by the stage of their drop records, and by role), and what the
/// summaries and digests shown stand for (`PipelineStatistics`), counted as each record is written.
extension Pipeline {
    /// An error (a toast of priority 2 or more) is never dropped without a count: by the stage
    /// of its drop record and by its role. The ids of errors a summary or digest may stand for
    /// are kept until one that names them is shown.
    func countDropped(_ toast: Toast, _ drop: Drop) {
        if countsRoles { counts.roleDrops.add(toast.role) }
        guard isError(toast) else { return }
        counts.errorDrops.add(drop.stageLabel)
        counts.errorRoleDrops.add(toast.role)
        if drop.reason.label == .word(.digested) || drop.reason.label == .word(.rateLimited),
           errorsAwaitingSummary.count < Self.errorsAwaitingLimit {
            errorsAwaitingSummary.insert(toast.id)
        }
    }

    func countPresented(_ toast: Toast) {
        if countsRoles { counts.roleShows.add(toast.role) }
        if isError(toast) { counts.errorsShown += 1 }
        guard toast.madeBy != nil, case .array(let ids)? = toast.extraValue("ids") else { return }
        counts.summariesShown += 1
        counts.stoodFor += ids.count
        for case .string(let id) in ids where errorsAwaitingSummary.remove(id) != nil {
            counts.errorsStoodFor += 1
        }
    }

    /// Whether `toast` has a priority of `RoleTable.errorPriority` or more: its own, else its role's.
    func isError(_ toast: Toast) -> Bool {
        if let priority = toast.priority { return priority >= RoleTable.errorPriority }
        return Self.mayBeNamed(toast.role, among: errorRoleLengths)
            && toast.effectivePriority(in: settings.roles) >= RoleTable.errorPriority
    }
}
