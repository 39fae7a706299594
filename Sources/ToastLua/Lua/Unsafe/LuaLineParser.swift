import ToastCore
import ToastIO

/// A script's `parse` function in front of the decoder (docs/lua.md "parse"): each non-blank
/// line goes to it, as a string (`--input text`) or as the table of its JSON object, and what
/// it returns comes back as the fields of events, for the decoder to check like any input line.
///
/// Safe to use: a line's bytes are pushed to Lua as a string (Lua copies them) within the call
/// they are lent to, and nothing keeps a pointer to them.
final class LuaParseFunction: LineParser {
    let runtime: LuaRuntime
    /// The pipeline's entry context: a toast the function `emit`s enters at the first stage.
    let context: StageContext

    init(runtime: LuaRuntime, context: StageContext) {
        self.runtime = runtime
        self.context = context
    }

    func parse(_ line: UnsafeBufferPointer<UInt8>, isText: Bool, number: Int) -> ParsedLine {
        runtime.running(in: ScriptCall(context: context, inputLine: number)) {
            runtime.parse(line, isText: isText, number: number)
        }
    }
}

extension LuaRuntime {
    func parse(_ line: UnsafeBufferPointer<UInt8>, isText: Bool, number: Int) -> ParsedLine {
        guard let function = parseFunction else { return .rejected("no parse function") }
        let top = state.top
        defer { state.setTop(top) }
        state.pushReference(function.reference)
        if isText {
            guard isValidUTF8(line) else { return .rejected("not valid UTF-8") }
            let end = line.last == 0x0D ? line.count - 1 : line.count
            state.push(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(line)[0..<end]))
        } else if let reason = pushJSONObject(line) {
            return .rejected(reason)
        }
        if case .failure(let message) = state.call(argumentCount: 1, resultCount: 1, budget: budget, place: function.place) {
            return .failed("parse: \(message)")
        }
        do {
            return try events(returnedAt: top + 1)
        } catch let error as LuaBridgeError {
            return .failed("parse: \(function.place): \(error.message)")
        } catch {
            return .failed("parse: \(function.place): \(error)")
        }
    }

    /// nil or false: skip; a table with a first element: a list of events; another table: one event.
    private func events(returnedAt index: LuaIndex) throws -> ParsedLine {
        switch state.type(at: index) {
        case .nilValue: return .skip
        case .boolean where !state.isTrue(at: index): return .skip
        case .table: break
        default:
            throw LuaBridgeError("returned \(state.typeName(at: index)); expected an event table, a list of them, or nil")
        }
        guard state.pushElement(1, ofTableAt: index) != .nilValue else {
            state.pop()
            return .events([try state.eventFields(at: index, path: "event")])
        }
        state.pop()
        var events: [EventFields] = []
        let count = state.length(ofTableAt: index)
        for position in 1...max(1, count) {
            guard state.pushElement(position, ofTableAt: index) == .table else {
                throw LuaBridgeError("element \(position) of the returned list is \(state.typeName(at: -1)), not an event table")
            }
            events.append(try state.eventFields(at: -1, path: "event \(position)"))
            state.pop()
        }
        return .events(events)
    }

    /// Pushes the line's JSON object as a table; nil when done, else why the line is not one
    /// (in the decoder's words).
    private func pushJSONObject(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        let opensObject = line.first { $0 != 0x20 && $0 != 0x09 } == UInt8(ascii: "{")
        if let reason = state.pushJSON(line, end: "the end of the line") { return reason }
        return opensObject ? nil : "not a JSON object"
    }
}
