import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastLua
@testable import ToastPipeline
@testable import ToastCLI
import ToastPipelineTesting

/// A stage declared once (`PluginStage`), its settings read by their declaration
/// (`PluginSettings`), and the harness a plugin's tests use.
@Suite struct PluginStageTests {
    /// At most `limit` toasts per source within `window`; the rest are dropped.
    final class PerSourceCap: PluginStage {
        static let name = "per_source_cap"

        struct Settings: PluginSettings, Equatable {
            var limit = 3
            var window: Duration = .seconds(10)
            var exempt = "error"

            static let fields: [SettingField<Settings>] = [
                .integer("limit", \.limit, atLeast: 1),
                .duration("window", \.window, above: .zero),
                .role("exempt", \.exempt),
            ]
        }

        let settings: Settings
        private var recent: [String: [Duration]] = [:]

        init(settings: Settings) { self.settings = settings }

        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            guard toast.role != settings.exempt, let source = toast.source else { return .pass }
            var times = (recent[source] ?? []).filter { context.now - $0 < settings.window }
            guard times.count < settings.limit else {
                return .drop(Drop(stage: context.stageName, reason: "capped"))
            }
            times.append(context.now)
            recent[source] = times
            return .pass
        }
    }

    /// A stage without settings.
    final class Shout: PluginStage {
        init(settings: NoSettings) {}
        static let name = "shout"
        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            toast.message = toast.message.uppercased()
            return .pass
        }
    }

    static var registry: StageRegistry {
        var registry = StageRegistry.builtIn
        registry.register(PerSourceCap.self)
        registry.register(Shout.self)
        return registry
    }

    @Test func aDeclaredStageIsPlacedAndConfiguredFromAScript() throws {
        let harness = try StageHarness(registry: Self.registry, script: """
            config{ per_source_cap = { limit = 2, window = 1.5, exempt = "error" }, stages = { "per_source_cap", "shout" } }
            """)
        for (index, role) in ["info", "info", "error", "info"].enumerated() {
            harness.show(Toast(id: "t\(index + 1)", message: "Sync failed \(index + 1)", role: role, source: "sync"),
                         at: .milliseconds(100 * index))
        }
        harness.show(Toast(id: "t5", message: "Later", source: "sync"), at: .seconds(2))
        #expect(harness.finish() == [])
        let shown = "role=info placement=top policy=enqueue priority=0 duration=3"
        #expect(harness.lines == [
            "t=0 present id=t1 message=\"SYNC FAILED 1\" \(shown) waited=0 source=\"sync\"",
            "t=0.3 drop id=t4 message=\"Sync failed 4\" role=info stage=per_source_cap reason=capped",
            "t=3 dismiss id=t1 reason=timeout shown=3",
            "t=3 present id=t2 message=\"SYNC FAILED 2\" \(shown) waited=2.9 source=\"sync\"",
            "t=6 dismiss id=t2 reason=timeout shown=3",
            "t=6 present id=t3 message=\"SYNC FAILED 3\" role=error placement=top policy=enqueue priority=0 duration=3 waited=5.8 source=\"sync\"",
            "t=9 dismiss id=t3 reason=timeout shown=3",
            "t=9 present id=t5 message=\"LATER\" \(shown) waited=7 source=\"sync\"",
            "t=12 dismiss id=t5 reason=timeout shown=3",
        ])
        #expect(harness.records.filter { $0.kind == .drop }.map(\.id) == ["t4"])
        #expect(harness.records.first { $0.id == "t3" }?.message == "SYNC FAILED 3")
        #expect(harness.records.first?.members.map(\.name) == [
            "event", "t", "id", "message", "role", "placement", "policy", "priority", "duration",
            "symbol", "glyph", "color", "announcement", "waited", "source",
        ])
        // Only the two plugin stages are placed: nothing announced or styled.
        #expect(harness.records.first?.members.first { $0.name == "message" }?.value == .string("SYNC FAILED 1"))
        #expect(harness.records.first?.members.first { $0.name == "announcement" }?.value == .string(""))
        #expect(harness.statistics.stages.first?.dropped == ["capped": 1])
    }

    /// Two stages of one plugin kind, each with its own settings, state and `when`: the
    /// pipeline applies `when` (the plugin declares nothing for it), and records name each stage.
    @Test func twoStagesOfAPluginKindKeepTheirOwnSettingsAndScope() throws {
        let harness = try StageHarness(registry: Self.registry, script: """
            config{
              per_source_cap = { limit = 1, when = { source = "sync" } },
              loose_cap = { stage = "per_source_cap", limit = 2, when = { source = { ["not"] = "sync" } } },
              stages = { "per_source_cap", "loose_cap" },
              queue = { policy = "stack", max_visible = 10, limit = 10 },
            }
            """)
        for (index, source) in ["sync", "sync", "net", "net", "net"].enumerated() {
            harness.show(Toast(id: "t\(index + 1)", message: "m\(index + 1)", source: source), at: .milliseconds(100 * index))
        }
        #expect(harness.finish() == [])
        #expect(harness.lines.filter { $0.contains(" drop ") } == [
            "t=0.1 drop id=t2 message=\"m2\" role=info stage=per_source_cap reason=capped",
            "t=0.4 drop id=t5 message=\"m5\" role=info stage=loose_cap reason=capped",
        ])
        #expect(harness.statistics.stages.map(\.skipped) == [3, 1, 0])   // t2 was dropped before loose_cap
    }

    /// Drops every toast: a cap of zero, which declares that it spares errors, or not.
    final class DropAll: PluginStage {
        static let name = "drop_all"
        init(settings: NoSettings) {}
        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            .drop(Drop(stage: context.stageName, reason: "capped"))
        }
    }

    final class DropAllButErrors: PluginStage {
        static let name = "drop_all_but_errors"
        init(settings: NoSettings) {}
        var defaultSpare: DefaultSpare { .errors }
        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            .drop(Drop(stage: context.stageName, reason: "capped"))
        }
    }

    /// A plugin kind's declared default `spare` is handled by the pipeline as rate_limit's is: a
    /// `when` narrows what it takes and never lets an error in, a `spare` given is added to the
    /// default, and `spare = false` removes it; a kind that declares none spares nothing.
    @Test(arguments: [
        ("drop_all", "", ["error", "info", "warning"]),
        ("drop_all", "spare = { role = 'warning' }", ["error", "info"]),
        ("drop_all_but_errors", "", ["info", "warning"]),
        ("drop_all_but_errors", "when = { source = 'app' }", ["info", "warning"]),
        ("drop_all_but_errors", "spare = { role = 'warning' }", ["info"]),
        ("drop_all_but_errors", "spare = false", ["error", "info", "warning"]),
    ])
    func aPluginKindSparesWhatItDeclares(kind: String, settings: String, dropped: [String]) throws {
        var registry = StageRegistry.builtIn
        registry.register(DropAll.self)
        registry.register(DropAllButErrors.self)
        let harness = try StageHarness(registry: registry, script: """
            config{ \(kind) = { \(settings) }, stages = { "\(kind)", "priority" },
                    queue = { policy = "stack", max_visible = 10 } }
            """)
        for (index, role) in ["error", "info", "warning"].enumerated() {
            harness.show(Toast(id: role, message: "m\(index)", role: role, source: "app"), at: .milliseconds(100 * index))
        }
        #expect(harness.finish() == [])
        #expect(harness.records.filter { $0.kind == .drop }.map(\.id).sorted() == dropped)
    }

    @Test func settingsFromSwiftNeedNoScript() {
        var settings = PerSourceCap.Settings()
        settings.limit = 1
        let harness = StageHarness(PerSourceCap.self, settings: settings)
        harness.show(Toast(id: "a", message: "One", source: "net"), at: .zero)
        harness.show(Toast(id: "b", message: "Two", source: "net"), at: .seconds(1))
        harness.show(Toast(id: "c", message: "Three", source: "net"), at: .seconds(11))
        #expect(harness.finish() == [])
        #expect(harness.lines == [
            "t=0 present id=a message=\"One\" role=info placement=top policy=enqueue priority=0 duration=3 waited=0 source=\"net\"",
            "t=1 drop id=b message=\"Two\" role=info stage=per_source_cap reason=capped",
            "t=3 dismiss id=a reason=timeout shown=3",
            "t=11 present id=c message=\"Three\" role=info placement=top policy=enqueue priority=0 duration=3 waited=0 source=\"net\"",
            "t=14 dismiss id=c reason=timeout shown=3",
        ])
    }

    @Test(arguments: [
        ("config{ per_source_cap = { limt = 2 } }",
         "script:1: config: unknown setting per_source_cap.limt; did you mean \"limit\"?"),
        ("config{ per_source_cap = { colour = 2 } }",
         "script:1: config: unknown setting per_source_cap.colour (known: limit, window, exempt, when, spare)"),
        ("config{ per_source_cap = { spar = { source = 'x' } } }",
         "script:1: config: unknown setting per_source_cap.spar; did you mean \"spare\"?"),
        ("config{ per_source_cap = { limit = 2.5 } }",
         "script:1: config: per_source_cap.limit must be a whole number ≥ 1, not 2.5"),
        ("config{ per_source_cap = { limit = 0 } }",
         "script:1: config: per_source_cap.limit must be a whole number ≥ 1, not 0"),
        ("config{ per_source_cap = { window = 'long' } }",
         "script:1: config: per_source_cap.window must be a number of seconds > 0, not \"long\""),
        ("config{ per_source_cap = { window = 0 } }",
         "script:1: config: per_source_cap.window must be a number of seconds > 0, not 0"),
        ("config{ per_source_cap = { exempt = 'panic' } }",
         "script:1: config: per_source_cap.exempt: unknown role \"panic\" (known: error, info, success, warning; "
            + "a role of your own is defined before this config call)"),
        ("config{ per_source_cap = { 1, 2 } }",
         "script:1: config: per_source_cap must be a table of named settings, not a list"),
        ("config{ shout = { loud = true } }",
         "script:1: config: shout takes no settings (got \"loud\")"),
        ("config{ shout = { whn = { role = 'error' } } }",
         "script:1: config: shout takes no settings (got \"whn\"); did you mean \"when\"?"),
    ])
    func aMistakeInTheSettingsNamesTheSettingAndWhatItMustBe(script: String, message: String) {
        let error = #expect(throws: ScriptLoadError.self) {
            _ = try StageHarness(registry: Self.registry, script: script)
        }
        #expect(error?.message == message)
        #expect(error?.sourceLine == "    1 | " + script)
    }

    /// Every kind of field, read from a table as `config{}` hands it over.
    struct EveryKind: PluginSettings, Equatable {
        var count = 1
        var ratio = 0.5
        var wait: Duration = .seconds(1)
        var mode = "a"
        var role = "info"
        var tags: [String] = []
        var on = false

        static let fields: [SettingField<EveryKind>] = [
            .integer("count", \.count, atLeast: 0, atMost: 9),
            .number("ratio", \.ratio, atLeast: 0, atMost: 1),
            .duration("wait", \.wait, atLeast: .milliseconds(100)),
            .string("mode", \.mode, oneOf: ["a", "b"]),
            .role("role", \.role),
            .strings("tags", \.tags),
            .flag("on", \.on),
        ]
    }

    @Test func everyKindOfFieldReadsItsValueAndNamesItsMistake() throws {
        let table = ConfigTable(fields: [
            "count": .integer(9), "ratio": .number(0.25), "wait": .number(0.1), "mode": .string("b"),
            "role": .string("error"), "tags": .table(ConfigTable(list: [.string("x"), .string("y")])), "on": .bool(true),
        ])
        var expected = EveryKind()
        (expected.count, expected.ratio, expected.wait, expected.mode) = (9, 0.25, .milliseconds(100), "b")
        (expected.role, expected.tags, expected.on) = ("error", ["x", "y"], true)
        #expect(try EveryKind.read(from: table, path: "k", roles: .builtIn) == expected)
        #expect(try EveryKind.read(from: ConfigTable(), path: "k", roles: .builtIn) == EveryKind())
        let mistakes: [(String, ConfigValue, String)] = [
            ("count", .integer(10), "k.count must be a whole number ≥ 0 and ≤ 9, not 10"),
            ("ratio", .number(1.5), "k.ratio must be a number ≥ 0 and ≤ 1, not 1.5"),
            ("ratio", .number(.nan), "k.ratio must be a number ≥ 0 and ≤ 1, not nan"),
            ("wait", .number(0.05), "k.wait must be a number of seconds ≥ 0.1, not 0.05"),
            ("mode", .string("c"), "k.mode must be one of \"a\", \"b\", not \"c\""),
            ("tags", .table(ConfigTable(list: [.integer(1)])), "k.tags must be a list of strings, not a table"),
            ("on", .string("yes"), "k.on must be true or false, not \"yes\""),
        ]
        for (name, value, message) in mistakes {
            #expect(throws: ConfigError(message)) {
                try EveryKind.read(from: ConfigTable(fields: [name: value]), path: "k", roles: .builtIn)
            }
        }
    }

    /// A name that is taken is a mistake in the build: the command says so when it starts,
    /// before it reads anything.
    @Test func aTakenNameStopsTheCommandAtOnce() {
        final class Impostor: PluginStage {
            static let name = "dedup"
            init(settings: NoSettings) {}
            func process(_ toast: inout Toast, context: StageContext) -> StageVerdict { .pass }
        }
        var registry = Self.registry
        registry.register(Impostor.self)
        registry.register(Shout.self)
        #expect(registry.problems == [
            "cannot register Impostor: a stage named \"dedup\" is already registered",
            "cannot register Shout: a stage named \"shout\" is already registered",
        ])
        let result = runCLI(["--version"], input: "", registry: registry, programName: "my-toastscript")
        #expect(result.status == ExitStatus.failure)
        #expect(result.stderr == ["my-toastscript: cannot register Impostor: a stage named \"dedup\" is already registered"])
        #expect(result.stdout == "")
    }

    /// Plugin API 3.1: a hold is held within the call that made it (with the toast given to
    /// `hold(_:)`), a held toast can be changed before it goes on (in that call and later),
    /// and a timer's value comes back as the type it was set with.
    final class Inspector: ToastStage {
        var seenInside: [String] = []

        func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
            let handle = context.hold(toast)
            seenInside.append("\(context.isHeld(handle)) \(context.heldToast(handle)?.message ?? "nil")")
            context.changeHeld(handle) { $0.subtitle = "counted" }
            context.setTimer(at: context.now + .seconds(1), value: handle)
            return .hold(handle)
        }

        func timerFired(_ timer: StageTimer, context: StageContext) {
            guard let handle = timer.value(as: HoldHandle.self), timer.value(as: String.self) == nil else { return }
            context.changeHeld(handle) { $0.message += "!" }
            context.release(handle)
        }
    }

    @Test func aHoldIsHeldInItsCallAndAHeldToastCanChange() {
        let inspector = Inspector()
        let harness = StageHarness(stages: [("inspect", inspector)])
        harness.show(Toast(id: "a", message: "A"), at: .zero)
        #expect(harness.finish() == [])
        #expect(inspector.seenInside == ["true A"])
        #expect(harness.lines == [
            "t=1 present id=a message=\"A!\" subtitle=\"counted\" role=info placement=top policy=enqueue priority=0 duration=3 waited=0",
            "t=4 dismiss id=a reason=timeout shown=3",
        ])
    }

    /// The clock helpers read a stream time as a clock shows it (UTC in the harness): 23:30,
    /// 7.5 hours to 07:00, a minute to 23:31; and a span as settings write seconds.
    @Test func clockTimesAndDurationsForStages() {
        final class Clock: ToastStage {
            var said: [String] = []
            func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
                let (hour, minute) = context.clockTime(of: context.now)
                let next = context.nextTime(hour: 7, after: context.now)
                said.append("\(hour):\(minute) \((next - context.now).secondsText) \(context.nextTime(hour: 23, minute: 31, after: context.now) - context.now)")
                return .pass
            }
        }
        let clock = Clock()
        let run = StageHarness(stages: [("clock", clock)])
        run.show(Toast(id: "a", message: "A"), at: .seconds(1_764_372_600))   // 2025-11-28 23:30 UTC
        #expect(run.finish() == [])
        #expect(clock.said == ["23:30 27000 60.0 seconds"])
        #expect(Duration.milliseconds(2_500).secondsText == "2.5")
    }
}
