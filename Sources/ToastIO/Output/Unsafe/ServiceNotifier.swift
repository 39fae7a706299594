#if canImport(Glibc)
import Glibc
#endif
import ToastCore

/// systemd's notify protocol (`sd_notify(3)`), spoken by hand: when the service manager started
/// the run with `NOTIFY_SOCKET`, each state (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `RELOADING=1`,
/// `STOPPING=1`) is one datagram to that socket (a path, or `@name` in the abstract namespace).
///
/// Safe to use: the socket address is built within its structure's bounds (a path that does not
/// fit is refused), and each message is sent from a buffer that lives for the call.
package final class ServiceNotifier {
    private let socket: Int32
    private var address: sockaddr_un
    private let addressLength: socklen_t
    /// Half of `WATCHDOG_USEC`: how often `WATCHDOG=1` is due (nil: no watchdog, or one for
    /// another process, `WATCHDOG_PID`).
    package let watchdogInterval: Microseconds?

    /// The notifier `variables` (the process's environment) ask for; nil without
    /// `NOTIFY_SOCKET`, or with one that cannot be reached.
    package init?(variables: [String: String]) {
        guard let name = variables["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        var path = Array(name.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }         // the abstract namespace
        else if path.first != UInt8(ascii: "/") { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        socket = descriptor
        self.address = address
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let pid = variables["WATCHDOG_PID"].flatMap { Int32($0) }
        if let usec = variables["WATCHDOG_USEC"].flatMap({ Int64($0) }), usec > 0, pid == nil || pid == getpid() {
            watchdogInterval = usec / 2
        } else {
            watchdogInterval = nil
        }
    }

    deinit { close(socket) }

    /// Sends `state` (lines of `NAME=value`); a manager that is gone is not the run's failure.
    package func send(_ state: String) {
        var bytes = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeMutableBytes { buffer in
                    sendto(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, addressLength)
                }
            }
        }
    }
}
