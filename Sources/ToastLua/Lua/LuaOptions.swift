#if canImport(Glibc)
import Glibc
#endif
import ToastCore

/// How scripts run: sandboxed or not, and their limits (docs/lua.md).
package struct LuaOptions: Equatable, Sendable {
    /// `--unsafe-lua`: all standard libraries, binary chunks allowed.
    package var unsafe = false
    /// `--lua-budget`: instructions per call of a rule, hook or script chunk (0: none).
    package var instructionBudget = 10_000_000
    /// `--lua-memory`: megabytes the state may hold while scripts run (0: no cap).
    package var memoryLimitMB = 256
    /// `--tz`: the zone `parse_time` reads times without an offset in (and dates are shown in).
    package var timeZone: TimeDisplay.Zone = .local
    /// The wall clock fixed at these epoch seconds (`TOASTSCRIPT_NOW`, for tests): the year
    /// `parse_time` gives a date that names none.
    package var fixedNow: Int64?
    /// `--var NAME=VALUE`: what scripts read as `vars.NAME` (a later one of a name wins).
    package var variables: [String: String] = [:]
    /// Whether the bridge takes its shortcuts (docs/performance.md, "The fast path and its
    /// switch"): the rules' toast described to C, the values a rule read remembered in a table,
    /// and one table for every toast while no rule can keep it. `TOASTSCRIPT_LUA_FAST_PATH=off`
    /// turns them off, every read and write going through plain Lua calls, so that tests can
    /// hold the shortcuts to the records of the plain path.
    package var fastPath = LuaOptions.fastPathByDefault

    /// On unless the process's `TOASTSCRIPT_LUA_FAST_PATH` is `off`: a whole test suite run with
    /// it off takes the plain path everywhere, runs made in-process included.
    package static let fastPathByDefault: Bool =
        getenv(fastPathVariable).map { String(cString: $0) } != "off"

    /// The environment variable that switches the fast path.
    package static let fastPathVariable = "TOASTSCRIPT_LUA_FAST_PATH"

    /// Takes the fast path's switch from a run's `TOASTSCRIPT_LUA_FAST_PATH` (`on` or `off`;
    /// absent, the process's default). Returns why a value is not understood (it leaves the
    /// fast path as it was), for the command to warn of; nil when it is.
    package mutating func takeFastPath(from value: String?) -> String? {
        switch value {
        case nil: return nil
        case "on": fastPath = true
        case "off": fastPath = false
        case let value?:
            return "\(Self.fastPathVariable) must be on or off, not \(quoted(value)); the fast path stays "
                + (fastPath ? "on" : "off")
        }
        return nil
    }

    package init(unsafe: Bool = false, instructionBudget: Int = 10_000_000, memoryLimitMB: Int = 256,
                timeZone: TimeDisplay.Zone = .local) {
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
    /// The script's line that `message` names, as shown under it (`    3 | if t.x = 1 then`).
    public var sourceLine: String?

    public init(message: String, sourceLine: String? = nil) {
        self.message = message
        self.sourceLine = sourceLine
    }

    /// The message, and the line it names beneath it.
    public var description: String { sourceLine.map { message + "\n" + $0 } ?? message }

    /// The same error when the messages are: the line shown is the one the message names.
    public static func == (left: ScriptLoadError, right: ScriptLoadError) -> Bool {
        left.message == right.message
    }
}
