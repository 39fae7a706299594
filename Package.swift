// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "toastscript",
    products: [
        .library(name: "ToastPipeline", targets: ["ToastPipeline"]),
        .library(name: "ToastPipelineTesting", targets: ["ToastPipelineTesting"]),
        .executable(name: "toastscript", targets: ["toastscript"]),
    ],
    targets: [
        // Debian's liblua5.4, with static inline shims for the macros Swift cannot import.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // Debian's libdbus-1, for the desktop sink (freedesktop notifications), with C helpers.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .target(name: "ToastPipeline", dependencies: ["CLua", "CDBus"]),
        // Test doubles for stage authors: an in-memory sink and a stage harness.
        .target(name: "ToastPipelineTesting", dependencies: ["ToastPipeline"]),
        .executableTarget(name: "toastscript", dependencies: ["ToastPipeline"]),
        .testTarget(
            name: "ToastPipelineTests",
            dependencies: ["ToastPipeline", "ToastPipelineTesting"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["toastscript"],
            resources: []
        ),
    ]
)
