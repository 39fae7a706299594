import ToastPipeline

extension StageRegistry {
    /// The built-in stages plus this package's: `per_source_cap`, `shout`, `quiet_hours`
    /// and `escalate`.
    public static var withCustomStages: StageRegistry {
        var registry = StageRegistry.builtIn
        registry.register(PerSourceCapStage.self)
        registry.register(ShoutStage.self)
        registry.register(QuietHoursStage.self)
        registry.register(EscalateStage.self)
        return registry
    }
}
