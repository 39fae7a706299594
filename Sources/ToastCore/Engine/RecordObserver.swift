/// Code that acts on each record after it is written, as a script's `on(...)` hooks do. It gets
/// the pipeline's own context, so it can read the clock and the input line and bring new toasts
/// in without holding the pipeline.
package protocol RecordObserver: AnyObject {
    func observe(_ record: Record, context: StageContext)
}
