/// A stage and its context as the loop every toast takes calls them (`Pipeline.run`), the
/// context lent without a reference count: called through the pipeline's arrays, each call
/// retained and released the context (and the stage; an existential cannot be lent this way),
/// about 1.5 % of the instructions a line without scripts.
///
/// Safe to use: the pipeline's `contexts` hold each context strongly for as long as the
/// pipeline lives, and the pipeline makes these again whenever it replaces a context.
struct UnretainedStage {
    let stage: any ToastStage
    private let context: Unmanaged<StageContext>

    init(stage: any ToastStage, context: StageContext) {
        self.stage = stage
        self.context = .passUnretained(context)
    }

    @inline(__always)
    func process(_ toast: inout Toast) -> StageVerdict {
        context._withUnsafeGuaranteedRef { context in stage.process(&toast, context: context) }
    }
}
