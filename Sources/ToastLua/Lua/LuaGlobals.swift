import ToastCore
import ToastIO

/// The script API's globals (docs/lua.md): `config`, `rule`, `role`, `on`, `emit`, `after`,
/// `now`, `parse`, `parse_time`, `level_of`, `log`, and the `json` library, each a Swift
/// function Lua calls through the trampoline (a failure is raised by the C side, never from a
/// Swift frame).
extension LuaRuntime {
    func installGlobals() {
        state.setGlobalFunction("config", { L in LuaRuntime.from(L)?.config().raw ?? 0 })
        state.setGlobalFunction("rule", { L in LuaRuntime.from(L)?.rule().raw ?? 0 })
        state.setGlobalFunction("role", { L in LuaRuntime.from(L)?.role().raw ?? 0 })
        state.setGlobalFunction("on", { L in LuaRuntime.from(L)?.on().raw ?? 0 })
        state.setGlobalFunction("emit", { L in LuaRuntime.from(L)?.emit().raw ?? 0 })
        state.setGlobalFunction("after", { L in LuaRuntime.from(L)?.after().raw ?? 0 })
        state.setGlobalFunction("now", { L in LuaRuntime.from(L)?.now().raw ?? 0 })
        state.setGlobalFunction("parse", { L in LuaRuntime.from(L)?.setParse().raw ?? 0 })
        state.setGlobalFunction("parse_time", { L in LuaRuntime.from(L)?.parseTime().raw ?? 0 })
        state.setGlobalFunction("level_of", { L in LuaRuntime.from(L)?.levelOf().raw ?? 0 })
        state.setGlobalFunction("__toastscript_log", { L in LuaRuntime.from(L)?.logLine().raw ?? 0 })
        installJSONLibrary()
        // `store`: what the scripts keep across a reload (`LuaStore.swift`).
        state.pushTable(arrayCount: 0, fieldCount: 0)
        state.setGlobal("store")
        state.pushTable(fieldCount: options.variables.count)
        for (name, value) in options.variables {
            state.push(value)
            state.setField(name)
        }
        state.setGlobal("__toastscript_vars")
        // log and print convert in Lua, so a failing __tostring stays a Lua error; a table is
        // written as JSON when it is JSON. `vars` reads the --var values and cannot be written,
        // nor can the global be replaced.
        let source = """
            local write, tostring, select, concat, type = __toastscript_log, tostring, select, table.concat, type
            local encode, pcall, error, rawset, setmetatable = json.encode, pcall, error, rawset, setmetatable
            local values = __toastscript_vars
            __toastscript_log, __toastscript_vars = nil, nil
            function log(...)
              local parts = {}
              for i = 1, select("#", ...) do
                local value = (select(i, ...))
                local ok, text = false, nil
                if type(value) == "table" then ok, text = pcall(encode, value) end
                parts[i] = ok and text or tostring(value)
              end
              write(concat(parts, "\\t"))
            end
            print = log
            local readonly = "vars cannot be written: its values come from --var NAME=VALUE"
            local vars = setmetatable({}, {
              __index = values,
              __newindex = function() error(readonly, 2) end,
              __pairs = function() return next, values, nil end,
              __metatable = "vars",
            })
            setmetatable(_G, {
              __index = function(_, name) if name == "vars" then return vars end end,
              __newindex = function(t, name, value)
                if name == "vars" then error(readonly, 2) end
                rawset(t, name, value)
              end,
            })
            """
        state.runBuiltInChunk(source, name: "toastscript")
    }

    /// Leaves `message` for the trampoline to raise with the caller's `FILE:LINE:`.
    func raise(_ message: String) -> LuaResults {
        state.push(message)
        return .raiseWithPlace
    }

    private func scriptFunction(at index: LuaIndex) -> ScriptFunction {
        let place = state.definitionPlace(ofFunctionAt: index)
        state.pushCopy(of: index)
        return ScriptFunction(number: state.makeReference().raw, place: place)
    }

    private func config() -> LuaResults {
        guard state.type(at: 1) == .table else {
            return raise("config expects a table, not \(state.typeName(at: 1))")
        }
        let before = settingsBuilder.settings
        let status = applySettings(from: 1, for: "config", path: "config") { try settingsBuilder.apply($0) }
        warnOfNearNames(before: before)
        return status
    }

    /// Warns once of each name in the settings made so far that is likely a typo (`NearNames`):
    /// a `when` or `spare` field, a stage defined by a name close to another stage's, a role
    /// close to another role.
    private func warnOfNearNames(before: PipelineSettings) {
        let settings = settingsBuilder.settings
        var found = NearNames.warnings(in: settings)
        let stagesBefore = BuiltInStage.defaultOrder + settingsBuilder.plugins.pluginNames + before.instances.keys.sorted()
        for name in settings.instances.keys.sorted() where before.instances[name] == nil {
            if let warning = NearNames.definitionWarning("stage", named: name, existing: stagesBefore) { found.append(warning) }
        }
        for name in settings.roles.names where !before.roles.contains(name) {
            if let warning = NearNames.definitionWarning("role", named: name, existing: before.roles.names) { found.append(warning) }
        }
        for warning in found where !nearNameWarnings.contains(warning) {
            nearNameWarnings.append(warning)
            warn(warning)
        }
    }

    /// Reads the table at `index` (named `path` in messages) and hands it to `apply`; a bad
    /// value or setting is raised at the caller's place, prefixed with the global's name.
    private func applySettings(from index: LuaIndex, for global: String, path: String,
                               _ apply: (ConfigTable) throws -> Void) -> LuaResults {
        do {
            let value = try state.configValue(at: index, path: path) { scriptFunction(at: $0) }
            guard case .table(let table) = value else { return 0 }
            try apply(table)
            state.forgetRuleProxy()
        } catch let error as ConfigError {
            return raise("\(global): \(error.message)")
        } catch {
            return raise("\(global): \(error)")
        }
        return 0
    }

    private func rule() -> LuaResults {
        let name: String
        let functionIndex: LuaIndex
        if state.type(at: 1) == .string, state.type(at: 2) == .function {
            name = state.string(at: 1) ?? ""
            functionIndex = 2
        } else if state.type(at: 1) == .function {
            name = state.definitionPlace(ofFunctionAt: 1)
            functionIndex = 1
        } else if state.type(at: 1) == .string, state.type(at: 2) == .table {
            return declareRule(named: state.string(at: 1) ?? "")
        } else {
            return raise("rule expects (function), (name, function) or (name, { when = MATCH, drop = \"why\" | set = { FIELD = VALUE } })")
        }
        let place = state.definitionPlace(ofFunctionAt: functionIndex)
        if options.unsafe || !state.leavesFirstArgument(functionAt: functionIndex) { state.shortcuts.rulesMayKeepTheirTable = true }
        state.pushCopy(of: functionIndex)
        registeredRules.append(.function(name: name, reference: state.makeReference(), place: place))
        return 0
    }

    /// `rule(name, { when = ..., drop = ... })` or `set = {...}`: a rule read now, whole, that
    /// runs without Lua (`DeclaredRule`). A `when` field name two edits from a known one is
    /// warned about, as a stage's is.
    private func declareRule(named name: String) -> LuaResults {
        do {
            let value = try state.configValue(at: 2, path: "rule \(quoted(name))", function: { scriptFunction(at: $0) })
            guard case .table(let table) = value else { return 0 }
            let rule = try DeclaredRule(name: name, table: table, roles: settings.roles, screenField: settings.screens?.by)
            for warning in NearNames.warnings(rule: name, when: rule.when, setting: rule.setFieldNames,
                                                   screenField: settings.screens?.by) where !nearNameWarnings.contains(warning) {
                nearNameWarnings.append(warning)
                warn(warning)
            }
            registeredRules.append(.declared(rule))
        } catch let error as ConfigError {
            return raise(error.message)
        } catch {
            return raise("rule: \(error)")
        }
        return 0
    }

    private func role() -> LuaResults {
        guard let name = state.string(at: 1), !name.isEmpty, state.type(at: 2) == .table else {
            return raise("role expects (name, table)")
        }
        let before = settingsBuilder.settings
        let status = applySettings(from: 2, for: "role", path: "role \(quoted(name))") { try settingsBuilder.applyRole(name, $0) }
        warnOfNearNames(before: before)
        return status
    }

    private func on() -> LuaResults {
        let events = Self.recordHookEvents + Self.clockHookEvents
        guard let event = state.string(at: 1), events.contains(event), state.type(at: 2) == .function else {
            let named = state.string(at: 1).flatMap { NameSuggestion.question(for: $0, among: events) }.map { " (\($0))" } ?? ""
            return raise("on expects (" + events.map { "\"\($0)\"" }.joined(separator: " | ") + ", function)" + named)
        }
        let place = state.definitionPlace(ofFunctionAt: 2)
        state.pushCopy(of: 2)
        hooks[event, default: []].append((state.makeReference(), place))
        return 0
    }

    private func emit() -> LuaResults {
        if isFinished { return raise("emit cannot be called in on(\"finish\"): the run is over") }
        guard state.type(at: 1) == .table else {
            return raise("emit expects a table, not \(state.typeName(at: 1))")
        }
        if state.proxy(at: 1) != nil {
            // A toast's own table (re-emitting it): every field it shows.
            state.pushMaterialized(proxyAt: 1)
            state.copy(-1, to: 1)
            state.pop(1)
        }
        var original = showDefaults
        original.atMicros = currentCall?.context.nowMicros ?? 0
        original.inputLine = currentCall?.inputLine ?? 0
        state.push("id")
        let hasID = state.rawGet(tableAt: 1) != .nilValue
        state.pop(1)
        var toast: Toast
        do {
            toast = try state.toast(fromTableAt: 1, original: original, defaults: showDefaults, roles: settings.roles)
        } catch let error as LuaBridgeError {
            return raise("emit: \(error.message)")
        } catch {
            return raise("emit: \(error)")
        }
        if !hasID { toast.id = generatedIDs.next() }
        if let call = currentCall { call.context.emitAtFirstStage(toast) } else { emittedWhileLoading.append(toast) }
        state.push(toast.id)
        return 1
    }

    private func setParse() -> LuaResults {
        guard state.type(at: 1) == .function else {
            return raise("parse expects a function, not \(state.typeName(at: 1))")
        }
        if let first = parseFunction {
            return raise("parse: a run has one parse function, and \(first.place) set it already")
        }
        let place = state.definitionPlace(ofFunctionAt: 1)
        state.pushCopy(of: 1)
        parseFunction = (state.makeReference(), place)
        return 0
    }

    /// `parse_time(text [, format])`: seconds since the epoch, or nil and why.
    private func parseTime() -> LuaResults {
        guard let text = state.string(at: 1), state.type(at: 1) == .string else {
            return raise("parse_time expects a string, not \(state.typeName(at: 1))")
        }
        let format: String?
        switch state.type(at: 2) {
        case .noValue, .nilValue: format = nil
        case .string: format = state.string(at: 2)
        default: return raise("parse_time's format must be a string, not \(state.typeName(at: 2))")
        }
        switch TimestampParser(zone: options.timeZone, wallNow: LogClock.wallNow(fixedAt: options.fixedNow)).seconds(from: text, format: format) {
        case .success(let seconds):
            state.push(seconds)
            return 1
        case .failure(let error):
            state.pushNil()
            state.push("parse_time: " + error.message)
            return 2
        }
    }

    /// `level_of(text)`: the level a line names as `--input text` reads it (`"error"`, …), or
    /// nil; `--levels off` does not change it.
    private func levelOf() -> LuaResults {
        guard state.type(at: 1) == .string, let bytes = state.bytes(at: 1) else {
            return raise("level_of expects a string, not \(state.typeName(at: 1))")
        }
        if let found = TextLevel.read(bytes) { state.push(found.level.rawValue) } else { state.pushNil() }
        return 1
    }

    private func now() -> LuaResults {
        state.push(StreamTime.seconds(currentCall?.context.nowMicros ?? clockAtLoad))
        return 1
    }

    private func logLine() -> LuaResults {
        writeLog(state.string(at: 1) ?? "")
        return 0
    }
}
