/// Where a pipeline's records go: an encoder and a sink, an in-memory list in tests,
/// or several of them.
package protocol RecordWriter: AnyObject {
    func write(_ record: Record)
}
