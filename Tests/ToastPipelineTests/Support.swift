import Foundation
import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI

/// What one in-process run of the command printed and returned.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: [String]

    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// Runs `toastscript` in-process on `input`, with `scripts` written to temporary files
/// named `rules.lua`, `second.lua`, ... (in messages they appear by that path).
func runCLI(_ arguments: [String] = [], input: String, scripts: [String] = [],
            registry: StageRegistry = .builtIn, variables: [String: String] = [:], terminal: Bool = false,
            programName: String = "toastscript", programVersion: String? = nil) -> CLIResult {
    let directory = temporaryDirectory()
    defer { removeTemporaryDirectory(directory) }
    var paths: [String] = []
    for (index, source) in scripts.enumerated() {
        let path = directory + "/" + (index == 0 ? "rules.lua" : "script\(index + 1).lua")
        _ = FileManager.default.createFile(atPath: path, contents: Data(source.utf8))
        paths.append(path)
    }
    let output = MemorySink()
    var errors: [String] = []
    let environment = CommandEnvironment(standardInput: MemorySource(input), standardOutput: output,
                                         standardOutputIsTerminal: terminal,
                                         writeError: { errors.append($0) }, variables: variables,
                                         programName: programName, programVersion: programVersion)
    let status = Toastscript.run(arguments: arguments + paths, environment: environment, registry: registry)
    let prefix = directory + "/"
    return CLIResult(status: status, stdout: output.text.replacingOccurrences(of: prefix, with: ""),
                     stderr: errors.map { $0.replacingOccurrences(of: prefix, with: "") })
}

/// The closing line of a run where script calls failed (and no line was rejected).
func scriptCallsFailed(_ count: Int) -> String {
    "toastscript: \(count) script call\(count == 1 ? "" : "s") failed (--stats counts them by rule, hook and timer)"
}

/// JSON records of a run, one string per line.
func jsonRecords(_ input: String, _ arguments: [String] = [], scripts: [String] = []) -> [String] {
    runCLI(["--format", "json"] + arguments, input: input, scripts: scripts).lines
}

/// A new empty directory; the test removes it with `removeTemporaryDirectory` when done.
func temporaryDirectory() -> String {
    // Short, because Lua shortens long script paths in its messages.
    let path = "/tmp/ts-" + UUID().uuidString.prefix(8).lowercased()
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeTemporaryDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// A `present` record line as the JSON encoder writes it, for a toast with defaults.
func present(_ t: String, _ id: String, _ message: String, role: String = "info", waited: String = "0",
             duration: String = "3", policy: String = "enqueue", priority: Int? = nil, placement: String = "top",
             subtitle: String? = nil, source: String? = nil, extra: String? = nil, announcement: String? = nil) -> String {
    // The built-in roles' style and priority (`priority` nil: the role's).
    let styles: [String: (String, String, String, String, Int)] = [
        "info": ("info.circle.fill", "ℹ", "blue", "", 0),
        "success": ("checkmark.circle.fill", "✔", "green", "Success", 0),
        "warning": ("exclamationmark.triangle.fill", "⚠", "orange", "Warning", 1),
        "error": ("xmark.octagon.fill", "✖", "red", "Error", 2),
    ]
    let style = styles[role] ?? styles["info"]!
    let priority = priority ?? style.4
    var spoken = style.3.isEmpty ? message : "\(style.3): \(message)"
    if let subtitle, !subtitle.isEmpty { spoken += ", \(subtitle)" }
    var line = #"{"event":"present","t":\#(t),"id":"\#(id)","message":"\#(message)""#
    if let subtitle { line += #","subtitle":"\#(subtitle)""# }
    line += #","role":"\#(role)","placement":"\#(placement)","policy":"\#(policy)","priority":\#(priority),"duration":\#(duration)"#
    line += #","symbol":"\#(style.0)","glyph":"\#(style.1)","color":"\#(style.2)","announcement":"\#(announcement ?? spoken)","waited":\#(waited)"#
    if let source { line += #","source":"\#(source)""# }
    if let extra { line += #","extra":\#(extra)"# }
    return line + "}"
}

func dismiss(_ t: String, _ id: String, _ reason: String, shown: String) -> String {
    #"{"event":"dismiss","t":\#(t),"id":"\#(id)","reason":"\#(reason)","shown":\#(shown)}"#
}

/// A `drop` record line: it names the toast's message and role as they were when it was dropped.
func drop(_ t: String, _ id: String, _ message: String, role: String = "info", stage: String, _ reason: String,
          rule: String? = nil, of: String? = nil, note: String? = nil) -> String {
    var line = #"{"event":"drop","t":\#(t),"id":"\#(id)","message":"\#(message)","role":"\#(role)","stage":"\#(stage)","reason":"\#(reason)""#
    if let rule { line += #","rule":"\#(rule)""# }
    if let of { line += #","of":"\#(of)""# }
    if let note { line += #","note":"\#(note)""# }
    return line + "}"
}

/// JSON Lines from objects written as Swift dictionaries' literal text.
func lines(_ lines: String...) -> String {
    lines.joined(separator: "\n") + "\n"
}

/// Keeps the script errors a runtime reports.
final class ScriptErrorLog {
    private(set) var errors: [ScriptError] = []

    func add(_ error: ScriptError) {
        errors.append(error)
    }
}

/// A script that does not load, as stderr shows it: `toastscript: FILE:LINE: message`, then
/// that line of `source`, as `    LINE | text`.
func loadError(_ message: String, source: String) -> String {
    let line = Int(message.split(separator: ":")[1]) ?? 0
    let text = source.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
    return "toastscript: \(message)\n" + String(repeating: " ", count: 5 - String(line).count) + "\(line) | \(text)"
}

extension LuaOptions {
    /// The bridge's shortcuts on, whatever `TOASTSCRIPT_LUA_FAST_PATH` says: for the tests
    /// that look at the shortcuts themselves (what the view holds, which rules keep no table).
    static var withFastPath: LuaOptions { withFastPath() }

    static func withFastPath(unsafe: Bool = false) -> LuaOptions {
        var options = LuaOptions(unsafe: unsafe)
        options.fastPath = true
        return options
    }
}
