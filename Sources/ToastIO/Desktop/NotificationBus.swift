import CDBus
#if canImport(Glibc)
import Glibc
#endif
import ToastCore

/// The freedesktop notification service on the session bus (`org.freedesktop.Notifications`),
/// behind a small safe surface: every libdbus call of the project is here and in
/// `Sources/CDBus/shim.h`. One private connection, closed when this goes away.
package final class NotificationBus {
    /// What the user did to a notification on the desktop.
    enum UserAction: Equatable {
        /// Closed it (`NotificationClosed`, reason 2: dismissed by the user).
        case closed(id: UInt32)
        /// Clicked it (`ActionInvoked` with the default action).
        case invoked(id: UInt32)
    }

    /// Why the desktop cannot be used; the message says which part is missing.
    package struct Unavailable: Error {
        package var message: String
    }

    /// The libdbus connection, owned: opened by `init`, closed and released by `deinit`, and
    /// used by this object alone.
    private let connection: OpaquePointer

    /// Connects to the session bus and checks that a notification server is on it.
    /// `address` is what `DBUS_SESSION_BUS_ADDRESS` says; without it, the bus of the user's
    /// session (`$XDG_RUNTIME_DIR/bus`) if there is one. libdbus would otherwise start a bus
    /// daemon of its own ("autolaunch"), which outlives the run and has no server on it.
    package init(address: String?, runtimeDirectory: String?) throws {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        var tried = address.map { "DBUS_SESSION_BUS_ADDRESS=\($0)" } ?? "DBUS_SESSION_BUS_ADDRESS is not set"
        if address == nil {
            guard let directory = runtimeDirectory, access(directory + "/bus", F_OK) == 0 else {
                throw Unavailable(message: "--desktop: no session bus (\(tried), and there is no $XDG_RUNTIME_DIR/bus)")
            }
            setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(directory)/bus", 1)
            tried += "; tried unix:path=\(directory)/bus"
        }
        guard let connection = cdbus_open_session(&error) else {
            throw Unavailable(message: "--desktop: no session bus (\(tried)): \(Self.text(of: error))")
        }
        // Until the checks pass, the connection is closed here; after, by deinit (a throwing
        // initializer that set every property would run deinit too, closing it twice).
        var problem: String?
        switch cdbus_server_present(connection, &error) {
        case 1:
            if cdbus_subscribe(connection, &error) == 0 {
                problem = "--desktop: cannot listen to the notification server: \(Self.text(of: error))"
            }
        case 0:
            problem = "--desktop: no notification server on the session bus (\(tried)); "
                + "start one (dunst, mako, a desktop's own), or leave out --desktop"
        default:
            problem = "--desktop: cannot ask the session bus (\(tried)): \(Self.text(of: error))"
        }
        if let problem {
            cdbus_close(connection)
            throw Unavailable(message: problem)
        }
        self.connection = connection
    }

    deinit {
        cdbus_close(connection)
    }

    /// Shows a notification (or replaces `replacing`); its id, or why it failed.
    func notify(appName: String, replacing: UInt32, icon: String, summary: String, body: String,
                urgency: UInt8) -> Result<UInt32, Unavailable> {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let id = cdbus_notify(connection, appName, replacing, icon, summary, body, urgency, &error)
        guard id != 0 else { return .failure(Unavailable(message: Self.text(of: error))) }
        return .success(id)
    }

    /// Closes a notification; why, when it failed.
    func close(_ id: UInt32) -> Unavailable? {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        return cdbus_close_notification(connection, id, &error) != 0 ? nil : Unavailable(message: Self.text(of: error))
    }

    /// The user's actions received so far (never waits); nil when the bus went away.
    func receivedActions() -> [UserAction]? {
        var actions: [UserAction] = []
        while true {
            var id: UInt32 = 0
            var reason: UInt32 = 0
            switch cdbus_next_signal(connection, &id, &reason) {
            case Int32(CDBUS_CLOSED):
                // 1 expired, 2 dismissed by the user, 3 closed by CloseNotification, 4 other.
                if reason == 2 { actions.append(.closed(id: id)) }
            case Int32(CDBUS_ACTION):
                actions.append(.invoked(id: id))
            case Int32(CDBUS_DISCONNECTED):
                return nil
            default:
                return actions
            }
        }
    }

    /// The socket that becomes readable when the server has something to say (-1: none).
    var descriptor: Int32 { cdbus_descriptor(connection) }

    private static func text(of error: DBusError) -> String {
        guard let message = error.message else { return "unknown error" }
        return String(cString: message)
    }
}
