/// What a keyed stage's instances for every screen share (`ToastStage.forNewScreen()`), so that
/// a screen carries only its own state: the stage's configuration, read for every toast and
/// replaced only by a reload, between events; and the buffer each toast's key is built in.
///
/// Both in unchecked cells (`UncheckedCell`): the buffer is used within one step of a stage's
/// `process`, which calls out to nothing that could reach another instance (it may set a timer,
/// which fires later), and the pipeline runs one step at a time.
final class PerScreenShared<Configuration> {
    let configuration: UncheckedCell<Configuration>
    let scratch = UncheckedCell(ByteBuffer(capacity: 64))

    init(_ configuration: Configuration) {
        self.configuration = UncheckedCell(configuration)
    }
}
