// swift-tools-version: 6.1
//
// UVCombine's benchmarks: a nested package so that package-benchmark and
// OpenCombine never become dependencies of the library.
//
// Three executables with the core workloads in the same shape:
//   UVCombineBenchmarks    the workloads on UVCombine (a client module, like
//                          any user: proves cross-module specialisation)
//   OpenCombineBenchmarks  the same source text on OpenCombine 0.14
//                          (`scripts/bench_report.py check` verifies that the
//                          two folders differ only in the library's name)
//   LowerBoundBenchmarks   hand-written loops that do the least work the
//                          workload needs: the physical limit beside both.
// Two more for workloads OpenCombine has no counterpart for:
//   LoopBenchmarks         timer publishers (100,000 of them; tick cost) beside
//                          bare uv_timers, and cross-thread receive(on: loop)
//   HTTPBenchmarks         UVURLSession beside AsyncHTTPClient and a bare
//                          libuv client, against one local keep-alive server
//                          (in the same executable, on its own loop thread)
//   ExecutorBenchmarks     Swift jobs on a UVLoop beside NIO's event loop and
//                          the global executor (actor hops and turns, jobs
//                          across threads: round trips, throughput)
//   UploadBenchmarks       streamed 256 MiB uploads, UVURLSession beside
//                          AsyncHTTPClient, to a local sink (throughput and
//                          peak resident memory)
//   NginxBenchmarks        UVURLSession beside the bare libuv client against
//                          a real nginx in its own process (skipped without
//                          nginx): the cost per request of issue 17
//   HTTP2Benchmarks        HTTP/2 against one nginx (h2c, TLS with ALPN): 100
//                          streams on one connection beside 64 HTTP/1.1
//                          connections, UVURLSession beside libcurl's multi
//                          interface (CCurlMulti, a small C client; apt
//                          libcurl4-openssl-dev) and AsyncHTTPClient (issue 33)
//   WebSocketBenchmarks    UVWebSocketTask beside swift-websocket's client and
//                          python's websockets client against one
//                          hummingbird-websocket echo server in its own
//                          process (skipped without it: make interop-servers)
// NginxProfile and HTTP2Profile (not benchmarks) run one of those workloads
// alone, for valgrind --tool=callgrind.
// BenchmarkSupport holds what they share: sizes, metrics, the measured
// region.
//
// Run from the repository root with `make bench` / `make bench-check`;
// see docs/benchmarks.md.
import PackageDescription

let benchmarkPlugin: Target.PluginUsage = .plugin(name: "BenchmarkPlugin", package: "benchmark")

let package = Package(
    name: "UVCombineBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path dependency is otherwise identified by its
        // folder name, which differs between checkouts and worktrees.
        .package(name: "UVCombine", path: ".."),
        // The default trait set pulls in a runtime interposer that is not
        // needed for the metrics we use; malloc counting needs only this one.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        // The HTTP client UVURLSession is compared with, in the same run.
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // NIO's event loop, as an executor beside UVLoop (AsyncHTTPClient
        // already brings it; named for its products).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // HTTPRequest for the upload workloads (already in the graph through
        // the root package).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The WebSocket client UVWebSocketTask is compared with (issue 34).
        .package(url: "https://github.com/hummingbird-project/swift-websocket", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // AsyncHTTPClient's TLS configuration (the HTTP/2 workloads trust a
        // self-signed certificate); already in the graph through it.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Sources/BenchmarkSupport"
        ),
        // The loop helpers the loop and HTTP benchmarks share.
        .target(
            name: "LoopSupport",
            dependencies: [.product(name: "UVCombine", package: "UVCombine")],
            path: "Sources/LoopSupport"
        ),
        .executableTarget(
            name: "UVCombineBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
            ],
            path: "Benchmarks/UVCombineBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        .executableTarget(
            name: "OpenCombineBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Benchmarks/OpenCombineBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        .executableTarget(
            name: "LowerBoundBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/LowerBoundBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        // Bare libuv beside the library: CLibUV is the root package's
        // system-library module, visible here because UVCombine's modules
        // import it.
        .executableTarget(
            name: "LoopBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "LoopSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
            ],
            path: "Benchmarks/LoopBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        // Swift jobs on a UVLoop beside NIO's event loop and the global
        // executor (issue 20).
        .executableTarget(
            name: "ExecutorBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/ExecutorBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        .executableTarget(
            name: "NginxBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "LoopSupport",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NginxBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        .executableTarget(
            name: "NginxProfile",
            dependencies: ["LoopSupport"],
            path: "Sources/NginxProfile"
        ),
        // Streamed uploads (issue 19): UVURLSession beside AsyncHTTPClient,
        // 256 MiB to a local sink, with the peak resident set.
        .executableTarget(
            name: "UploadBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "LoopSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/UploadBenchmarks",
            plugins: [benchmarkPlugin]
        ),
        .executableTarget(
            name: "WebSocketBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "LoopSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/WebSocketBenchmarks",
            exclude: ["python_client.py"],
            plugins: [benchmarkPlugin]
        ),
        // libcurl's multi interface, the HTTP/2 workloads' C peer (issue 33).
        .target(
            name: "CCurlMulti",
            path: "Sources/CCurlMulti",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        // AsyncHTTPClient as the peer of the HTTP and HTTP/2 workloads: its
        // runner, apart from LoopSupport so that the nginx workloads and
        // profiles do not build SwiftNIO.
        .target(
            name: "AsyncHTTPClientSupport",
            dependencies: [
                "LoopSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/AsyncHTTPClientSupport"
        ),
        // What HTTP2Benchmarks and HTTP2Profile share: the nginx with three
        // listeners (on LoopSupport's NginxProcess), libcurl's runner, the
        // workloads' sizes.
        .target(
            name: "HTTP2Support",
            dependencies: ["CCurlMulti", "LoopSupport"],
            path: "Sources/HTTP2Support"
        ),
        .executableTarget(
            name: "HTTP2Benchmarks",
            dependencies: [
                "AsyncHTTPClientSupport",
                "BenchmarkSupport",
                "HTTP2Support",
                "LoopSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
            ],
            path: "Benchmarks/HTTP2Benchmarks",
            plugins: [benchmarkPlugin]
        ),
        .executableTarget(
            name: "HTTP2Profile",
            dependencies: [
                "AsyncHTTPClientSupport",
                "HTTP2Support",
                "LoopSupport",
                .product(name: "UVCombine", package: "UVCombine"),
            ],
            path: "Sources/HTTP2Profile"
        ),
        .executableTarget(
            name: "HTTPBenchmarks",
            dependencies: [
                "AsyncHTTPClientSupport",
                "BenchmarkSupport",
                "LoopSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "UVCombine", package: "UVCombine"),
            ],
            path: "Benchmarks/HTTPBenchmarks",
            plugins: [benchmarkPlugin]
        ),
    ],
    swiftLanguageModes: [.v6]
)
