// swift-tools-version: 6.3
//
// UVCombine: Combine's programming model on a libuv event loop.
//
// The root package depends on nothing beyond the toolchain, libuv (through the
// CLibUV system-library target), OpenSSL 3 (COpenSSL, for https), zlib
// (CZlib, for gzip and deflate responses) and apple/swift-http-types;
// swift-docc-plugin is a command plugin that only `make docs` runs
// (nothing links it).
// Benchmarks live in the nested package `Benchmarks/` so that their
// dependencies (package-benchmark, OpenCombine) never reach our users.
import PackageDescription

let package = Package(
    name: "UVCombine",
    // What is tested is Linux (x86_64, Swift 6.3, libuv 1.44), which
    // `platforms` cannot name. The one Apple floor that is certain is
    // macOS 15, where Synchronization's Mutex and Atomic (used throughout
    // the core) first exist; macOS is not tested.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "UVCombine", targets: ["UVCombine"]),
        .executable(name: "uvcombine", targets: ["uvcombine"]),
        .library(name: "UVCombineTesting", targets: ["UVCombineTesting"]),
        // Opt-in: link it into a test target to make UVCombineTesting's
        // AllocationCounter count. It interposes malloc for the whole
        // process, so nothing links it unless asked.
        .library(name: "UVCombineAllocationCounting", targets: ["CUVCombineMallocCounter"]),
        // `import UVCombineShim`: Apple's Combine where it exists, UVCombine
        // elsewhere, so one source tree builds on both.
        .library(name: "UVCombineShim", targets: ["UVCombineShim"]),
        // The C API as `libuvcombine-c.so` for C hosts (`uvcombine` names the
        // executable): header Sources/CUVCombine/include/uvcombine.h,
        // pkg-config name `uvcombine`; `make c-host`, `make install`.
        .library(name: "uvcombine-c", type: .dynamic, targets: ["CUVCombineImplementation"]),
        // The I/O-free HTTP/1.1 protocol core, for the fuzzers (`Fuzz/`, a
        // separate package) and for anyone who drives HTTP on their own
        // sockets. Public, but its names are not stable API
        // (docs/http-protocol-core.md); `import UVCombine` does not show it.
        .library(name: "UVCombineHTTPCore", targets: ["UVCombineHTTPCore"]),
        // The I/O-free WebSocket protocol core (RFC 6455 frames, RFC 7692
        // permessage-deflate, UTF-8 validation, close rules, handshake),
        // for the fuzzers and for anyone who runs WebSocket on their own
        // sockets. No Foundation module. Public, but its names are not
        // stable API (docs/websocket.md, "The protocol core").
        .library(name: "UVCombineWebSocketCore", targets: ["UVCombineWebSocketCore"]),
    ],
    dependencies: [
        // Without the FoundationURL trait (on by default: `HTTPRequest.url`,
        // which nothing here uses): with it HTTPTypes imports
        // FoundationEssentials, and every product linking HTTPTypes links
        // FoundationEssentials' URL machinery too (issue 30: 4.9 MB of the
        // C library; README, "Footprint"). A dependent that enables the
        // trait gets it back: traits are unified over the package graph.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0", traits: []),
        // `make docs`: the DocC catalog (Sources/UVCombine/UVCombine.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV",
            path: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        // OpenSSL 3 (libssl, libcrypto), linked: UVCombineHTTPAuthentication's
        // digests. The session's TLS (docs/tls.md) loads it at first use
        // through CUVCombineLazyLibraries instead.
        .systemLibrary(
            name: "COpenSSL",
            path: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib, linked: the tests' compressed fixtures. The session's
        // ContentDecoder and the WebSocket core's permessage-deflate load it
        // at first use through CUVCombineLazyLibraries instead.
        .systemLibrary(
            name: "CZlib",
            path: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // OpenSSL, zlib and nghttp2 for the session, the WebSocket core and
        // HTTP/2, loaded at first use (dlopen of libssl.so.3, libcrypto.so.3,
        // libz.so.1, libnghttp2.so.14: the first https connection, compressed
        // body, permessage-deflate WebSocket or HTTP/2 connection) through tables of their functions, so that neither is a
        // start-up dependency of libuvcombine-c.so (issue 30: loading them
        // cost a C host about 1.5 ms before its first timer tick). One code
        // path for the C library and the Swift products alike: the Swift
        // programs start without them too, and the loading, its failure (a
        // typed error) and the tables are the code every test runs. COpenSSL
        // and CZlib (linked) remain for the digests of
        // UVCombineHTTPAuthentication and for the tests' own zlib.
        .target(name: "CUVCombineLazyLibraries"),
        // Modules by weight (docs/engineering-notes.md, "Modules by weight"),
        // as OpenCombine splits off OpenCombineDispatch and
        // OpenCombineFoundation and swift-nio NIOFoundationCompat. What each
        // may import is checked by Tests/UVCombineCoreTests/ModuleImportTests.swift.
        // Combine's core: the standard library and Synchronization only (no
        // Foundation module, no Dispatch), so the C library carries neither.
        // The one exception: the thread identity read (a header with one
        // inline asm statement), which Swift cannot spell (ThreadIdentity.swift).
        .target(name: "UVCombineCore", dependencies: ["CUVCombineThreadIdentity"]),
        // The calling thread's identity as one instruction, for the core's
        // re-entrancy gates and the loop's home-thread checks.
        .target(name: "CUVCombineThreadIdentity"),
        // Combine's Dispatch side: DispatchQueue as a Scheduler.
        .target(name: "UVCombineDispatch", dependencies: ["UVCombineCore"]),
        // Combine's Foundation side: RunLoop and OperationQueue schedulers,
        // Timer.publish, NotificationCenter.publisher, the JSON and property
        // list coders as TopLevelEncoder/Decoder. The only library module
        // that imports Foundation.
        .target(name: "UVCombineFoundation", dependencies: ["UVCombineCore", "UVCombineDispatch"]),
        // The libuv loop as a Scheduler, the uv_timer engine, TCP in bytes;
        // the only Swift module besides the C API that imports CLibUV. No
        // Foundation module.
        .target(name: "UVCombineLoop", dependencies: ["UVCombineCore", "CLibUV"]),
        // The loop's API in FoundationEssentials' types: UVTimer.publish
        // (Date values) and the TCP publishers of Data.
        .target(name: "UVCombineLoopFoundation", dependencies: ["UVCombineCore", "UVCombineLoop"]),
        .target(
            name: "UVCombine",
            dependencies: [
                "UVCombineCore", "UVCombineDispatch", "UVCombineFoundation", "UVCombineLoop",
                "UVCombineLoopFoundation", "UVCombineHTTP", "UVCombineWebSocket",
            ]
        ),
        // Re-exports Combine on Apple platforms and UVCombine elsewhere.
        .target(
            name: "UVCombineShim",
            dependencies: [
                .target(name: "UVCombine", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])),
            ]
        ),
        // The HTTP/1.1 protocol core: request writer, response parser, URL
        // validation, redirect policy, and the pool, timeout and exchange
        // state machines. No I/O, no clock, no loop, no Foundation module:
        // swift-http-types only (ModuleImportTests), so the fuzzers
        // and the state machines' tests build it alone
        // (docs/http-protocol-core.md).
        .target(
            name: "UVCombineHTTPCore",
            dependencies: [.product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // The URL session's engine: `UVURLSession`, its configuration, and
        // the engine that drives the protocol core on a UVLoop (pool,
        // transports, TLS from OpenSSL, proxy tunnel, content decoder,
        // deadlines), in bytes and checked targets. No Foundation module
        // (ModuleImportTests), so the C library links none; never imports
        // CLibUV.
        .target(
            name: "UVCombineHTTPClient",
            dependencies: [
                "UVCombineCore",
                "UVCombineHTTPCore",
                "UVCombineLoop",
                // The session's cookie store and Digest/Basic answers
                // (issue 35); both pure, no Foundation module.
                "UVCombineHTTPCookies",
                "UVCombineHTTPAuthentication",
                "CUVCombineLazyLibraries",
                "UVCombineHTTP2",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The public Swift surface in Foundation's types (`URL`, `Data`):
        // the data task and streaming publishers, their async forms,
        // uploads from files and publishers, downloads. It converts at the
        // edge and re-exports UVCombineHTTPClient (`UVURLSession` itself).
        .target(
            name: "UVCombineHTTP",
            dependencies: [
                "UVCombineCore",
                "UVCombineHTTPCore",
                "UVCombineHTTPClient",
                "UVCombineLoop",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The WebSocket protocol core (RFC 6455, RFC 7692): frame codec,
        // message reader, UTF-8 validation, close rules, handshake,
        // permessage-deflate on zlib. No I/O, no loop, no Foundation module
        // (its SHA-1 is its own; base64 is the HTTP core's), so the fuzzers build it alone
        // (WebSocketCoreImportTests checks the imports).
        .target(
            name: "UVCombineWebSocketCore",
            dependencies: ["CUVCombineLazyLibraries", "UVCombineHTTPCore", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // The WebSocket task in bytes (the connection on the loop over the
        // session's TCP, TLS and proxy tunnel connections, the status, the
        // error): no Foundation module, so the C API's WebSocket functions
        // link none (ModuleImportTests checks the imports).
        .target(
            name: "UVCombineWebSocketClient",
            dependencies: [
                "UVCombineWebSocketCore",
                "UVCombineHTTPClient",
                "UVCombineHTTPCore",
                "UVCombineLoop",
                "UVCombineCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // WebSocket tasks on a UVURLSession, the public Swift surface:
        // `UVWebSocketTask` (`Data`, `URL`, the publishers, async forms)
        // wrapping UVCombineWebSocketClient's byte task and converting at
        // its edge (docs/websocket.md). At most FoundationEssentials.
        // Re-exports the core's public-API types and `WebSocketError` only.
        .target(
            name: "UVCombineWebSocket",
            dependencies: [
                "UVCombineWebSocketCore",
                "UVCombineWebSocketClient",
                "UVCombineCore",
                "UVCombineLoop",
                "UVCombineHTTP",
                "UVCombineHTTPClient",
                "UVCombineHTTPCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The C API: the hand-written header (libuv style) and the few
        // functions written in C (error strings, version).
        .target(name: "CUVCombine", dependencies: ["CLibUV"]),
        // The C API's functions, in Swift (`@c @implementation`: the compiler
        // checks each against the header). `make c-lib` links it into
        // libuvcombine-c.so with the Swift runtime inside and only the
        // header's `uvc_` functions exported; those link flags live in the
        // Makefile (C_LIB_FLAGS), not here, because SwiftPM refuses a
        // dependency whose products carry unsafe flags. No Swift target may
        // depend on it: the static runtime would clash with the test runner's.
        .target(
            name: "CUVCombineImplementation",
            dependencies: ["CUVCombine", "UVCombineLoop", "UVCombineCore",
                           "UVCombineHTTPClient", "UVCombineWebSocketClient", "UVCombineHTTPCore", "CLibUV",
                           "UVCombineWebSocketCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            exclude: ["uvcombine.map", "startup-order.txt"]
        ),
        // The demo and command-line tool (`uvcombine demo`, `uvcombine
        // fetch`). Its embedded demo server is its own, on UVTCP: the
        // test-support module would link the malloc interposer into it.
        .executableTarget(
            name: "uvcombine",
            dependencies: ["UVCombine", "UVCombineHTTPCore", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Counts allocations per thread by interposing malloc: the opt-in
        // product UVCombineAllocationCounting, and a dependency of our own
        // test targets (which pin the zero-allocation paths with it).
        .target(name: "CUVCombineMallocCounter"),
        // Reaches that counter through weak references, so that linking the
        // test support module alone interposes nothing.
        .target(name: "CUVCombineAllocationHooks"),
        .target(
            name: "UVCombineTesting",
            dependencies: [
                "UVCombineCore",
                "UVCombineDispatch",
                "UVCombineLoop",
                "CUVCombineAllocationHooks",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The test servers' one launcher (python3, nginx, openssl s_server
        // as child processes: start, read the port, wait until accepting,
        // stop by PID) and the one way to wait for a child process without
        // holding a pool thread, for the test targets only; no product.
        .target(name: "TestServerSupport", path: "Tests/TestServerSupport"),
        // Builds against the shim alone: Combine code with only its import
        // line changed.
        .testTarget(name: "UVCombineShimTests", dependencies: ["UVCombineShim"]),
        .testTarget(
            name: "UVCombineCoreTests",
            dependencies: [
                "UVCombineCore", "UVCombineDispatch", "UVCombineFoundation", "UVCombineTesting", "CUVCombineMallocCounter",
            ]
        ),
        .testTarget(
            name: "UVCombineLoopTests",
            dependencies: ["UVCombineLoop", "UVCombineLoopFoundation", "UVCombineTesting", "CUVCombineMallocCounter"]
        ),
        .testTarget(
            name: "UVCombineHTTPTests",
            dependencies: [
                "UVCombineHTTP", "UVCombineHTTPCore", "UVCombineLoop", "UVCombineLoopFoundation", "UVCombineCore", "UVCombineFoundation",
                "UVCombineTesting",
                "CUVCombineMallocCounter", "CZlib",
                "TestServerSupport",
            ]
        ),
        .testTarget(
            name: "UVCombineWebSocketTests",
            dependencies: [
                "UVCombineWebSocket", "UVCombineHTTP", "UVCombineLoop", "UVCombineCore", "UVCombineTesting",
                "CUVCombineMallocCounter", "CZlib", "TestServerSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The echo servers (python's websockets, node's ws), run by path.
            exclude: ["Servers"]
        ),
        // The WebSocket protocol core alone: codec, reader, deflate,
        // handshake, SHA-1 and base64 vectors, its import rule.
        .testTarget(
            name: "UVCombineWebSocketCoreTests",
            dependencies: [
                "UVCombineWebSocketCore", "UVCombineHTTPCore", "CZlib",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Builds libuvcombine-c.so and C programs with gcc (`make c-build`)
        // and runs them: every header function, bad input, AddressSanitizer.
        .testTarget(
            name: "CUVCombineImplementationTests",
            dependencies: ["TestServerSupport"],
            exclude: ["C"]
        ),
        // Runs the built `uvcombine` executable (the dependency makes
        // `swift test` build it) against TestHTTPServer and python3's
        // http.server.
        .testTarget(
            name: "uvcombineTests",
            dependencies: [
                "uvcombine",
                "UVCombineTesting",
                "TestServerSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "UVCombineTestingTests",
            dependencies: [
                "UVCombineCore",
                "UVCombineDispatch",
                "UVCombineLoop",
                "UVCombineLoopFoundation",
                "UVCombineHTTP",
                "UVCombineHTTPCore",
                "UVCombineTesting",
                "CUVCombineMallocCounter",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Issue 35: cookies and HTTP authentication as pure, I/O-free code (no
// Foundation module, no Dispatch), for the session and `uvcombine fetch`
// to wire in later (docs/cookies.md, docs/authentication.md).
package.products += [
    // RFC 6265 cookie store and curl's Netscape cookie-jar format.
    .library(name: "UVCombineHTTPCookies", targets: ["UVCombineHTTPCookies"]),
    // RFC 7616 Digest and RFC 7617 Basic authentication.
    .library(name: "UVCombineHTTPAuthentication", targets: ["UVCombineHTTPAuthentication"]),
]
package.targets += [
    // The standard library, Synchronization and swift-http-types only.
    .target(
        name: "UVCombineHTTPCookies",
        dependencies: [.product(name: "HTTPTypes", package: "swift-http-types")]
    ),
    // Digests (MD5, SHA-256, SHA-512/256) come from OpenSSL's libcrypto,
    // loaded at the first hash through CUVCombineLazyLibraries (the C
    // library links this module and NEEDs no OpenSSL, issue 30); nothing
    // else beyond swift-http-types.
    .target(
        name: "UVCombineHTTPAuthentication",
        dependencies: ["CUVCombineLazyLibraries", "UVCombineHTTPCore", .product(name: "HTTPTypes", package: "swift-http-types")]
    ),
    .testTarget(
        name: "UVCombineHTTPCookiesTests",
        dependencies: [
            "UVCombineHTTPCookies", "TestServerSupport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
    .testTarget(
        name: "UVCombineHTTPAuthenticationTests",
        dependencies: [
            "UVCombineHTTPAuthentication", "TestServerSupport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
]


// MARK: HTTP/2 (issue 33): the nghttp2 system library and the I/O-free
// HTTP/2 client connection over it, with its tests. One block, appended,
// so that it merges beside other modules' edits (docs/http2.md).
package.products.append(
    // The HTTP/2 client connection machine (no I/O, no loop), for the
    // session's engine and for anyone who drives HTTP/2 on their own
    // sockets. Public, but its names are not stable API yet.
    .library(name: "UVCombineHTTP2", targets: ["UVCombineHTTP2"])
)
package.targets.append(contentsOf: [
    // libnghttp2 does HTTP/2 framing, HPACK and flow control, as in curl.
    // Its header comes with CUVCombineLazyLibraries (cuvc_nghttp2.h: apt
    // libnghttp2-dev), its functions from libnghttp2.so.14, loaded at the
    // first connection that may speak HTTP/2, so neither the Swift products
    // nor libuvcombine-c.so need it at start-up (issue 30). Only the tests'
    // in-memory nghttp2 server links it.
    //
    // The HTTP/2 client connection: bytes in, bytes out, events to a
    // delegate, flow control by the consumer's demand, hostile-peer
    // limits. No Foundation module, no Dispatch, no loop.
    .target(
        name: "UVCombineHTTP2",
        dependencies: [
            "UVCombineHTTPCore",
            "CUVCombineLazyLibraries",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
    .testTarget(
        name: "UVCombineHTTP2Tests",
        dependencies: [
            "UVCombineHTTP2", "UVCombineHTTPCore", "CUVCombineLazyLibraries", "UVCombineLoop", "UVCombineCore",
            "TestServerSupport", "UVCombineTesting", "CUVCombineMallocCounter",
            // The session over HTTP/2 (SessionHTTP2*Tests).
            "UVCombineHTTP", "UVCombineHTTPClient",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        // The in-memory server (Support/InMemoryServer.swift) calls
        // nghttp2's server functions directly.
        linkerSettings: [.linkedLibrary("nghttp2")]
    ),
])

// MARK: OpenAPI (issue 35): a ClientTransport for swift-openapi-runtime over
// UVURLSession, so clients generated by swift-openapi-generator run on the
// loop (docs/openapi.md). One block, appended, so that it merges beside
// other modules' edits.
//
// Behind the package trait `OpenAPI`, off by default, rather than as a
// separate product alone. Measured with this toolchain (SwiftPM 6.3): a
// dependency that only trait-guarded target dependencies use is left out
// of resolution while the trait is off (not fetched, not in
// Package.resolved), whereas a product alone still puts
// swift-openapi-runtime into every dependent's graph. And since traits are
// unified over the graph, swift-openapi-runtime's own dependency on
// swift-http-types (its default traits) would then turn on HTTPTypes'
// FoundationURL trait for every product, the C library included: the
// 4.9 MB that `traits: []` above keeps out (issue 30). With the trait on,
// that happens too, for that dependent only.
//
// A dependent opts in with
//     .package(url: "…/UVCombine", from: "…", traits: ["OpenAPI"])
// and `.product(name: "UVCombineOpenAPI", package: "UVCombine")`; here,
// `swift build --traits OpenAPI`. Without the trait the module compiles
// to nothing (its sources are inside `#if OpenAPI`). Enabling a trait
// passes `-D OpenAPI` to every target of this package, so switching it in
// one scratch directory rebuilds them all: the trait builds of this repo
// use a scratch directory of their own (`make interop-openapi`).
package.traits.insert(.trait(
    name: "OpenAPI",
    description: "UVCombineOpenAPI: a swift-openapi-runtime ClientTransport over UVURLSession"
))
package.dependencies.append(
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4")
)
package.products.append(
    // `UVURLSessionTransport`: generated OpenAPI clients on a UVURLSession.
    // Imports Foundation (through OpenAPIRuntime, whose default trait
    // FullFoundation is kept: generated code expects it).
    .library(name: "UVCombineOpenAPI", targets: ["UVCombineOpenAPI"])
)
package.targets.append(contentsOf: [
    .target(
        name: "UVCombineOpenAPI",
        dependencies: [
            "UVCombineCore", "UVCombineLoop", "UVCombineHTTP", "UVCombineHTTPClient", "UVCombineHTTPCore",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
        ]
    ),
    // The transport on its own (no generator): URLs, bodies both ways with
    // backpressure, cancellation, errors. Compiles to nothing without the
    // trait; `make test-traits` (a build of the whole package with every
    // optional trait, in a scratch directory of its own; CI runs it) runs it. The generated client's tests
    // are the nested package Tests/Interop/OpenAPIClient (`make
    // interop-openapi`, part of `make test`).
    .testTarget(
        name: "UVCombineOpenAPITests",
        dependencies: [
            "UVCombineOpenAPI", "UVCombineHTTP", "UVCombineLoop", "UVCombineCore", "TestServerSupport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
        ],
        // The pet store (python3), shared with Tests/Interop/OpenAPIClient.
        exclude: ["Server"]
    ),
])

// MARK: Logging (issue 35): the session's task and connection lifecycle
// through swift-log (UVURLSession.Configuration.logger; docs/url-session.md,
// "Logging"). One block, appended, so that it merges beside other modules'
// edits.
//
// Behind the package trait `Logging`, off by default, as the `OpenAPI`
// trait keeps swift-openapi-runtime out: a dependency that only
// trait-guarded target dependencies use is left out of resolution while
// the trait is off, so swift-log reaches neither the default build nor
// the C library, and the sources that use it sit inside `#if Logging`.
// A dependent opts in with
//     .package(url: "…/UVCombine", from: "…", traits: ["Logging"])
// here, `swift build --traits Logging`; the trait builds of this repo use
// a scratch directory of their own (`make test-traits`), since switching a
// trait rebuilds every target.
package.traits.insert(.trait(
    name: "Logging",
    description: "UVURLSession.Configuration.logger: the session's lifecycle through swift-log"
))
package.dependencies.append(
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2")
)
for target in package.targets where target.name == "UVCombineHTTPClient" {
    target.dependencies.append(
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"]))
    )
}
package.targets.append(
    // The lifecycle's log lines, with swift-log's InMemoryLogHandler.
    // Compiles to nothing without the trait; `make test-traits` runs it.
    .testTarget(
        name: "UVCombineLoggingTests",
        dependencies: [
            "UVCombineHTTPClient", "UVCombineHTTPCore", "UVCombineLoop", "UVCombineCore", "UVCombineTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
            .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
        ]
    )
)

// MARK: Metrics (issue 35): the session's requests, failures, in-flight
// tasks, pool connections, bytes and durations through swift-metrics
// (UVURLSession.Configuration.metricsFactory; docs/observability.md). One
// block, appended, so that it merges beside other modules' edits.
//
// Behind the package trait `Metrics`, off by default, as `Logging` keeps
// swift-log out: swift-metrics reaches neither the default build nor the C
// library. Only CoreMetrics is linked (the `Metrics` module adds
// Foundation conveniences the session does not need).
// A dependent opts in with
//     .package(url: "…/UVCombine", from: "…", traits: ["Metrics"])
// here, `swift build --traits Metrics` (`make test-traits`).
package.traits.insert(.trait(
    name: "Metrics",
    description: "UVURLSession.Configuration.metricsFactory: requests, failures, connections, bytes, durations through swift-metrics"
))
package.dependencies.append(
    .package(url: "https://github.com/apple/swift-metrics", from: "2.7.0")
)
for target in package.targets where target.name == "UVCombineHTTPClient" {
    target.dependencies.append(
        .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"]))
    )
}
package.targets.append(
    // The session's metrics, with swift-metrics' TestMetrics (a factory
    // per configuration, no global bootstrap). Compiles to nothing without
    // the trait; `make test-traits` runs it.
    .testTarget(
        name: "UVCombineMetricsTests",
        dependencies: [
            "UVCombineHTTPClient", "UVCombineHTTPCore", "UVCombineLoop", "UVCombineCore", "UVCombineTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        ]
    )
)

// MARK: Tracing (issue 35): a span per task with the OpenTelemetry HTTP
// client attributes, and the task's context injected into its request
// (UVURLSession.Configuration.tracer; docs/observability.md). One block,
// appended, so that it merges beside other modules' edits.
//
// Behind the package trait `Tracing`, off by default, for the same reason
// as `Logging` and `Metrics`. A dependent opts in with
//     .package(url: "…/UVCombine", from: "…", traits: ["Tracing"])
// here, `swift build --traits Tracing` (`make test-traits`).
package.traits.insert(.trait(
    name: "Tracing",
    description: "UVURLSession.Configuration.tracer: a span per task through swift-distributed-tracing"
))
package.dependencies.append(
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0")
)
for target in package.targets where target.name == "UVCombineHTTPClient" {
    target.dependencies.append(
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"]))
    )
}
package.targets.append(
    // The session's spans and context injection, with
    // swift-distributed-tracing's InMemoryTracer (a tracer per
    // configuration, no global bootstrap). Compiles to nothing without the
    // trait; `make test-traits` runs it.
    .testTarget(
        name: "UVCombineTracingTests",
        dependencies: [
            "UVCombineHTTPClient", "UVCombineHTTPCore", "UVCombineLoop", "UVCombineCore", "UVCombineTesting",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
        ]
    )
)

// The observers' cost when they are off (issue 35: "with logging at info,
// no malloc added"): a task's mallocs with a Logger at info, with the
// `Metrics` and `Tracing` traits on but nothing configured or
// bootstrapped, against a session without any, counted on the loop
// thread with CUVCombineMallocCounter. A test target of its own rather
// than a benchmark, because traits are unified over a package graph: the
// Benchmarks package enabling them would change every benchmark.
// Compiles to nothing without the traits; `make test-traits` runs it.
package.targets.append(
    .testTarget(
        name: "UVCombineObserverCostTests",
        dependencies: [
            "UVCombineHTTPClient", "UVCombineHTTPCore", "UVCombineLoop", "UVCombineCore", "UVCombineTesting",
            "CUVCombineMallocCounter",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
            .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
        ]
    )
)
