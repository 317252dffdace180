// swift-tools-version: 6.0
//
// UVCombine: Combine's programming model on a libuv event loop.
//
// The root package depends on nothing beyond the toolchain, libuv (through the
// CLibUV system-library target) and, once HTTP lands, apple/swift-http-types.
// Benchmarks live in the nested package `Benchmarks/` so that their
// dependencies (package-benchmark, OpenCombine) never reach our users.
import PackageDescription

let package = Package(
    name: "UVCombine",
    products: [
        .library(name: "UVCombine", targets: ["UVCombine"]),
        .library(name: "UVCombineTesting", targets: ["UVCombineTesting"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV",
            path: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        .target(name: "UVCombineCore"),
        // The libuv loop as a Scheduler, the uv_timer timer publisher; the
        // only Swift module besides the C API that imports CLibUV.
        .target(name: "UVCombineLoop", dependencies: ["UVCombineCore", "CLibUV"]),
        .target(name: "UVCombine", dependencies: ["UVCombineCore", "UVCombineLoop"]),
        // Counts allocations per thread by interposing malloc; linked only
        // through the test support module.
        .target(name: "CUVCombineMallocCounter"),
        .target(name: "UVCombineTesting", dependencies: ["UVCombineCore", "CUVCombineMallocCounter"]),
        .testTarget(
            name: "UVCombineCoreTests",
            dependencies: ["UVCombineCore", "UVCombineTesting"]
        ),
        .testTarget(
            name: "UVCombineLoopTests",
            dependencies: ["UVCombineLoop", "UVCombineTesting"]
        ),
        .testTarget(
            name: "UVCombineTestingTests",
            dependencies: ["UVCombineCore", "UVCombineTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
