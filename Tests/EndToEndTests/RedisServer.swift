import Foundation
import Testing

/// A `redis-server` of a test's own, on a Unix socket in a folder of its own (`Scripts/setup
/// --test` installs it), stopped with SIGKILL when the value goes. With `keepsData`, it
/// appends every write to a file and syncs it, so that a server killed and started again in
/// the same folder has what it had.
final class RedisServer {
    let folder: String
    var socket: String { folder + "/redis.sock" }
    private let keepsData: Bool
    private var process: Process?

    init(keepsData: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ts-redis-\(UUID().uuidString.prefix(8))").path
        self.keepsData = keepsData
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Starts the server, with `options` (`--key-load-delay 100`: a server that loads its data
    /// slowly) after the usual ones; returns once it answers `PING`, with `PONG` or, while it loads
    /// its data, `LOADING`.
    func start(_ options: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["redis-server", "--port", "0", "--unixsocket", socket, "--save", "", "--dir", folder,
                             "--appendonly", keepsData ? "yes" : "no", "--appendfsync", "always",
                             "--enable-debug-command", "local"] + options
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        var tries = 0
        func answers() -> Bool {
            let reply = (try? cli(["PING"])) ?? ""
            return reply == "PONG\n" || reply.hasPrefix("LOADING")
        }
        while !answers() && tries < 250 {
            usleep(20_000)
            tries += 1
        }
        try #require(answers(), "redis-server did not start on \(socket)")
    }

    /// Kills the server (SIGKILL: a child may inherit a signal mask that blocks SIGTERM).
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// A command through `redis-cli --raw`: its output.
    @discardableResult
    func cli(_ arguments: [String]) throws -> String {
        try run(["-s", socket, "--raw"] + arguments, input: nil)
    }

    /// Appends one entry `field value` to `stream` for each value, in one pipe (`redis-cli --pipe`).
    func add(to stream: String, field: String, _ values: [String]) throws {
        var protocolText = ""
        for value in values {
            let arguments = ["XADD", stream, "*", field, value]
            protocolText += "*\(arguments.count)\r\n" + arguments.map { "$\($0.utf8.count)\r\n\($0)\r\n" }.joined()
        }
        let reply = try run(["-s", socket, "--pipe"], input: protocolText)
        #expect(reply.contains("errors: 0, replies: \(values.count)"), "\(reply)")
    }

    /// The values of field `record` of every entry of `stream`, in order.
    func records(of stream: String) throws -> [String] {
        let lines = try cli(["XRANGE", stream, "-", "+"]).split(separator: "\n", omittingEmptySubsequences: false)
        // Three lines an entry: its id, the field's name, the value (a record is one line).
        return stride(from: 2, to: lines.count, by: 3).map { String(lines[$0]) }
    }

    private func run(_ arguments: [String], input: String?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["redis-cli"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if let input {
            try inputPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try inputPipe.fileHandleForWriting.close()
        }
        let (data, _) = readBoth(output, errors)
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
