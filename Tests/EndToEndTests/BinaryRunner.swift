import Foundation

/// The package's root: `TOASTSCRIPT_ROOT`, else found from this file's place.
let root: String = ProcessInfo.processInfo.environment["TOASTSCRIPT_ROOT"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// The built binary: `TOASTSCRIPT_BIN` (Scripts/test sets it), else the debug build.
let binary: String = ProcessInfo.processInfo.environment["TOASTSCRIPT_BIN"] ?? root + "/.build/debug/toastscript"

struct BinaryResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the binary from the package root with stdin from a file (or nothing). `stdin` is a
/// recorded input, given to the binary as a regular file (the stream clock), unless
/// `stdinIsPipe` writes it through a pipe (live input: the follow clock).
func runBinary(_ arguments: [String], stdinFile: String? = nil, stdin: String? = nil, stdinIsPipe: Bool = false,
               environment: [String: String] = [:], program: String = binary) throws -> BinaryResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    var variables = ProcessInfo.processInfo.environment
    variables.removeValue(forKey: "NO_COLOR")
    for (name, value) in environment { variables[name] = value }
    process.environment = variables
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    var inputPipe: Pipe?
    var recorded: URL?
    defer { if let recorded { try? FileManager.default.removeItem(at: recorded) } }
    if let stdinFile {
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: root + "/" + stdinFile))
    } else if let stdin, !stdinIsPipe {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ts-stdin-\(UUID().uuidString)")
        try Data(stdin.utf8).write(to: file)
        recorded = file
        process.standardInput = try FileHandle(forReadingFrom: file)
    } else if stdin != nil {
        inputPipe = Pipe()
        process.standardInput = inputPipe
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    let written = DispatchSemaphore(value: 0)
    if let inputPipe, let stdin {
        // A child may stop before it reads all of its input (a usage error, a file it cannot
        // open): the write then fails with EPIPE. A thread of its own, with SIGPIPE blocked,
        // writes it, so the signal cannot kill the test process; ignoring SIGPIPE process-wide
        // instead would pass the ignoring on to every child the tests start.
        let writer = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? inputPipe.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
            try? inputPipe.fileHandleForWriting.close()
            written.signal()
        }
        writer.start()
    } else {
        written.signal()
    }
    let (outputData, errorData) = readBoth(output, errors)
    process.waitUntilExit()
    written.wait()
    return BinaryResult(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                        stderr: String(decoding: errorData, as: UTF8.self))
}

/// Reads two pipes to their ends at once, so a child that fills one while the other is read
/// never waits forever.
func readBoth(_ output: Pipe, _ errors: Pipe) -> (Data, Data) {
    nonisolated(unsafe) var errorData = Data()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        errorData = errors.fileHandleForReading.readDataToEndOfFile()
        done.signal()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    done.wait()
    return (outputData, errorData)
}
