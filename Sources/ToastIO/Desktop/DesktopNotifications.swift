import ToastCore

/// Shows each presented toast as a desktop notification and closes it when the host dismisses
/// it (`--desktop`): the host stays the one that decides, so notifications go out with no expiry
/// of their own. A `replace` toast takes the place of the one it replaced (`replaces_id`).
/// What the user does on the desktop comes back through `userClosedToasts()`.
///
/// It is a record observer beside the output: records are written as always, and a server that
/// goes away mid-run is reported once while the records go on.
package final class DesktopNotifications: RecordWriter {
    private let bus: NotificationBus
    private let warn: (String) -> Void
    private var notificationOfToast: [String: UInt32] = [:]
    private var toastOfNotification: [UInt32: String] = [:]
    /// Notifications the user already closed on the desktop: the host's dismiss must not close them again.
    private var closedOnDesktop: Set<UInt32> = []
    /// A notification whose toast was just dismissed by a `replace`: the new toast takes its place.
    private var replaceable: UInt32?
    /// Set once the server failed: nothing more is sent.
    private var gone = false

    package init(bus: NotificationBus, warn: @escaping (String) -> Void) {
        self.bus = bus
        self.warn = warn
    }

    /// The socket to wait on beside the input.
    package var descriptor: Int32 { gone ? -1 : bus.descriptor }

    package func write(_ record: consuming Record) {
        guard !gone else { return }
        switch record {
        case .present(let toast, _, _):
            let replacing = toast.policy == .replace ? replaceable : nil
            if let stale = replaceable, stale != replacing { close(stale) }
            replaceable = nil
            let result = bus.notify(appName: toast.source ?? "toastscript", replacing: replacing ?? 0,
                                    icon: Self.icon(forRole: toast.role), summary: toast.message,
                                    body: Self.escapingMarkup(toast.subtitle ?? ""), urgency: Self.urgency(forRole: toast.role))
            switch result {
            case .success(let id):
                notificationOfToast[toast.id] = id
                toastOfNotification[id] = toast.id
            case .failure(let error):
                stop("the notification server did not take a notification (\(error.message))")
            }
        case .dismiss(let toast, _, let reason, _):
            guard let id = notificationOfToast.removeValue(forKey: toast.id) else { return }
            toastOfNotification[id] = nil
            if closedOnDesktop.remove(id) != nil { return }
            if reason == .replacement && replaceable == nil {
                replaceable = id
            } else {
                close(id)
            }
        case .drop:
            break
        }
    }

    /// The toasts whose notification the user closed or clicked since the last call.
    package func userClosedToasts() -> [String] {
        guard !gone else { return [] }
        guard let actions = bus.receivedActions() else {
            stop("the session bus went away")
            return []
        }
        var toasts: [String] = []
        for action in actions {
            switch action {
            case .closed(let id):
                guard let toast = toastOfNotification[id] else { continue }
                closedOnDesktop.insert(id)   // already gone from the screen: not closed again
                toasts.append(toast)
            case .invoked(let id):
                // A click: the server may keep the notification open, so the dismiss closes it.
                guard let toast = toastOfNotification[id] else { continue }
                toasts.append(toast)
            }
        }
        return toasts
    }

    private func close(_ id: UInt32) {
        // A notification the server already let go of is not an error worth a word.
        _ = bus.close(id)
    }

    private func stop(_ reason: String) {
        gone = true
        warn("warning: --desktop: \(reason); the records go on without the desktop")
    }

    /// Freedesktop icon names for the built-in roles.
    static func icon(forRole role: String) -> String {
        switch role {
        case "success": return "emblem-default"
        case "warning": return "dialog-warning"
        case "error": return "dialog-error"
        default: return "dialog-information"
        }
    }

    /// Urgency hint: 0 low (info, success), 1 normal (warning, and roles a script defined), 2 critical (error).
    static func urgency(forRole role: String) -> UInt8 {
        switch role {
        case "info", "success": return 0
        case "error": return 2
        default: return 1
        }
    }

    /// Servers may read the body as simple markup: a subtitle is text, so `&`, `<` and `>` are
    /// written as entities.
    static func escapingMarkup(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
