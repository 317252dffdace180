// swift-tools-version: 6.2
//
// A WebSocket echo server on hummingbird-websocket (a Swift server nobody
// here wrote), for UVCombineWebSocketTests and the WebSocket benchmarks.
// Test-only: a package of its own, never a dependency of the main package,
// so SwiftNIO and Hummingbird never reach UVCombine's users or its build.
//
// Built by `make interop-servers` (which `make test` runs first):
//
//     swift build -c release --package-path Tests/Interop/HummingbirdWebSocketServer \
//         --scratch-path .build-interop
//
// and handed to the tests by path in UVCOMBINE_HUMMINGBIRD_WS_SERVER.
// A first build takes 3-5 minutes on 2 cores.
import PackageDescription

let package = Package(
    name: "HummingbirdWebSocketServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdEchoServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSCompression", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
