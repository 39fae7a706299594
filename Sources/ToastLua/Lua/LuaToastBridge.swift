import ToastCore

/// The toast ↔ table bridge: what a rule, hook or `emit` sees and hands back (docs/lua.md).
///
/// The table holds every field of docs/events.md by name, extra fields included; `duration` is
/// seconds or nil (no timeout); `priority` is the toast's own, else its role's.
extension LuaState {
    /// `toast.made_by`: the stage that made the toast (`Toast.madeBy`), read only, not a field.
    static let madeByName = "made_by"
    static let madeByIsNotAField = "made_by is not a field: it names the stage that made the toast, and a rule cannot set it"

    /// Pushes a new table holding every field of `toast` (what `pairs` on a proxy iterates).
    func pushToast(_ toast: Toast, roles: RoleTable) {
        pushTable(arrayCount: 0, fieldCount: ToastField.allCases.count + toast.extra.count)
        guard reserve(2) else { return }
        for member in toast.extra {
            push(member.value)
            setField(member.name, ofTableAt: -2)
        }
        for field in ToastField.allCases {
            pushField(field, of: toast, roles: roles)
            if type(at: -1) == .nilValue {
                pop(1)
            } else {
                setField(field.name, ofTableAt: -2)
            }
        }
    }

    /// Pushes one field's value as a script sees it: text as a string, times as seconds, nil
    /// when the toast has none; `priority` is the role's when the toast sets none.
    func pushField(_ field: ToastField, of toast: Toast, roles: RoleTable) {
        if field == .priority { return push(Int64(toast.effectivePriority(in: roles))) }
        toast.visitValue(of: field) { view in
            switch view {
            case .absent: pushNil()
            case .text(let bytes): push(bytes: bytes)
            case .time(let time): push(StreamTime.seconds(time))
            case .integer(let integer): push(Int64(integer))
            case .flag(let flag): push(flag)
            }
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
    func toast(fromTableAt index: LuaIndex, original: Toast, defaults: Toast, roles: RoleTable) throws -> Toast {
        var index = absoluteIndex(index)
        let top = self.top
        defer { setTop(top) }
        if proxy(at: index) != nil {
            // Another toast's table (say, one a script kept): read all it shows.
            pushMaterialized(proxyAt: index)
            index = self.top
        }
        var toast = defaults
        toast.id = original.id
        toast.madeBy = original.madeBy
        toast.atMicros = original.atMicros
        toast.inputLine = original.inputLine
        toast.style = nil
        toast.announcement = nil
        toast.extra = []
        // The original's extra fields keep their input order; new ones follow, by name.
        var keptExtras: [JSONMember?] = original.extra.isEmpty ? [] : Array(repeating: nil, count: original.extra.count)
        var newExtras: [JSONMember] = []

        pushNil()
        while next(ofTableAt: index) {
            defer { pop(1) }
            guard type(at: -2) == .string, let key = pointer(at: -2) else {
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
                if name == Self.madeByName { throw LuaBridgeError(Self.madeByIsNotAField) }
                newExtras.append(JSONMember(name, try jsonValue(at: -1, path: name)))
            }
        }
        newExtras.sort { $0.name < $1.name }
        toast.extra = keptExtras.compactMap { $0 } + newExtras
        guard toast.hasMessage else { throw LuaBridgeError("field 'message' must be a non-empty string") }
        return toast
    }

    /// Whether the value at `index` is a string with exactly the bytes of `text`.
    func stringEquals(at index: LuaIndex, _ text: String) -> Bool {
        text.withUTF8Bytes { stringEquals(at: index, $0) }
    }


    /// Reads one field's value, at the top of the stack, into `toast`, checked by the field's
    /// kind. `original` is the toast the script was given (for its role's priority).
    func readField(_ field: ToastField, into toast: inout Toast, original: Toast, roles: RoleTable) throws {
        let name = field.name
        /// Whether the string at the top is what `toast` already holds (then nothing is set,
        /// and a toast's stored text stays where it is).
        func isUnchangedText() -> Bool {
            toast.valueMatches(of: field) { view in
                if case .text(let bytes) = view { stringEquals(at: -1, bytes) } else { false }
            }
        }
        func text() throws -> String {
            guard let value = string(at: -1) else {
                throw LuaBridgeError("field '\(name)' must be a string, not \(typeName(at: -1))")
            }
            return value
        }
        func seconds(orNamed: Bool = false) throws -> Microseconds {
            guard type(at: -1) == .number,
                  let micros = StreamTime.microseconds(fromSeconds: number(at: -1)), micros >= 0 else {
                throw LuaBridgeError("field '\(name)' must be a number of seconds ≥ 0" + (orNamed ? ", \"short\" or \"long\"" : ""))
            }
            return micros
        }
        switch field.kind {
        case .eventType, .arrivalTime:
            return
        case .identifier, .message, .subtitle, .optionalText:
            if !isUnchangedText() { toast.set(field, to: .text(try text())) }
        case .role:
            if isUnchangedText() { return }
            let role = try text()
            guard roles.contains(role) else {
                throw LuaBridgeError("unknown role \(quoted(role))" + NameSuggestion.hint(for: role, among: roles.names))
            }
            toast.set(field, to: .text(role))
        case .duration:
            if let named = NamedDuration.allCases.first(where: { stringEquals(at: -1, $0.rawValue) }) {
                toast.set(field, to: .time(named.microseconds))
            } else {
                let micros = try seconds(orNamed: true)
                toast.set(field, to: micros == 0 ? .absent : .time(micros))
            }
        case .delay:
            toast.set(field, to: .time(try seconds()))
        case .choice:
            let names = field.choices
            guard let choice = names.first(where: { stringEquals(at: -1, $0) }) else {
                let list = names.map(quoted).dropLast().joined(separator: ", ") + " or " + quoted(names.last ?? "")
                throw LuaBridgeError("field '\(name)' must be \(list)")
            }
            toast.set(field, to: .text(choice))
        case .priority:
            guard type(at: -1) == .number, let value = exactInteger(at: -1), let priority = Int(exactly: value) else {
                throw LuaBridgeError("field '\(name)' must be an integer")
            }
            // The role's priority, handed in unchanged, stays the role's.
            let unchangedDefault = original.priority == nil && priority == original.effectivePriority(in: roles)
            toast.set(field, to: unchangedDefault ? .absent : .integer(priority))
        case .flag:
            guard type(at: -1) == .boolean else {
                throw LuaBridgeError("field '\(name)' must be true or false, not \(typeName(at: -1))")
            }
            toast.set(field, to: .flag(isTrue(at: -1)))
        }
    }
}

extension Toast {
    /// Sets a field a script removed to what `defaults` has (the id, time and type stay).
    mutating func removeField(_ field: ToastField, defaults: Toast) {
        guard field != .id else { return }
        set(field, to: defaults.value(of: field))
    }
}
