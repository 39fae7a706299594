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

    /// The level words and the level each names, upper case.
    private static let words: [(word: [UInt8], level: LogLevel)] = ([
        ("EMERG", .critical), ("EMERGENCY", .critical), ("ALERT", .critical), ("CRIT", .critical),
        ("CRITICAL", .critical), ("FATAL", .critical), ("PANIC", .critical),
        ("ERR", .error), ("ERROR", .error), ("SEVERE", .error),
        ("WARN", .warning), ("WARNING", .warning),
        ("NOTICE", .info), ("INFO", .info), ("INFORMATION", .info),
        ("DEBUG", .debug), ("TRACE", .debug),
    ] as [(String, LogLevel)]).map { (Array($0.0.utf8), $0.1) }

    /// The level `word` names: written in capitals when `capitalsOnly`, else in any case.
    package init?<Bytes: RandomAccessCollection>(word: Bytes, capitalsOnly: Bool) where Bytes.Element == UInt8 {
        let count = word.count
        guard count >= 3 && count <= 11 else { return nil }
        for entry in Self.words where entry.word.count == count {
            var matches = true
            var index = word.startIndex
            for expected in entry.word {
                let byte = word[index]
                if byte != expected && (capitalsOnly || byte != expected | 0x20) {
                    matches = false
                    break
                }
                index = word.index(after: index)
            }
            if matches {
                self = entry.level
                return
            }
        }
        return nil
    }

    /// The level of a JSON show's `level` or `severity` value (a level word in any case), or
    /// of its `PRIORITY` (a syslog severity, as a number or its digits).
    package init?(levelValue value: JSONValue) {
        guard case .string(let word) = value else { return nil }
        self.init(word: Array(word.utf8), capitalsOnly: false)
    }

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
    package var field: [JSONMember] { Self.fields[Self.allCases.firstIndex(of: self) ?? 0] }
    private static let fields = allCases.map { [JSONMember("level", .string($0.rawValue))] }
}

/// The members of a JSON show that may name its level, as read; a show without a `role` takes
/// the role of the first that names one: `level`, else `severity` (a level word in any case),
/// else `PRIORITY` (a syslog severity).
struct LevelHints {
    static let names = ["level", "severity", "PRIORITY"]

    /// Whether a member's name has the length of one of `names` (checked before the names
    /// themselves, on every extra member of a line).
    @inline(__always)
    static func mayBeName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count == 5 || name.count == 8
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
