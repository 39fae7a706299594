import CLua

/// The toast ↔ table bridge: what a rule, hook or `emit` sees and hands back (SPEC §5).
///
/// The table holds every field of SPEC §1 by name, extra fields included; `duration` is
/// seconds or nil (no timeout); `priority` is the toast's own, else its role's.
extension LuaState {
    /// Pushes a new table holding every field of `toast` (what `pairs` on a proxy iterates).
    func pushToast(_ toast: Toast, roles: RoleTable) {
        lua_createtable(L, 0, Int32(ToastField.allCases.count + toast.extra.count))
        guard reserve(2) else { return }
        for member in toast.extra {
            push(member.value)
            lua_setfield(L, -2, member.name)
        }
        for field in ToastField.allCases {
            pushField(field, of: toast, roles: roles)
            if lua_type(L, -1) == LUA_TNIL {
                clua_pop(L, 1)
            } else {
                lua_setfield(L, -2, field.rawValue)
            }
        }
    }

    /// Pushes one field's value as a script sees it; nil when the toast has none.
    func pushField(_ field: ToastField, of toast: Toast, roles: RoleTable) {
        switch field {
        case .type: push("show")
        case .id: push(toast.id)
        case .message: toast.withMessageBytes { push(bytes: $0) }
        case .subtitle: if toast.withSubtitleBytes({ push(bytes: $0) }) == nil { lua_pushnil(L) }
        case .role: push(toast.role)
        case .duration: if let duration = toast.duration { lua_pushnumber(L, StreamTime.seconds(duration)) } else { lua_pushnil(L) }
        case .after: lua_pushnumber(L, StreamTime.seconds(toast.after))
        case .placement: push(toast.placement.rawValue)
        case .policy: push(toast.policy.rawValue)
        case .priority: lua_pushinteger(L, lua_Integer(toast.effectivePriority(in: roles)))
        case .source: if let source = toast.source { push(source) } else { lua_pushnil(L) }
        case .key: if let key = toast.key { push(key) } else { lua_pushnil(L) }
        case .dismissOnTap: lua_pushboolean(L, toast.dismissOnTap ? 1 : 0)
        case .dismissOnLongPress: lua_pushboolean(L, toast.dismissOnLongPress ? 1 : 0)
        case .swipe: lua_pushboolean(L, toast.swipe ? 1 : 0)
        case .at: lua_pushnumber(L, StreamTime.seconds(toast.at))
        }
    }

    /// The toast a table describes. `original` gives what the table cannot say: the id
    /// (unless set), the time, the input line, and whether the priority was the role's.
    /// `defaults` fills fields the table leaves out (a replacement starts from a show's
    /// defaults). Throws with a message naming the field for a value of the wrong type.
    ///
    /// Rules usually change little, so a value equal to the original's is taken from the
    /// original without building a new Swift value; field names are recognized by the
    /// identity of Lua's interned strings (`fieldKeys`), not by converting them.
    func toast(fromTableAt index: Int32, original: Toast, defaults: Toast, roles: RoleTable) throws -> Toast {
        var index = lua_absindex(L, index)
        let top = self.top
        defer { lua_settop(L, top) }
        if proxy(at: index) != nil {
            // Another toast's table (say, one a script kept): read all it shows.
            pushMaterialized(proxyAt: index)
            index = self.top
        }
        var toast = defaults
        toast.id = original.id
        toast.at = original.at
        toast.inputLine = original.inputLine
        toast.style = nil
        toast.announcement = nil
        toast.extra = []
        // The original's extra fields keep their input order; new ones follow, by name.
        var keptExtras: [JSONMember?] = original.extra.isEmpty ? [] : Array(repeating: nil, count: original.extra.count)
        var newExtras: [JSONMember] = []

        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            defer { clua_pop(L, 1) }
            guard lua_type(L, -2) == LUA_TSTRING, let key = lua_topointer(L, -2) else {
                throw LuaBridgeError("the toast table has a key of type \(typeName(at: -2)); fields need names")
            }
            if let field = field(forKey: key) {
                try readField(field, into: &toast, original: original, roles: roles)
            } else if let position = original.extra.firstIndex(where: { stringEquals(at: -2, $0.name) }) {
                let member = original.extra[position]
                if case .string(let text) = member.value, stringEquals(at: -1, text) {
                    keptExtras[position] = member
                } else {
                    keptExtras[position] = JSONMember(member.name, try jsonValue(at: -1, path: member.name))
                }
            } else {
                let name = string(at: -2) ?? ""
                newExtras.append(JSONMember(name, try jsonValue(at: -1, path: name)))
            }
        }
        newExtras.sort { $0.name < $1.name }
        toast.extra = keptExtras.compactMap { $0 } + newExtras
        guard !toast.message.isEmpty else { throw LuaBridgeError("field 'message' must be a non-empty string") }
        return toast
    }

    /// Whether the value at `index` is a string with exactly the bytes of `text`.
    func stringEquals(at index: Int32, _ text: String) -> Bool {
        guard lua_type(L, index) == LUA_TSTRING else { return false }
        var length = 0
        guard let pointer = clua_tolstring(L, index, &length) else { return false }
        let lua = UnsafeRawBufferPointer(start: pointer, count: length)
        return text.utf8.withContiguousStorageIfAvailable { swift in
            swift.count == length && (length == 0 || memcmp(swift.baseAddress!, lua.baseAddress!, length) == 0)
        } ?? (Array(text.utf8) == Array(lua))
    }

    /// Reads one field's value, at the top of the stack, into `toast`.
    func readField(_ field: ToastField, into toast: inout Toast, original: Toast, roles: RoleTable) throws {
        let name = field.rawValue
        func text() throws -> String {
            guard let value = string(at: -1) else {
                throw LuaBridgeError("field '\(name)' must be a string, not \(typeName(at: -1))")
            }
            return value
        }
        /// The text, reusing `unchanged` when it is equal.
        func text(unchanged: String?) throws -> String {
            if let unchanged, stringEquals(at: -1, unchanged) { return unchanged }
            return try text()
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
        switch field {
        case .type, .at:
            break
        case .id:
            toast.id = try text(unchanged: original.id)
        case .message:
            toast.message = try text(unchanged: original.message)
        case .subtitle:
            toast.subtitle = try text(unchanged: original.subtitle)
        case .role:
            if stringEquals(at: -1, original.role) {
                toast.role = original.role
                break
            }
            let role = try text()
            guard roles.contains(role) else {
                throw LuaBridgeError("unknown role \(quoted(role)) (known: \(roles.names.joined(separator: ", ")))")
            }
            toast.role = role
        case .duration:
            if let named = NamedDuration.allCases.first(where: { stringEquals(at: -1, $0.rawValue) }) {
                toast.duration = named.microseconds
            } else {
                let micros = try seconds()
                toast.duration = micros == 0 ? nil : micros
            }
        case .after:
            toast.after = try seconds()
        case .placement:
            guard let placement = Placement.allCases.first(where: { stringEquals(at: -1, $0.rawValue) }) else {
                throw LuaBridgeError("field 'placement' must be \"top\", \"center\" or \"bottom\"")
            }
            toast.placement = placement
        case .policy:
            guard let policy = Policy.allCases.first(where: { stringEquals(at: -1, $0.rawValue) }) else {
                throw LuaBridgeError("field 'policy' must be \"enqueue\", \"replace\" or \"stack\"")
            }
            toast.policy = policy
        case .priority:
            var isInteger: Int32 = 0
            let value = clua_tointeger(L, -1, &isInteger)
            guard lua_type(L, -1) == LUA_TNUMBER, isInteger != 0, let priority = Int(exactly: value) else {
                throw LuaBridgeError("field 'priority' must be an integer")
            }
            // The role's priority, handed in unchanged, stays the role's.
            let unchangedDefault = original.priority == nil && priority == original.effectivePriority(in: roles)
            toast.priority = unchangedDefault ? nil : priority
        case .source:
            toast.source = try text(unchanged: original.source)
        case .key:
            toast.key = try text(unchanged: original.key)
        case .dismissOnTap:
            toast.dismissOnTap = try flag()
        case .dismissOnLongPress:
            toast.dismissOnLongPress = try flag()
        case .swipe:
            toast.swipe = try flag()
        }
    }
}

extension Toast {
    /// Sets a field a script removed to what `defaults` has (the id, time and type stay).
    mutating func removeField(_ field: ToastField, defaults: Toast) {
        switch field {
        case .id, .at, .type: break
        case .message: message = defaults.message
        case .subtitle: subtitle = defaults.subtitle
        case .role: role = defaults.role
        case .duration: duration = defaults.duration
        case .after: after = defaults.after
        case .placement: placement = defaults.placement
        case .policy: policy = defaults.policy
        case .priority: priority = defaults.priority
        case .source: source = defaults.source
        case .key: key = defaults.key
        case .dismissOnTap: dismissOnTap = defaults.dismissOnTap
        case .dismissOnLongPress: dismissOnLongPress = defaults.dismissOnLongPress
        case .swipe: swipe = defaults.swipe
        }
    }
}
