/// Where a pipeline's records go: an encoder and a sink, an in-memory list in tests,
/// or several of them.
package protocol RecordWriter: AnyObject {
    /// Takes the record: a writer that keeps it (writing it later, on another thread) then
    /// holds it without a copy.
    func write(_ record: consuming Record)
}
