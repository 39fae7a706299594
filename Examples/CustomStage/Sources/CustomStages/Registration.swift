import ToastPipeline

extension StageRegistry {
    /// The built-in stages plus `quiet_hours` and `escalate`.
    public static var withCustomStages: StageRegistry {
        var registry = StageRegistry.builtIn
        // Registering fixed, distinct names cannot fail.
        try? registry.register(QuietHoursStage.name) { input in
            QuietHoursStage(settings: try QuietHoursStage.Settings(input.table, roles: input.settings.roles))
        }
        try? registry.register(EscalateStage.name) { input in
            EscalateStage(settings: try EscalateStage.Settings(input.table, roles: input.settings.roles))
        }
        return registry
    }
}
