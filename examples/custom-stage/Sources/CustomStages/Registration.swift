import ToastPipeline

extension StageRegistry {
    /// The built-in stages plus this package's: `per_source_cap`, `shout`, `quiet_hours`,
    /// `escalate` and `night_hold`.
    public static var withCustomStages: StageRegistry {
        var registry = StageRegistry.builtIn
        registry.register(PerSourceCapStage.self)
        registry.register(ShoutStage.self)
        registry.register(QuietHoursStage.self)
        registry.register(EscalateStage.self)
        registry.register(NightHoldStage.self)
        return registry
    }
}
