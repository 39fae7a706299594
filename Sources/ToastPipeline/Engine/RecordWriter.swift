/// Where a pipeline's records go: an encoder and a sink, an in-memory list in tests,
/// or several of them.
public protocol RecordWriter: AnyObject {
    func write(_ record: Record)
}
