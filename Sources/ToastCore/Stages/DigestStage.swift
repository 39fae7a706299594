/// The `digest` stage: the toasts of a group (by the value of the field `key`) within
/// `window` of the first become one toast that stands for them. The first toast of a group
/// opens a window: with `leading` it goes on at once, else it is held; the others that come
/// before the window ends are held. When it ends, fewer than `min` held toasts go on as they
/// were; otherwise each is dropped (`digested`, `into` the digest's id) and one digest toast
/// comes in, made by this stage: "40 more from ci".
package final class DigestStage: ToastStage, CalledUnretained {
    package private(set) var settings: DigestSettings
    private var key: FieldReference
    /// Runs a `message` function (the scripts' runtime).
    private var functions: (any ScriptFunctionRunner)?
    fileprivate var windows: [[UInt8]: Window] = [:]
    private var timerKeys: [Int: [UInt8]] = [:]
    private var nextToken = 0
    private var scratch = ByteBuffer(capacity: 64)

    fileprivate struct Window {
        /// The group's value (nil: the shared group of toasts without one).
        var value: JSONValue?
        var timer: Int
        var held: [HoldHandle] = []
    }

    package init(settings: DigestSettings, functions: (any ScriptFunctionRunner)? = nil) {
        self.settings = settings
        self.key = FieldReference(name: settings.key)
        self.functions = functions
    }

    /// For a screen reused after another was forgotten: no window.
    func empty() {
        windows = [:]
        timerKeys = [:]
    }

    /// With screens on, each screen has its own windows.
    package func forNewScreen() -> (any ToastStage)? {
        DigestStage(settings: settings, functions: functions)
    }

    /// New settings and message function; the open windows close as they were set.
    package func reload(from replacement: any ToastStage) {
        guard let replacement = replacement as? DigestStage else { return }
        (settings, key, functions) = (replacement.settings, replacement.key, replacement.functions)
    }

    package func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        scratch.removeAll()
        toast.appendKey(of: key, roles: context.roles, to: &scratch)
        let group = scratch.bytes
        if var window = windows[group] {
            let handle = context.hold()
            window.held.append(handle)
            windows[group] = window
            context.explain("held in the open window of its \(settings.key), until it ends")
            return .hold(handle)
        }
        // A new window; its timer is set before the toast goes on.
        nextToken += 1
        let end = context.nowMicros + settings.window
        var window = Window(value: toast.groupValue(of: key, roles: context.roles), timer: nextToken)
        timerKeys[nextToken] = group
        context.setTimer(atMicros: end, token: nextToken)
        if settings.leading {
            windows[group] = window
            context.explain("opens a window of its \(settings.key) until \(context.describe(end)), and goes on")
            return .pass
        }
        let handle = context.hold()
        window.held.append(handle)
        windows[group] = window
        context.explain("opens a window of its \(settings.key) until \(context.describe(end)), held in it")
        return .hold(handle)
    }

    package func timerFired(token: Int, context: StageContext) {
        guard let group = timerKeys.removeValue(forKey: token), let window = windows.removeValue(forKey: group) else { return }
        // Cancelled toasts (a dismiss) left the window; what is left is told in arrival order.
        let held = window.held.compactMap { handle in context.heldToast(handle).map { (handle, $0) } }
        guard !held.isEmpty else { return }
        guard held.count >= settings.min else {
            for (handle, _) in held { context.release(handle) }
            return
        }
        let id = context.nextGeneratedID()
        for (handle, _) in held {
            context.drop(handle, Drop(stage: context.stageName, reason: .digested, into: id))
        }
        context.emit(digest(id: id, of: held.map(\.1), group: window.value, context: context))
    }

    /// The toast that stands for `toasts`: the role of the one with the highest priority (the
    /// latest among equals), the group as its source, `count` and `ids` as extra fields.
    private func digest(id: String, of toasts: [Toast], group: JSONValue?, context: StageContext) -> Toast {
        let roles = context.roles
        func priority(_ toast: Toast) -> Int { toast.priority ?? roles.priority(of: toast.role) ?? 0 }
        var leader = toasts[0]
        for toast in toasts.dropFirst() where priority(toast) >= priority(leader) { leader = toast }
        let label = group.map(\.groupLabel)
        var digest = context.settings.queue.show(id: id, message: "-", role: leader.role)
        digest.atMicros = context.nowMicros
        digest.inputLine = context.inputLine
        digest.source = label
        digest.priority = roles.priority(of: leader.role) ?? 0
        digest.extra = [JSONMember("count", .integer(Int64(toasts.count))),
                        JSONMember("ids", .array(toasts.map { .string($0.id) }))]
        switch settings.message {
        case .function(let function)?:
            if let made = functions?.digest(calling: function, with: toasts, base: digest, context: context) {
                return made
            }
            digest.message = render(settings.defaultTemplate(sharedGroup: label == nil), toasts: toasts, group: label)
            // The function failed: the error is traced, with the default message it took.
            if context.isTracing, let failure = functions?.takeFailure() {
                var made = digest
                made.madeBy = context.stageName
                context.trace(made, verdict: .error, changedFields: ["message"],
                              because: "message function: \(failure); the default message was used")
            }
        case .template(let template)?:
            digest.message = render(template, toasts: toasts, group: label)
        case nil:
            digest.message = render(settings.defaultTemplate(sharedGroup: label == nil), toasts: toasts, group: label)
        }
        return digest
    }

    /// Fills `{count}`, `{group}`, `{first}` and `{last}`; other text stays as written.
    private func render(_ template: String, toasts: [Toast], group: String?) -> String {
        let text = Template.fill(template) { name in
            switch name {
            case "count": String(toasts.count)
            case "group": group ?? ""
            case "first": toasts.first?.message ?? ""
            case "last": toasts.last?.message ?? ""
            default: nil
            }
        }
        return text.isEmpty ? "\(toasts.count) notifications" : text
    }

}

extension DigestStage {
    /// Each open window's group key (`SavedKey`) with its value, its timer and the
    /// toasts held in it in arrival order; the token counter.
    package func saveState() -> JSONValue? {
        .object([
            JSONMember("windows", .array(windows.sorted { $0.value.timer < $1.value.timer }.map { key, window in
                .object([JSONMember("key", SavedKey.value(key)), JSONMember("value", window.value ?? .null),
                         JSONMember("has_value", .bool(window.value != nil)),
                         JSONMember("timer", .integer(Int64(window.timer))),
                         JSONMember("held", .array(window.held.map(\.savedState)))])
            })),
            JSONMember("next_token", .integer(Int64(nextToken))),
        ])
    }

    package func restoreState(from saved: JSONValue) throws {
        let path = "state"
        let object = try SavedObject(saved, path: path)
        var restoredWindows: [[UInt8]: Window] = [:]
        var restoredTimers: [Int: [UInt8]] = [:]
        let savedWindows = try object.list("windows")
        for (index, item) in savedWindows.enumerated() {
            let itemPath = "\(path).windows[\(index)]"
            let window = try SavedObject(item, path: itemPath)
            let key = try SavedKey.bytes(try window.required("key"), path: "\(itemPath).key")
            let held = try window.list("held")
            let timer = Int(try window.integer("timer"))
            // Each window has a key and a timer of its own: a timer fires one window.
            guard restoredWindows[key] == nil else { throw SavedStateError("\(itemPath).key is another window's too") }
            guard restoredTimers[timer] == nil else { throw SavedStateError("\(itemPath).timer is another window's too") }
            restoredWindows[key] = Window(value: try window.bool("has_value") ? try window.required("value") : nil, timer: timer,
                                          held: try held.enumerated().map { try HoldHandle(savedState: $1, path: "\(itemPath).held[\($0)]") })
            restoredTimers[timer] = key
        }
        let token = Int(try object.integer("next_token"))
        (windows, timerKeys, nextToken) = (restoredWindows, restoredTimers, token)
    }
}

extension DigestStage: ScreenState {
    /// An open window, even an empty one, keeps its screen until it ends.
    func stateEnds(now: Microseconds, isHeld: (HoldHandle) -> Bool) -> ScreenStateEnd {
        windows.isEmpty ? .now : .onActivity
    }
}

extension DigestStage: FieldPreserving {
    /// It keeps state, or sets a style or an announcement: never a field.
    func leaves(field: String) -> Bool { true }
}

