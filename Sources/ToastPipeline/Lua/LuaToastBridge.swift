import CLua

/// The toast ↔ table bridge: what a rule, hook or `emit` sees and hands back (SPEC §5).
///
/// The table holds every field of SPEC §1 by name, extra fields included; `duration` is
/// seconds or nil (no timeout); `priority` is the toast's own, else its role's.
extension LuaState {
    /// The names a toast table gives meaning to; any other name is an extra field.
    static let toastFieldNames: Set<String> = [
        "id", "message", "subtitle", "role", "duration", "after", "placement", "policy", "priority",
        "source", "key", "dismiss_on_tap", "dismiss_on_long_press", "swipe", "at", "type",
    ]

    /// Pushes a new table for `toast`.
    func pushToast(_ toast: Toast, roles: RoleTable) {
        lua_createtable(L, 0, Int32(18 + toast.extra.count))
        for member in toast.extra {
            push(member.value)
            lua_setfield(L, -2, member.name)
        }
        setField("type", "show")
        setField("id", toast.id)
        setField("message", toast.message)
        if let subtitle = toast.subtitle { setField("subtitle", subtitle) }
        setField("role", toast.role)
        if let duration = toast.duration {
            lua_pushnumber(L, StreamTime.seconds(duration))
            lua_setfield(L, -2, "duration")
        }
        lua_pushnumber(L, StreamTime.seconds(toast.after))
        lua_setfield(L, -2, "after")
        setField("placement", toast.placement.rawValue)
        setField("policy", toast.policy.rawValue)
        lua_pushinteger(L, lua_Integer(toast.effectivePriority(in: roles)))
        lua_setfield(L, -2, "priority")
        if let source = toast.source { setField("source", source) }
        if let key = toast.key { setField("key", key) }
        lua_pushboolean(L, toast.dismissOnTap ? 1 : 0)
        lua_setfield(L, -2, "dismiss_on_tap")
        lua_pushboolean(L, toast.dismissOnLongPress ? 1 : 0)
        lua_setfield(L, -2, "dismiss_on_long_press")
        lua_pushboolean(L, toast.swipe ? 1 : 0)
        lua_setfield(L, -2, "swipe")
        lua_pushnumber(L, StreamTime.seconds(toast.at))
        lua_setfield(L, -2, "at")
    }

    private func setField(_ name: String, _ value: String) {
        push(value)
        lua_setfield(L, -2, name)
    }

    /// The toast a table describes. `original` gives what the table cannot say: the id
    /// (unless set), the time, the input line, and whether the priority was the role's.
    /// `defaults` fills fields the table leaves out (a replacement starts from a show's
    /// defaults). Throws with a message naming the field for a value of the wrong type.
    func toast(fromTableAt index: Int32, original: Toast, defaults: Toast, roles: RoleTable) throws -> Toast {
        let index = lua_absindex(L, index)
        let top = self.top
        defer { lua_settop(L, top) }
        var toast = defaults
        toast.id = original.id
        toast.at = original.at
        toast.inputLine = original.inputLine
        toast.style = nil
        toast.announcement = nil
        toast.extra = []

        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            defer { clua_pop(L, 1) }
            guard lua_type(L, -2) == LUA_TSTRING, let name = string(at: -2) else {
                throw LuaBridgeError("the toast table has a key of type \(typeName(at: -2)); fields need names")
            }
            if !LuaState.toastFieldNames.contains(name) {
                let value = try jsonValue(at: -1, path: name)
                if value != .null { toast.extra.append(JSONMember(name, value)) }
                continue
            }
            try readField(name, into: &toast, original: original, roles: roles)
        }
        // Fields the original had keep their input order; new ones follow, by name.
        let order = Self.extraOrder(of: original)
        toast.extra.sort { (order[$0.name] ?? Int.max, $0.name) < (order[$1.name] ?? Int.max, $1.name) }
        guard !toast.message.isEmpty else { throw LuaBridgeError("field 'message' must be a non-empty string") }
        return toast
    }

    /// Input order of the original's extra fields, so unchanged toasts keep it.
    private static func extraOrder(of toast: Toast) -> [String: Int] {
        var order: [String: Int] = [:]
        for (position, member) in toast.extra.enumerated() { order[member.name] = position }
        return order
    }

    /// Reads one named field at the top of the stack into `toast`.
    private func readField(_ name: String, into toast: inout Toast, original: Toast, roles: RoleTable) throws {
        func text() throws -> String {
            guard let value = string(at: -1) else {
                throw LuaBridgeError("field '\(name)' must be a string, not \(typeName(at: -1))")
            }
            return value
        }
        func flag() throws -> Bool {
            guard lua_type(L, -1) == LUA_TBOOLEAN else {
                throw LuaBridgeError("field '\(name)' must be true or false, not \(typeName(at: -1))")
            }
            return lua_toboolean(L, -1) != 0
        }
        func seconds() throws -> Microseconds {
            guard lua_type(L, -1) == LUA_TNUMBER,
                  let micros = StreamTime.microseconds(fromSeconds: clua_tonumber(L, -1, nil)), micros >= 0 else {
                throw LuaBridgeError("field '\(name)' must be a number of seconds ≥ 0")
            }
            return micros
        }
        switch name {
        case "type", "at":
            break
        case "id":
            toast.id = try text()
        case "message":
            toast.message = try text()
        case "subtitle":
            toast.subtitle = try text()
        case "role":
            let role = try text()
            guard roles.contains(role) else {
                throw LuaBridgeError("unknown role \(quoted(role)) (known: \(roles.names.joined(separator: ", ")))")
            }
            toast.role = role
        case "duration":
            switch string(at: -1) {
            case "short"?: toast.duration = 2 * StreamTime.perSecond
            case "long"?: toast.duration = 3_500_000
            default:
                let micros = try seconds()
                toast.duration = micros == 0 ? nil : micros
            }
        case "after":
            toast.after = try seconds()
        case "placement":
            guard let placement = Placement(rawValue: try text()) else {
                throw LuaBridgeError("field 'placement' must be \"top\", \"center\" or \"bottom\"")
            }
            toast.placement = placement
        case "policy":
            guard let policy = Policy(rawValue: try text()) else {
                throw LuaBridgeError("field 'policy' must be \"enqueue\", \"replace\" or \"stack\"")
            }
            toast.policy = policy
        case "priority":
            var isInteger: Int32 = 0
            let value = clua_tointeger(L, -1, &isInteger)
            guard lua_type(L, -1) == LUA_TNUMBER, isInteger != 0, let priority = Int(exactly: value) else {
                throw LuaBridgeError("field 'priority' must be an integer")
            }
            // The role's priority, handed in unchanged, stays the role's.
            let unchangedDefault = original.priority == nil && priority == original.effectivePriority(in: roles)
            toast.priority = unchangedDefault ? nil : priority
        case "source":
            toast.source = try text()
        case "key":
            toast.key = try text()
        case "dismiss_on_tap":
            toast.dismissOnTap = try flag()
        case "dismiss_on_long_press":
            toast.dismissOnLongPress = try flag()
        case "swipe":
            toast.swipe = try flag()
        default:
            break
        }
    }
}
