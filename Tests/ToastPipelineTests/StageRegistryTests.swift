import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// Plugin stages: registration, placement by `config{ stages = ... }`, their own settings,
/// and the invariant wherever they stand.
@Suite struct StageRegistryTests {
    /// A plugin that uses everything a stage may: drops, changes, emits and timers.
    final class Busy: ToastStage {
        var seen = 0
        let every: Int

        init(every: Int) { self.every = every }

        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            seen += 1
            if seen % every == 0 { return .drop(Drop(stage: "busy", reason: DropReason("busy"), note: "every \(every)")) }
            if seen % 7 == 0 { context.setTimer(at: context.now + .seconds(2), token: seen) }
            toast.subtitle = "busy"
            return .pass
        }

        func timerFired(token: Int, context: StageContext) {
            context.emit(context.makeToast(message: "timer \(token)"))
        }
    }

    static func registry() throws -> StageRegistry {
        var registry = StageRegistry.builtIn
        try registry.register("busy") { input in
            try input.table.rejectUnknown(allowed: ["every"])
            return Busy(every: try input.table.integer("every", minimum: 1) ?? 5)
        }
        return registry
    }

    @Test func namesAreRegisteredOnce() throws {
        var registry = try Self.registry()
        #expect(throws: ConfigError("a stage named \"busy\" is already registered")) {
            try registry.register("busy") { _ in Busy(every: 2) }
        }
        #expect(throws: ConfigError("stage name \"host\" is taken by the host")) {
            try registry.register("host") { _ in Busy(every: 2) }
        }
        #expect(throws: ConfigError("a stage named \"dedup\" is already registered")) {
            try registry.register("dedup") { _ in Busy(every: 2) }
        }
        #expect(registry.pluginNames == ["busy"])
        #expect(!StageRegistry.builtIn.contains("busy"))
    }

    @Test func aPluginIsPlacedAndConfiguredFromLua() throws {
        let registry = try Self.registry()
        let result = runCLI(["--format", "json"], input: lines(#"{"message":"A"}"#, #"{"message":"B","at":5}"#),
                            scripts: ["config{ busy = { every = 2 }, stages = { 'busy', 'style', 'announce' } }"], registry: registry)
        #expect(result.lines == [
            present("0", "t1", "A", subtitle: "busy"),
            dismiss("3", "t1", "timeout", shown: "3"),
            drop("5", "t2", "B", stage: "busy", "busy", note: "every 2"),
        ])
    }

    @Test func pluginSettingsAreCheckedAtTheirConfigCall() throws {
        let registry = try Self.registry()
        let cases = [
            ("config{ busy = { every = 0 } }", "toastscript: rules.lua:1: config: busy.every must be a whole number ≥ 1, not 0"),
            ("config{ busy = { evry = 3 } }", "toastscript: rules.lua:1: config: unknown setting busy.evry; did you mean \"every\"?"),
            ("config{ busy = { often = 3 } }", "toastscript: rules.lua:1: config: unknown setting busy.often (known: every)"),
            ("config{ busy = true }", "toastscript: rules.lua:1: config: busy must be a table of settings, not a boolean"),
            ("config{ stages = { 'bussy' } }", "toastscript: rules.lua:1: config: stages: unknown stage \"bussy\"; did you mean \"busy\"?"),
            ("config{ stages = { 'idle' } }", "toastscript: rules.lua:1: config: stages: unknown stage \"idle\" (known: rules, debounce, dedup, digest, rate_limit, priority, style, announce, busy, host)"),
        ]
        for (script, message) in cases {
            let result = runCLI([], input: "", scripts: [script], registry: registry)
            #expect(result.status == 1)
            #expect(result.stderr == [loadError(String(message.dropFirst("toastscript: ".count)), source: script)])
        }
        // Without the registration the name is unknown.
        #expect(runCLI([], input: "", scripts: ["config{ busy = {} }"]).stderr
                == [loadError("rules.lua:1: config: unknown setting busy (known: dedup, rate_limit, debounce, digest, queue, screens, roles, stages; a stage of your own is a table with stage = \"KIND\")",
                              source: "config{ busy = {} }")])
    }

    @Test(arguments: 0...8)
    func aPluginAnywhereKeepsTheInvariant(position: Int) throws {
        var order = BuiltInStage.defaultOrder
        order.insert("busy", at: position)
        var settings = PipelineSettings()
        settings.stages = order
        // The holding stages too: every toast they hold must end once as well.
        settings.debounce = DebounceSettings()
        settings.digest = DigestSettings()
        settings.rateLimit?.summary = true
        settings.rateLimit?.limit = 3
        let registry = try Self.registry()
        let log = RecordLog()
        let stages = try registry.makeStages(settings: settings, rules: RulesStage())
        #expect(stages.map(\.name) == order)
        let pipeline = Pipeline(settings: settings, stages: stages, output: log)
        var decoder = EventDecoder()
        var toastsIn: [String: Int] = [:]
        let input = InvariantTests.randomStream(count: 5_000, seed: UInt64(position) + 100)
        for (index, line) in input.split(separator: "\n").enumerated() {
            var bytes = Array(line.utf8)
            let result = bytes.withUnsafeMutableBufferPointer { decoder.decodeJSON(UnsafeBufferPointer($0), number: index + 1) }
            guard case .success(let event) = result else { continue }
            if case .show(let toast) = event.kind { toastsIn[toast.id, default: 0] += 1 }
            pipeline.handle(event)
        }
        pipeline.finish(drain: true)
        for number in stride(from: 1, through: pipeline.generatedIDs.count, by: 1) { toastsIn["e\(number)", default: 0] += 1 }
        #expect(pipeline.generatedIDs.count > 0)
        #expect(RecordInvariant.violations(in: log.records, toastsIn: toastsIn) == [])
    }
}
