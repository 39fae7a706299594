import ToastPipeline

extension StageRegistry {
    /// The built-in stages plus `quiet_hours` and `escalate`.
    public static var withCustomStages: StageRegistry {
        var registry = StageRegistry.builtIn
        registry.register(QuietHoursStage.self)
        registry.register(EscalateStage.self)
        return registry
    }
}
