/// The `e<N>` ids of toasts that `emit` and summaries bring in (docs/lua.md): one counter
/// per run, shared by the scripts and the stages.
public final class GeneratedIDs {
    public private(set) var count = 0

    public init() {}

    public func next() -> String {
        count += 1
        return "e\(count)"
    }
}
