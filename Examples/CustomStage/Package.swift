// swift-tools-version:6.0
// A custom toastscript with two extra stages, built on the ToastPipeline library.
// `toastscript` is a link to the repository root, so the dependency is named as it is.
import PackageDescription

let package = Package(
    name: "CustomStage",
    dependencies: [.package(path: "toastscript")],
    targets: [
        .target(name: "CustomStages", dependencies: [.product(name: "ToastPipeline", package: "toastscript")]),
        .executableTarget(name: "my-toastscript", dependencies: ["CustomStages"]),
        .testTarget(name: "CustomStagesTests", dependencies: [
            "CustomStages",
            .product(name: "ToastPipelineTesting", package: "toastscript"),
        ]),
    ]
)
