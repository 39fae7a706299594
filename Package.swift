// swift-tools-version:6.0
import PackageDescription

// Release builds leave out Swift's run-time exclusivity checks: on the hot path (the pipeline,
// the host, the stages, the decoder, the Lua bridge) the check on every access of a class's
// state costs more than the work it guards. Debug builds, and so the tests, keep them.
let releaseWithoutExclusivityChecks: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "toastscript",
    products: [
        .library(name: "ToastPipeline", targets: ["ToastPipeline"]),
        .library(name: "ToastCLI", targets: ["ToastCLI"]),
        .library(name: "ToastPipelineTesting", targets: ["ToastPipelineTesting"]),
        .executable(name: "toastscript", targets: ["toastscript"]),
    ],
    targets: [
        // Debian's liblua5.4.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // The Lua bridge's C: the allocator with its cap, the budget, the trampoline, the rules'
        // call and the view of their toast; inline shims for the macros Swift cannot import.
        // DWARF 4, as Swift's own code has it: Debian's valgrind reads no DWARF 5.
        .target(name: "CLuaBridge", dependencies: ["CLua"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // Debian's libdbus-1, for the desktop sink (freedesktop notifications), with C helpers.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // Debian's hiredis, for Redis Streams. Found in /usr/include without pkg-config, whose
        // flags for it (-D_FILE_OFFSET_BITS=64) SwiftPM refuses with a warning.
        .systemLibrary(
            name: "CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // Debian's SQLite, the format of a --state file.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Debian's libsystemd, for reading the systemd journal (--journal).
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // The state file's C: SQLite's variadic configuration calls, which Swift cannot make.
        .target(name: "CSQLiteBridge", dependencies: ["CSQLite"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // The model, the engine, the host and the built-in stages: no C, no I/O.
        .target(name: "ToastCore", swiftSettings: releaseWithoutExclusivityChecks),
        // Reading events and writing records: decoders, encoders, sinks, the desktop and Redis.
        .target(name: "ToastIO", dependencies: ["ToastCore", "CDBus", "CHiredis", "CSystemd"], swiftSettings: releaseWithoutExclusivityChecks),
        // The Lua bridge: scripts as rules, hooks, parse and settings.
        .target(name: "ToastLua", dependencies: ["ToastCore", "ToastIO", "CLua", "CLuaBridge"], swiftSettings: releaseWithoutExclusivityChecks),
        // The library users import: the plugin API and what embedding needs, re-exported.
        .target(name: "ToastPipeline", dependencies: ["ToastCore", "ToastIO", "ToastLua"]),
        // The command line: options, the run loop, --state, Redis consumer groups, diff. What
        // toastscript and a plugin's own binary (Toastscript.main) run.
        .target(name: "ToastCLI", dependencies: ["ToastPipeline", "ToastCore", "ToastIO", "ToastLua", "CSQLite", "CSQLiteBridge"]),
        // Test doubles for stage authors: an in-memory sink and a stage harness.
        .target(name: "ToastPipelineTesting", dependencies: ["ToastPipeline", "ToastCore", "ToastIO", "ToastLua"]),
        .executableTarget(name: "toastscript", dependencies: ["ToastCLI"]),
        .testTarget(
            name: "ToastPipelineTests",
            dependencies: ["ToastCore", "ToastIO", "ToastLua", "ToastPipeline", "ToastCLI", "ToastPipelineTesting"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["toastscript"],
            resources: []
        ),
    ]
)
