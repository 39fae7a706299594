/// Typed reads from one settings table, with errors that name the setting's full path
/// (`queue.limit must be a whole number ≥ 0, not a string`). Built-in stages and plugin
/// stages read their `config{...}` tables through it.
struct SettingsReader {
    let table: ConfigTable
    /// The path of this table, e.g. `dedup`, for messages.
    let path: String

    init(_ table: ConfigTable, path: String) {
        self.table = table
        self.path = path
    }

    /// The full path of one of this table's settings.
    func path(of name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }

    private func fail(_ name: String, _ expected: String, _ value: ConfigValue) -> ConfigError {
        ConfigError("\(path(of: name)) must be \(expected), not \(value.typeName)")
    }

    /// Fails on a setting this table does not know, naming the ones it does; `alsoKnown` are
    /// names taken out of the table before (a stage's `when` and `spare`), named too.
    func rejectUnknown(allowed: [String], alsoKnown: [String] = []) throws {
        for name in table.fields.keys.sorted() where !allowed.contains(name) {
            throw ConfigError("unknown setting \(path(of: name))" + NameSuggestion.hint(for: name, among: allowed + alsoKnown))
        }
        if !table.list.isEmpty {
            throw ConfigError("\(path) must be a table of named settings, not a list")
        }
    }

    func bool(_ name: String) throws -> Bool? {
        guard let value = table[name] else { return nil }
        guard case .bool(let flag) = value else { throw fail(name, "true or false", value) }
        return flag
    }

    func string(_ name: String) throws -> String? {
        guard let value = table[name] else { return nil }
        guard case .string(let text) = value else { throw fail(name, "a string", value) }
        return text
    }

    func number(_ name: String) throws -> Double? {
        guard let value = table[name] else { return nil }
        switch value {
        case .integer(let number): return Double(number)
        case .number(let number) where number.isFinite: return number
        default: throw fail(name, "a finite number", value)
        }
    }

    /// A whole number of at least `minimum`.
    func integer(_ name: String, minimum: Int = Int.min) throws -> Int? {
        guard let value = table[name] else { return nil }
        let result: Int?
        switch value {
        case .integer(let number): result = Int(exactly: number)
        case .number(let number): result = Int(exactly: number)
        default: result = nil
        }
        let expected = minimum == Int.min ? "a whole number" : "a whole number ≥ \(minimum)"
        guard let result else { throw fail(name, expected, value) }
        guard result >= minimum else { throw ConfigError("\(path(of: name)) must be \(expected), not \(result)") }
        return result
    }

    /// Seconds, as microseconds; `minimum` is in seconds and `exclusive` makes it `>`.
    func seconds(_ name: String, minimum: Double = 0, exclusive: Bool = false) throws -> Microseconds? {
        guard let value = table[name] else { return nil }
        let expected = "a number of seconds \(exclusive ? ">" : "≥") \(formatted(minimum))"
        let seconds: Double
        switch value {
        case .integer(let number): seconds = Double(number)
        case .number(let number): seconds = number
        default: throw fail(name, expected, value)
        }
        guard exclusive ? seconds > minimum : seconds >= minimum,
              let micros = StreamTime.microseconds(fromSeconds: seconds) else {
            throw ConfigError("\(path(of: name)) must be \(expected), not \(formatted(seconds))")
        }
        return micros
    }

    /// A list of strings, e.g. `{"message", "role"}`.
    func stringList(_ name: String) throws -> [String]? {
        guard let value = table[name] else { return nil }
        guard case .table(let list) = value, list.fields.isEmpty else {
            throw fail(name, "a list of strings", value)
        }
        return try list.list.map { element in
            guard case .string(let text) = element else { throw fail(name, "a list of strings", element) }
            return text
        }
    }

    /// A nested table, e.g. one role in `roles`.
    func table(_ name: String) throws -> SettingsReader? {
        guard let value = table[name] else { return nil }
        guard case .table(let nested) = value else { throw fail(name, "a table", value) }
        return SettingsReader(nested, path: path(of: name))
    }

    private func formatted(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
