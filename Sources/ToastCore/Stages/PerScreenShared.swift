/// What a keyed stage's instances for every screen share (`ToastStage.forNewScreen()`), so that
/// a screen carries only its own state: the stage's configuration, read for every toast and
/// replaced only by a reload, between events; and the buffer each toast's key is built in.
///
/// No two accesses overlap: the buffer is used within one step of a stage's `process`, which
/// calls out to nothing that could reach another instance (it may set a timer, which fires
/// later), and the pipeline runs one step at a time.
final class PerScreenShared<Configuration> {
    var configuration: Configuration
    var scratch = ByteBuffer(capacity: 64)

    init(_ configuration: Configuration) {
        self.configuration = configuration
    }
}
