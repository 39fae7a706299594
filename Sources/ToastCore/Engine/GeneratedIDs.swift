/// The `e<N>` ids of toasts that `emit` and summaries bring in (docs/lua.md): one counter
/// per run, shared by the scripts and the stages.
package final class GeneratedIDs {
    package private(set) var count = 0

    package init() {}

    /// Goes on from `count` ids given (a restored run, `--state`).
    package func restore(count: Int) {
        self.count = count
    }

    package func next() -> String {
        count += 1
        return "e\(count)"
    }
}
