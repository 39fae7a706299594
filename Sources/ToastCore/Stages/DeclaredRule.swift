/// A rule stated as data, `rule(NAME, { when = MATCH, drop = "NOTE" })` or
/// `rule(NAME, { when = MATCH, set = { FIELD = VALUE, ... } })` (docs/lua.md, "Rules without
/// code"): the most common rules (drop this source, make that level an error) without a call
/// into Lua for every toast. It runs where a Lua rule of the same place would, and its records
/// are those of its Lua twin: a drop record with `reason: "rule"`, `rule: NAME` and the note.
package struct DeclaredRule: ToastRule {
    package let name: String
    /// Which toasts the rule acts on; every other toast goes on unchanged.
    package let when: MatchTable
    let action: Action

    /// The fields a `set` writes, by name (none for a `drop`).
    package var setFieldNames: [String] {
        guard case .set(let assignments) = action else { return [] }
        return assignments.map(\.name)
    }

    package enum Action: Equatable {
        /// Drops the toasts `when` matches, with this note (nil: none).
        case drop(note: String?)
        /// Sets these fields of the toasts `when` matches, in the order of their names.
        case set([Assignment])
    }

    /// One field a `set` writes, its value checked when the rule was read.
    package struct Assignment: Equatable {
        let name: String
        let value: Value

        enum Value: Equatable {
            /// A show field's value (`.absent`: back to no value, as `duration = 0` says).
            case field(ToastField, Toast.FieldValue)
            case extra(JSONValue)
        }
    }

    package func apply(to toast: inout Toast, context: StageContext) -> RuleOutcome {
        guard when.matches(toast, roles: context.roles) else { return .keep }
        switch action {
        case .drop(let note):
            return .drop(note: note)
        case .set(let assignments):
            var added: [JSONMember] = []
            for assignment in assignments {
                switch assignment.value {
                case .field(let field, let value):
                    toast.set(field, to: value)
                case .extra(let value):
                    if let position = toast.extra.firstIndex(where: { $0.name == assignment.name }) {
                        toast.extra[position].value = value
                    } else {
                        added.append(JSONMember(assignment.name, value))
                    }
                }
            }
            // Extra fields a rule adds follow the toast's own, by name (as a Lua rule's do).
            if !added.isEmpty { toast.extra += added }
            return .keep
        }
    }

    /// The trace says whether `when`, as written, took the toast.
    package func explanation(of toast: Toast, roles: RoleTable) -> String? {
        "when \(when.description) " + (when.matches(toast, roles: roles) ? "matched" : "did not match")
    }
}

extension DeclaredRule {
    /// Reads the table a script gave `rule(name, table)`. `roles` are the roles known when the
    /// rule is declared (a role of one's own is defined before the rule that sets it);
    /// `screenField` is `screens.by`, whose field a rule may write when it is not `screen`.
    package init(name: String, table: ConfigTable, roles: RoleTable, screenField: String?) throws {
        let path = "rule \(quoted(name))"
        guard table.list.isEmpty else {
            throw ConfigError("\(path): a rule's table names its parts ({ when = { ... }, drop = \"why\" }), it is not a list")
        }
        let parts = ["when", "drop", "set"]
        for key in table.fields.keys.sorted() where !parts.contains(key) {
            throw ConfigError("\(path): unknown part \(quoted(key))" + NameSuggestion.hint(for: key, among: parts))
        }
        switch table["when"] {
        case .table(let match)?: when = try MatchTable.read(match, path: "\(path): when")
        case .function?:
            throw ConfigError("\(path): when must be a match table; a rule that needs code is a function: rule(name, function(t) ... end)")
        case let other?: throw ConfigError("\(path): when must be a match table, not \(other.typeName)")
        case nil: throw ConfigError("\(path): needs a when (a match table: when = { source = \"cron\" })")
        }
        switch (table["drop"], table["set"]) {
        case (.some, .some):
            throw ConfigError("\(path): drop and set do not go together (a dropped toast is not shown, whatever its fields)")
        case (nil, nil):
            throw ConfigError("\(path): needs drop = \"why\" or set = { FIELD = VALUE, ... }")
        case (.string(let note)?, nil):
            action = .drop(note: note.isEmpty ? nil : note)
        case (.bool(true)?, nil):
            action = .drop(note: nil)
        case (let other?, nil):
            throw ConfigError("\(path): drop must be a string saying why (or true), not \(other.typeName)")
        case (nil, .table(let fields)?):
            guard fields.list.isEmpty, !fields.fields.isEmpty else {
                throw ConfigError("\(path): set must name fields: set = { role = \"error\" }")
            }
            action = .set(try fields.fields.sorted { $0.key < $1.key }.map { field, value in
                try Assignment(name: field, value: value, path: "\(path): set.\(field)", roles: roles, screenField: screenField)
            })
        case (nil, let other?):
            throw ConfigError("\(path): set must be a table of fields, not \(other.typeName)")
        }
        self.name = name
    }
}

extension DeclaredRule.Assignment {
    /// One `set` entry, checked as a rule's assignment of the field is (docs/lua.md, "The
    /// toast table"), but once, when the rule is read.
    init(name: String, value: ConfigValue, path: String, roles: RoleTable, screenField: String?) throws {
        self.name = name
        guard let field = ToastField(named: name) else {
            if name == "made_by" { throw ConfigError("\(path): field \"made_by\" is read-only: it names the stage that made the toast") }
            if name == "screen", let screenField, screenField != "screen" {
                throw ConfigError("\(path): screens are keyed by the field \(quoted(screenField)); set that field instead")
            }
            switch value {
            case .string(let text): self.value = .extra(.string(text))
            case .integer(let integer): self.value = .extra(.integer(integer))
            case .number(let number) where number.isFinite: self.value = .extra(.number(number))
            case .bool(let flag): self.value = .extra(.bool(flag))
            default: throw ConfigError("\(path) must be a string, a number or a boolean, not \(value.typeName)")
            }
            return
        }
        func text() throws -> String {
            guard case .string(let text) = value else { throw ConfigError("\(path) must be a string, not \(value.typeName)") }
            return text
        }
        func seconds(_ expected: String) throws -> Microseconds {
            let seconds: Double
            switch value {
            case .integer(let integer): seconds = Double(integer)
            case .number(let number): seconds = number
            default: throw ConfigError("\(path) must be \(expected), not \(value.typeName)")
            }
            guard let micros = StreamTime.microseconds(fromSeconds: seconds), micros >= 0 else {
                throw ConfigError("\(path) must be \(expected)")
            }
            return micros
        }
        let checked: Toast.FieldValue
        switch field.kind {
        case .eventType: throw ConfigError("\(path): field \"type\" is read-only: a toast is a show")
        case .arrivalTime: throw ConfigError("\(path): field \"at\" is read-only: it is when the toast came in")
        case .identifier: throw ConfigError("\(path): field \"id\" is read-only: interactions find the toast by it")
        case .message:
            let message = try text()
            guard !message.isEmpty else { throw ConfigError("\(path) must not be empty") }
            checked = .text(message)
        case .subtitle, .optionalText:
            checked = .text(try text())
        case .role:
            checked = .text(try SettingField<NoSettings>.knownRole(value, path: path, roles: roles))
        case .duration:
            if case .string(let word) = value, let named = NamedDuration(rawValue: word) {
                checked = .time(named.microseconds)
            } else {
                let micros = try seconds("a number of seconds ≥ 0, \"short\" or \"long\"")
                checked = micros == 0 ? .absent : .time(micros)
            }
        case .delay:
            checked = .time(try seconds("a number of seconds ≥ 0"))
        case .choice:
            let choices = field.choices
            guard case .string(let choice) = value, choices.contains(choice) else {
                let list = choices.map(quoted).dropLast().joined(separator: ", ") + " or " + quoted(choices.last ?? "")
                throw ConfigError("\(path) must be \(list)")
            }
            checked = .text(choice)
        case .priority:
            guard case .integer(let integer) = value, let priority = Int(exactly: integer) else {
                throw ConfigError("\(path) must be an integer, not \(value.typeName)")
            }
            checked = .integer(priority)
        case .flag:
            guard case .bool(let flag) = value else { throw ConfigError("\(path) must be true or false, not \(value.typeName)") }
            checked = .flag(flag)
        }
        self.value = .field(field, checked)
    }
}
