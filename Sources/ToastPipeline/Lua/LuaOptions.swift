/// How scripts run: sandboxed or not, and their limits (SPEC §5).
public struct LuaOptions: Equatable, Sendable {
    /// `--unsafe-lua`: all standard libraries, binary chunks allowed.
    public var unsafe = false
    /// `--lua-budget`: instructions per call of a rule, hook or script chunk (0: none).
    public var instructionBudget = 10_000_000
    /// `--lua-memory`: megabytes the state may hold while scripts run (0: no cap).
    public var memoryLimitMB = 256
    /// `--tz`: the zone `parse_time` reads times without an offset in.
    public var timeZone: TimestampParser.Zone = .utc

    public init(unsafe: Bool = false, instructionBudget: Int = 10_000_000, memoryLimitMB: Int = 256,
                timeZone: TimestampParser.Zone = .utc) {
        self.unsafe = unsafe
        self.instructionBudget = instructionBudget
        self.memoryLimitMB = memoryLimitMB
        self.timeZone = timeZone
    }
}

/// A script that cannot be used: it does not load, or its top level fails (exit 1).
public struct ScriptLoadError: Error, Equatable, CustomStringConvertible {
    /// `FILE:LINE: message`, or the system's reason for a file that cannot be read.
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
