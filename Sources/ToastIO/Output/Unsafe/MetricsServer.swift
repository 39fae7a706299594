#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import ToastCore

/// `--metrics ADDR`: a small HTTP/1.1 server of the project's own on a thread of its own, for
/// Prometheus (`GET /metrics`) and health checks (`GET /health`). It answers one request a
/// connection and closes it, and it guards the run against hostile clients: a request longer
/// than 8 KiB, or not whole within 5 s, is closed; at most 8 connections are open, another is
/// closed at once; any method but GET is 405, any other path 404. Nothing a client does reaches
/// the pipeline's thread but the question `answer` puts to it.
///
/// Safe to use: every socket is this object's own, read into buffers it owns, within their
/// counts; the thread stops (and the sockets close) in `stop()`.
package final class MetricsServer: @unchecked Sendable {
    /// What a request asks for.
    package enum Path: Sendable { case metrics, health }

    /// An answer: its status line's code and phrase, and its body.
    package struct Response: Sendable {
        package var status: Int
        package var body: String

        package init(status: Int, body: String) {
            self.status = status
            self.body = body
        }
    }

    static let requestLimit = 8 * 1024
    static let requestTimeout: Microseconds = 5_000_000
    static let connectionLimit = 8

    private let listener: Int32
    /// How the address is named in notes: `http://127.0.0.1:9464/metrics`, a socket's path.
    package let boundName: String
    private let stopPipe: (read: Int32, write: Int32)
    private var thread: SystemThread?
    private let unixPath: String?

    /// Binds `address`: `HOST:PORT`, `[V6]:PORT`, or a Unix socket's path (`/…` or `./…`);
    /// port 0 takes a free port, which `boundName` says. Throws `FileOpenError` with the reason.
    package init(address: String) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw FileOpenError(message: "--metrics \(address): cannot make a pipe") }
        stopPipe = (ends[0], ends[1])
        if address.hasPrefix("/") || address.hasPrefix("./") {
            (listener, boundName) = try Self.bindUnix(address)
            unixPath = address
        } else {
            (listener, boundName) = try Self.bindInet(address)
            unixPath = nil
        }
        guard listen(listener, 64) == 0 else {
            throw FileOpenError(message: "--metrics \(address): cannot listen: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        stop()
        close(listener)
        close(stopPipe.read)
        close(stopPipe.write)
        if let unixPath { unlink(unixPath) }
    }

    /// Serves on a thread of its own; `answer` is called on that thread for each request.
    package func start(answer: @escaping @Sendable (Path) -> Response) -> Bool {
        thread = SystemThread.start { [self] in serve(answer) }
        return thread != nil
    }

    /// Stops the thread (the connections open are closed).
    package func stop() {
        guard let thread else { return }
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        thread.join()
        self.thread = nil
    }

    // MARK: Serving

    private struct Connection {
        var fd: Int32
        var request: [UInt8] = []
        var openedAt: Microseconds
    }

    private func serve(_ answer: @Sendable (Path) -> Response) {
        var connections: [Connection] = []
        while true {
            var requests = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
                            pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&requests, nfds_t(requests.count), 250)
            if requests[0].revents != 0 { break }
            // The connections polled (each with its place in `requests`), then the new ones.
            var open: [Connection] = []
            let now = Self.now()
            for (index, var connection) in connections.enumerated() {
                var done = false
                if requests[index + 2].revents != 0 { done = read(&connection, answer) }
                if !done && now - connection.openedAt > Self.requestTimeout { done = true }
                if done { close(connection.fd) } else { open.append(connection) }
            }
            connections = open
            if requests[1].revents != 0 { accept(into: &connections) }
        }
        for connection in connections { close(connection.fd) }
    }

    private func accept(into connections: inout [Connection]) {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard connections.count < Self.connectionLimit else {
                close(client)
                continue
            }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            connections.append(Connection(fd: client, openedAt: Self.now()))
        }
    }

    /// Reads what came; true when the connection is done with (answered, closed, too long).
    private func read(_ connection: inout Connection, _ answer: @Sendable (Path) -> Response) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(connection.fd, $0.baseAddress, $0.count) }
        if count <= 0 { return count == 0 || (errno != EAGAIN && errno != EINTR) }
        connection.request += chunk[..<count]
        guard let end = Self.headersEnd(connection.request) else {
            if connection.request.count > Self.requestLimit {
                respond(connection.fd, Response(status: 431, body: "request header fields too large\n"))
                return true
            }
            return false
        }
        guard end <= Self.requestLimit else {
            respond(connection.fd, Response(status: 431, body: "request header fields too large\n"))
            return true
        }
        let line = connection.request.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let words = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        guard words.count == 3, words[2].hasPrefix("HTTP/1.") else {
            respond(connection.fd, Response(status: 400, body: "bad request\n"))
            return true
        }
        let target = String(words[1].prefix { $0 != "?" })
        let path: Path? = switch target {
        case "/metrics": .metrics
        case "/health": .health
        default: nil
        }
        guard let path else {
            respond(connection.fd, Response(status: 404, body: "not found: /metrics and /health are here\n"))
            return true
        }
        guard words[0] == "GET" || words[0] == "HEAD" else {
            respond(connection.fd, Response(status: 405, body: "only GET\n"), allow: true)
            return true
        }
        var response = answer(path)
        if words[0] == "HEAD" { response.body = "" }
        respond(connection.fd, response, contentType: path == .metrics ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
        return true
    }

    private static func headersEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A
            && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// Writes a whole response; a client that does not read it within a second loses it.
    private func respond(_ fd: Int32, _ response: Response, contentType: String = "text/plain; charset=utf-8", allow: Bool = false) {
        let phrases = [200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
                       431: "Request Header Fields Too Large", 503: "Service Unavailable"]
        let body = Array(response.body.utf8)
        var head = "HTTP/1.1 \(response.status) \(phrases[response.status] ?? "")\r\nContent-Type: \(contentType)\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n" + (allow ? "Allow: GET, HEAD\r\n" : "") + "\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        let deadline = Self.now() + 1_000_000
        while sent < bytes.count && Self.now() < deadline {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if errno == EAGAIN || errno == EINTR {
                var request = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&request, 1, 100)
            } else {
                return
            }
        }
    }

    private static func now() -> Microseconds {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Microseconds(now.tv_sec) * 1_000_000 + Microseconds(now.tv_nsec / 1_000)
    }

    // MARK: Binding

    private static func bindUnix(_ path: String) throws -> (Int32, String) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw FileOpenError(message: "--metrics \(path): the socket's path is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        func connectOrBind(_ fd: Int32, bind binding: Bool) -> Int32 {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    binding ? bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                        : connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            // A socket left by a run before is taken over; one a running process answers on, or
            // anything else, is not ours to remove.
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw FileOpenError(message: "--metrics \(path) exists and is not a socket") }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let answered = probe >= 0 && connectOrBind(probe, bind: false) == 0
            if probe >= 0 { close(probe) }
            if answered { throw FileOpenError(message: "--metrics \(path) is served by another process (it answers there)") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FileOpenError(message: "--metrics \(path): cannot make a socket") }
        let bound = connectOrBind(fd, bind: true)
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw FileOpenError(message: "--metrics \(path): cannot bind: \(reason)")
        }
        return (fd, path)
    }

    private static func bindInet(_ address: String) throws -> (Int32, String) {
        guard let colon = address.lastIndex(of: ":") else {
            throw FileOpenError(message: "--metrics takes HOST:PORT, [V6]:PORT or a socket's path, not '\(address)'")
        }
        var host = String(address[..<colon])
        let port = String(address[address.index(after: colon)...])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let portNumber = UInt16(port) else {
            throw FileOpenError(message: "--metrics \(address): '\(port)' is not a port")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty ? nil : host, String(portNumber), &hints, &found)
        guard status == 0, let first = found else {
            throw FileOpenError(message: "--metrics \(address): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var lastReason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastReason = String(cString: strerror(errno))
                close(fd)
                continue
            }
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            var boundPort = portNumber
            if named == 0 {
                boundPort = withUnsafePointer(to: &bound) { pointer in
                    pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                }
            }
            let shownHost = host.contains(":") ? "[\(host)]" : (host.isEmpty ? "0.0.0.0" : host)
            return (fd, "http://\(shownHost):\(boundPort)/metrics")
        }
        throw FileOpenError(message: "--metrics \(address): cannot bind: \(lastReason)")
    }
}
