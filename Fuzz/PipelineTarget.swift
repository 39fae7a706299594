// libFuzzer target: the whole command on arbitrary input, with the example rule scripts loaded.
// Built by Scripts/fuzz together with the library sources into one module; run from the
// package root (the scripts are read from examples/).

/// The runs each input goes through: JSON in, every format out (traced, explained, the html
/// page), with and without drain, a rule that sends every field of every toast through Lua and
/// back, a rule that reads every field by name and checks it, two `parse` functions, and the
/// stages that hold with the scripts' timers (hold-everything.lua), and screens made, moved
/// between, ended by their limit and reused (screens.lua); then `diff` of two rule sets. (An in-memory input stands
/// for a pipe, so text input names the stream clock.)
private let runs: [[String]] = [
    ["--format", "json", "--stats", "examples/flaky-sync.lua", "examples/summary-hook.lua", "examples/mask-emails.lua"],
    ["--format", "json", "Fuzz/touch-everything.lua"],
    ["--format", "json", "Fuzz/read-by-name.lua"],
    ["--format", "text", "--verbose", "--color", "always", "--no-drain", "examples/app-session.lua"],
    ["--format", "json", "--input", "text", "--clock", "stream", "examples/ci-log.lua"],
    ["--format", "json", "--input", "text", "examples/syslog.lua"],
    ["--format", "json", "examples/journal.lua"],
    ["--format", "json", "--trace", "examples/flaky-sync.lua", "examples/summary-hook.lua", "Fuzz/touch-everything.lua"],
    ["--format", "text", "--explain", "t2", "--explain", "e1", "examples/flaky-sync.lua"],
    ["--format", "html", "examples/app-session.lua", "examples/mask-emails.lua"],
    ["--format", "json", "Fuzz/hold-everything.lua"],
    ["--format", "json", "--trace", "--no-drain", "Fuzz/hold-everything.lua"],
    ["--format", "json", "Fuzz/screens.lua"],
    ["--format", "json", "--trace", "--no-drain", "Fuzz/screens.lua", "Fuzz/touch-everything.lua"],
]

/// `toastscript diff`: two runs of the same bytes; the fates differ or not, nothing else.
private let diffRun = ["diff", "examples/app-session.lua", "examples/app-session-calm.lua", "--lua-budget", "100000",
                       "--max-line-bytes", "4096", "--format", "json"]

/// What must hold for any input: the Lua bridge's plain path (`TOASTSCRIPT_LUA_FAST_PATH=off`)
/// gives the fast path's status, records and messages; the run ends with 0 or 65, a rule reads what the toast holds,
/// every output line is a strict JSON
/// object (json format), every present is followed by exactly one dismiss on its screen, a page is whole and
/// carries no markup from the input; `diff` ends with 0 or 1 and a summary.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for arguments in runs {
        // The Lua bridge's fast path against its plain path: the same bytes, the same messages.
        func run(fastPath: String) -> (status: Int32, output: MemorySink, errors: [String]) {
            let output = MemorySink()
            var errors: [String] = []
            let environment = CommandEnvironment(standardInput: MemorySource(bytes), standardOutput: output,
                                                 writeError: { errors.append($0) },
                                                 variables: ["TOASTSCRIPT_LUA_FAST_PATH": fastPath], wallClock: { 0 })
            let status = Toastscript.run(arguments: ["--lua-budget", "100000", "--max-line-bytes", "4096"] + arguments,
                                         environment: environment)
            return (status, output, errors)
        }
        let (status, output, errors) = run(fastPath: "on")
        let plain = run(fastPath: "off")
        precondition(plain.status == status && plain.output.bytes == output.bytes && plain.errors == errors,
                     "the plain path differs from the fast path: \(arguments)")
        precondition(status == 0 || status == 65, "status \(status): \(errors)")
        precondition(!errors.contains { $0.contains("read differs") }, "a rule read what the toast does not hold: \(errors)")
        if arguments[1] == "html" {
            // One page, whatever the input: our one script, and nothing from the input as markup.
            let page = output.text
            precondition(page.hasSuffix("</html>\n"), "an unfinished page")
            precondition(page.ranges(of: "<script").count == 1, "markup from the input")
        }
        guard arguments[1] == "json" else { continue }
        var presented: [String: Int] = [:]
        for line in output.bytes.split(separator: 0x0A) {
            let members = checkJSONLine(Array(line) + [0x0A])
            func field(_ name: String) -> String? { members.first { $0.name == name }?.value.stringValue }
            guard let event = field("event"), let toast = field("id") else { preconditionFailure("a record without event or id") }
            // With screens on, the same id may be shown on two screens at once.
            let id = (members.first { $0.name == "screen" }.map { "\($0.value) " } ?? "") + toast
            if event == "present" { presented[id, default: 0] += 1 }
            if event == "dismiss" {
                precondition(presented[id, default: 0] > 0, "\(id) dismissed without a present")
                presented[id, default: 0] -= 1
            }
        }
        precondition(presented.values.allSatisfy { $0 == 0 }, "a present without a dismiss")
    }
    let output = MemorySink()
    var errors: [String] = []
    let environment = CommandEnvironment(standardInput: MemorySource(bytes), standardOutput: output,
                                         writeError: { errors.append($0) }, wallClock: { 0 })
    let status = Toastscript.run(arguments: diffRun, environment: environment)
    precondition(status == 0 || status == 1, "diff status \(status): \(errors)")
    for line in output.bytes.split(separator: 0x0A) { _ = checkJSONLine(Array(line) + [0x0A]) }
    precondition(output.text.contains(#"{"event":"diff_summary""#), "diff without a summary")
    return 0
}
