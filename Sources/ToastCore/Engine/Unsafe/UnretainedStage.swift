/// A stage and its context as the loop every toast takes calls them (`Pipeline.run`), both
/// lent without a reference count: called through the pipeline's arrays, each call retained
/// and released the context and the stage. Reference counts are atomic operations, so they
/// cost more of the time than of the instructions: a built-in stage is called through its
/// type (`CalledUnretained`), with nothing counted; a plugin's stage, an existential, is
/// retained for its call as before.
///
/// Safe to use: the pipeline's (or a screen's) `stages` and `contexts` hold each stage and
/// context strongly for as long as these exist, and they are made again whenever a stage or
/// a context is replaced.
struct UnretainedStage {
    let stage: any ToastStage
    private let context: Unmanaged<StageContext>
    /// For a built-in stage: its type, which calls it through `object`.
    private let builtIn: (any CalledUnretained.Type)?
    private let object: Unmanaged<AnyObject>

    init(stage: any ToastStage, context: StageContext) {
        self.stage = stage
        self.context = .passUnretained(context)
        builtIn = (stage as? any CalledUnretained).map { type(of: $0) }
        object = .passUnretained(stage)
    }

    @inline(__always)
    func process(_ toast: inout Toast) -> StageVerdict {
        if let builtIn { return builtIn.process(object, &toast, context: context) }
        return context._withUnsafeGuaranteedRef { context in stage.process(&toast, context: context) }
    }
}

/// A stage called through its type with the stage and its context unretained: the built-in
/// stages (each says so where it is declared); a plugin's stage is called as an existential.
protocol CalledUnretained: ToastStage {
    static func process(_ stage: Unmanaged<AnyObject>, _ toast: inout Toast, context: Unmanaged<StageContext>) -> StageVerdict
}

extension CalledUnretained {
    /// `process` of the stage `stage` refers to, which is of this type.
    @inline(__always)
    static func process(_ stage: Unmanaged<AnyObject>, _ toast: inout Toast, context: Unmanaged<StageContext>) -> StageVerdict {
        stage._withUnsafeGuaranteedRef { object in
            context._withUnsafeGuaranteedRef { context in
                unsafeDowncast(object, to: Self.self).process(&toast, context: context)
            }
        }
    }
}
