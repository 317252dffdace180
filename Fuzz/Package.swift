// swift-tools-version: 6.0
//
// libFuzzer targets for UVCombine's HTTP and WebSocket protocol cores
// (UVCombineHTTPCore, UVCombineWebSocketCore): a nested package, so
// that the sanitizer flags never reach the main package's builds (the same
// reason the benchmarks are one). Run from the repository root with
// `make fuzz` / `make fuzz-smoke`; docs/reliability.md explains each target
// and the properties it checks.
//
// The HTTP protocol core is its own target and product, UVCombineHTTPCore
// (no I/O, no loop; see docs/http-protocol-core.md): the targets import
// it plainly, `import UVCombineHTTPCore`, and build nothing else of the
// library.
//
// Build (what the Makefile runs):
//
//     swift build -c release --package-path Fuzz --scratch-path .build-fuzz \
//         -Xswiftc -sanitize=fuzzer,address
//
// Why executables with a `main.swift` that calls `LLVMFuzzerRunDriver`,
// rather than the `-parse-as-library` recipe of the Swift docs: on Linux,
// SwiftPM compiles an executable target's entry point as `<Target>_main` and
// links with `--defsym main=<Target>_main` (so tests can link the module).
// With `-parse-as-library` no `<Target>_main` exists and the link fails
// ("undefined symbol '<Target>_main' referenced in expression"). A
// `main.swift` gives SwiftPM its entry point, `main` is then defined, so the
// linker never pulls libFuzzer's own `main` out of libclang_rt.fuzzer, and
// the entry point hands control to libFuzzer's driver. See FuzzDriver.swift.
import PackageDescription

let package = Package(
    name: "UVCombineFuzz",
    dependencies: [
        // Named explicitly: a path dependency is otherwise identified by its
        // folder name, which differs between checkouts and worktrees. (That
        // folder must not be called `fuzz`: SwiftPM would see two packages
        // with the identity of this one's folder.)
        .package(name: "UVCombine", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // `LLVMFuzzerRunDriver`, declared for Swift.
        .target(name: "CLibFuzzer"),
        // What the targets share: the driver, an input reader, the response
        // transcript, a small request parser, the byte rules as written in
        // RFC 9110/9112 (the reference the library is checked against).
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "UVCombineHTTPCore", package: "UVCombine"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "ResponseParserFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "UVCombineHTTPCore", package: "UVCombine"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "ChunkedDecoderFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "UVCombineHTTPCore", package: "UVCombine"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "RequestValidationFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "UVCombineHTTPCore", package: "UVCombine"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The HTTP/2 client connection (UVCombineHTTP2, nghttp2 under our
        // callbacks and limits) fed the bytes a server sends.
        .executableTarget(
            name: "HTTP2FrameFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "UVCombineHTTP2", package: "UVCombine"),
                .product(name: "UVCombineHTTPCore", package: "UVCombine"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The WebSocket protocol core (UVCombineWebSocketCore): the frame
        // parser and message reader, and the permessage-deflate inflate path.
        .executableTarget(
            name: "WebSocketFrameFuzzer",
            dependencies: ["FuzzSupport", .product(name: "UVCombineWebSocketCore", package: "UVCombine")]
        ),
        .executableTarget(
            name: "WebSocketInflateFuzzer",
            dependencies: ["FuzzSupport", .product(name: "UVCombineWebSocketCore", package: "UVCombine")]
        ),
        .executableTarget(
            name: "RequestWriterFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "UVCombineHTTPCore", package: "UVCombine"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
