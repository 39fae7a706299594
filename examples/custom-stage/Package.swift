// swift-tools-version:6.0
// A custom toastscript with stages of its own, built on the ToastPipeline library.
import PackageDescription

let package = Package(
    name: "CustomStage",
    // The path's last component is the package's name below: "toastscript" (here a link to
    // the repository root; in your package, the folder you cloned toastscript into).
    dependencies: [.package(path: "toastscript")],
    targets: [
        .target(name: "CustomStages", dependencies: [.product(name: "ToastPipeline", package: "toastscript")]),
        .executableTarget(name: "my-toastscript", dependencies: [
            "CustomStages",
            .product(name: "ToastPipeline", package: "toastscript"),
            .product(name: "ToastCLI", package: "toastscript"),
        ]),
        .testTarget(name: "CustomStagesTests", dependencies: [
            "CustomStages",
            .product(name: "ToastPipeline", package: "toastscript"),
            .product(name: "ToastCLI", package: "toastscript"),
            .product(name: "ToastPipelineTesting", package: "toastscript"),
        ]),
    ]
)
