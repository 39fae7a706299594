/// A file named on the command line (the output, the dead-letter file, the events) that cannot
/// be opened; `message` names the path and the system's reason.
package struct FileOpenError: Error, Equatable {
    package var message: String
    package init(message: String) { self.message = message }
}
