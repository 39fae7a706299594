import ToastCore

/// A log line's level, as a text line, a JSON show's `level`, `severity` or `PRIORITY`, or Lua's
/// `level_of` reads it (docs/events.md, "Levels"). It gives the toast its field `level` (the
/// name) and its role, so that an ERROR line of a plain log is an error toast, spared and
/// preempting as any error is.
package enum LogLevel: String, CaseIterable, Sendable {
    case critical, error, warning, info, debug

    /// The role a toast of this level gets: `critical` and `error` are errors.
    package var role: String {
        switch self {
        case .critical, .error: "error"
        case .warning: "warning"
        case .info, .debug: "info"
        }
    }

    /// A syslog severity (0–7): 0–2 critical, 3 error, 4 warning, 5–6 info, 7 debug.
    package init?(syslogSeverity severity: Int) {
        switch severity {
        case 0...2: self = .critical
        case 3: self = .error
        case 4: self = .warning
        case 5, 6: self = .info
        case 7: self = .debug
        default: return nil
        }
    }

    /// The level `line[from..<to]` names: written in capitals when `capitalsOnly`, else in any
    /// case. The words (docs/events.md, "Levels in text logs"): EMERG EMERGENCY ALERT CRIT
    /// CRITICAL FATAL PANIC → critical; ERR ERROR SEVERE → error; WARN WARNING → warning; NOTICE
    /// INFO INFORMATION → info; DEBUG TRACE → debug. Found by length and first letters, then
    /// compared whole: this runs on tokens of every line of a text log.
    package init?(word line: UnsafeBufferPointer<UInt8>, from: Int, to: Int, capitalsOnly: Bool) {
        let count = to - from
        guard count >= 3 && count <= 11 else { return nil }
        let first = line[from] & 0xDF
        let candidate: (word: StaticString, level: LogLevel)
        switch first {
        case UInt8(ascii: "E"):
            switch count {
            case 3: candidate = ("ERR", .error)
            case 5: candidate = line[from + 1] & 0xDF == UInt8(ascii: "M") ? ("EMERG", .critical) : ("ERROR", .error)
            case 9: candidate = ("EMERGENCY", .critical)
            default: return nil
            }
        case UInt8(ascii: "I"):
            switch count {
            case 4: candidate = ("INFO", .info)
            case 11: candidate = ("INFORMATION", .info)
            default: return nil
            }
        case UInt8(ascii: "W"):
            switch count {
            case 4: candidate = ("WARN", .warning)
            case 7: candidate = ("WARNING", .warning)
            default: return nil
            }
        case UInt8(ascii: "C"):
            switch count {
            case 4: candidate = ("CRIT", .critical)
            case 8: candidate = ("CRITICAL", .critical)
            default: return nil
            }
        case UInt8(ascii: "D") where count == 5: candidate = ("DEBUG", .debug)
        case UInt8(ascii: "T") where count == 5: candidate = ("TRACE", .debug)
        case UInt8(ascii: "A") where count == 5: candidate = ("ALERT", .critical)
        case UInt8(ascii: "F") where count == 5: candidate = ("FATAL", .critical)
        case UInt8(ascii: "P") where count == 5: candidate = ("PANIC", .critical)
        case UInt8(ascii: "S") where count == 6: candidate = ("SEVERE", .error)
        case UInt8(ascii: "N") where count == 6: candidate = ("NOTICE", .info)
        default: return nil
        }
        let word = UnsafeBufferPointer(start: candidate.word.utf8Start, count: count)
        for offset in 0..<count {
            let byte = line[from + offset], expected = word[offset]
            if byte != expected && (capitalsOnly || byte != expected | 0x20) { return nil }
        }
        self = candidate.level
    }

    /// The level `word` names, in any case.
    init?(word: String) {
        var word = word
        guard let level = word.withUTF8({ LogLevel(word: $0, from: 0, to: $0.count, capitalsOnly: false) }) else { return nil }
        self = level
    }

    /// The level of a JSON show's `level` or `severity` value: a level word in any case.
    package init?(levelValue value: JSONValue) {
        guard case .string(let word) = value else { return nil }
        self.init(word: word)
    }

    /// The level of a JSON show's `PRIORITY` (the journal's): a syslog severity, as a number or
    /// its one digit.
    package init?(priorityValue value: JSONValue) {
        switch value {
        case .integer(let number): self.init(syslogSeverity: Int(clamping: number))
        case .string(let digits):
            guard digits.utf8.count == 1, let number = Int(digits) else { return nil }
            self.init(syslogSeverity: number)
        default: return nil
        }
    }

    /// The extra member a toast of this level gets, made once for each level (a text log's
    /// lines share them).
    package var field: [JSONMember] {
        switch self {
        case .critical: Self.fields.critical
        case .error: Self.fields.error
        case .warning: Self.fields.warning
        case .info: Self.fields.info
        case .debug: Self.fields.debug
        }
    }
    private static let fields = (critical: member(.critical), error: member(.error), warning: member(.warning),
                                 info: member(.info), debug: member(.debug))
    private static func member(_ level: LogLevel) -> [JSONMember] { [JSONMember("level", .string(level.rawValue))] }
}

/// The members of a JSON show that may name its level, as read; a show without a `role` takes
/// the role of the first that names one: `level`, else `severity` (a level word in any case),
/// else `PRIORITY` (a syslog severity).
struct LevelHints {
    static let names = ["level", "severity", "PRIORITY"]

    /// Where a line's members of these names have their values, noted while it is scanned and
    /// read only for a show left without a role (nearly every line that has one has a role).
    struct Offsets {
        var level, severity, priority: Int?

        var any: Bool { level != nil || severity != nil || priority != nil }

        /// Notes where the value of the member named `name` (its bytes) starts, when it is one
        /// of `names`: compared by length and bytes, as this is asked of every extra member.
        @inline(__always)
        mutating func note(_ name: UnsafeBufferPointer<UInt8>, at offset: Int) {
            switch name.count {
            case 5 where Self.is(name, "level"): level = offset
            case 8 where Self.is(name, "severity"): severity = offset
            case 8 where Self.is(name, "PRIORITY"): priority = offset
            default: break
            }
        }

        /// Whether `name` is `word`'s bytes, which have its length.
        @inline(__always)
        private static func `is`(_ name: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
            let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            for index in 0..<bytes.count where name[index] != bytes[index] { return false }
            return true
        }

        /// The values at the offsets noted in `line`; nil when one cannot be read.
        func read(in line: UnsafeBufferPointer<UInt8>) -> LevelHints? {
            func value(at offset: Int?) -> JSONValue?? {
                guard let offset else { return .some(nil) }
                var scanner = JSONScanner(line)
                scanner.index = offset
                return (try? scanner.parseValue(depth: 1)).map { .some($0) }
            }
            guard let level = value(at: level), let severity = value(at: severity), let priority = value(at: priority) else {
                return nil
            }
            return LevelHints(level: level, severity: severity, priority: priority)
        }
    }

    var level, severity, priority: JSONValue?

    mutating func set(_ name: String, _ value: JSONValue) {
        switch name {
        case "level": level = value
        case "severity": severity = value
        default: priority = value
        }
    }

    /// The level they name, reading them from `members` too (the fields a `parse` function made).
    func level(orIn members: [JSONMember]) -> LogLevel? {
        var hints = self
        for member in members where Self.names.contains(member.name) { hints.set(member.name, member.value) }
        return hints.level.flatMap(LogLevel.init(levelValue:)) ?? hints.severity.flatMap(LogLevel.init(levelValue:))
            ?? hints.priority.flatMap(LogLevel.init(priorityValue:))
    }
}
