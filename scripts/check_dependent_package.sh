#!/usr/bin/env bash
# Builds and runs a throw-away package that depends on UVCombine by path and
# uses every product a dependent can link: UVCombine, UVCombineTesting, and
# uvcombine-c (from a C target, through its header). SwiftPM refuses a
# dependency whose products carry unsafe flags, so this is the check that
# Package.swift stays usable as a dependency (issue 21). It also pins what
# `import UVCombine` shows: the HTTP protocol core (parser, writer, pool
# state machine, ...) is the product UVCombineHTTPCore, reachable only with
# `import UVCombineHTTPCore` (docs/http-protocol-core.md). The protocol
# products beside it (HTTP/2, the WebSocket core, cookies, authentication)
# are linked by one more target, ProtocolUser. `make check-dependent`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/uvcombine-dependent.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/SwiftUser" "$work/Sources/CUser/include" "$work/Sources/CUserMain" "$work/Sources/SPIProbe" \
    "$work/Sources/ProtocolUser"

cat > "$work/Package.swift" <<MANIFEST
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DependentCheck",
    dependencies: [.package(name: "UVCombine", path: "$root")],
    targets: [
        .executableTarget(
            name: "SwiftUser",
            dependencies: [
                .product(name: "UVCombine", package: "UVCombine"),
                .product(name: "UVCombineTesting", package: "UVCombine"),
            ]
        ),
        .target(name: "CUser", dependencies: [.product(name: "uvcombine-c", package: "UVCombine")]),
        .executableTarget(name: "CUserMain", dependencies: ["CUser"]),
        .target(name: "SPIProbe", dependencies: [
            .product(name: "UVCombine", package: "UVCombine"),
            .product(name: "UVCombineHTTPCore", package: "UVCombine"),
        ]),
        .executableTarget(name: "ProtocolUser", dependencies: [
            .product(name: "UVCombineHTTP2", package: "UVCombine"),
            .product(name: "UVCombineWebSocketCore", package: "UVCombine"),
            .product(name: "UVCombineHTTPCookies", package: "UVCombine"),
            .product(name: "UVCombineHTTPAuthentication", package: "UVCombine"),
        ]),
    ]
)
MANIFEST

cat > "$work/Sources/ProtocolUser/main.swift" <<'SWIFT'
import UVCombineHTTP2
import UVCombineHTTPAuthentication
import UVCombineHTTPCookies
import UVCombineWebSocketCore

// One name from each protocol product, so each links from outside.
precondition(HTTP2Configuration() == HTTP2Configuration())
precondition(CookieStore().cookies.isEmpty)
precondition(WebSocketCloseCode(rawValue: 1000) == WebSocketCloseCode(rawValue: 1000))
precondition(BasicAuthentication.self == BasicAuthentication.self)
print("ProtocolUser: ok")
SWIFT

cat > "$work/Sources/SwiftUser/main.swift" <<'SWIFT'
import UVCombine
import UVCombineTesting

// The umbrella: a pipeline on a real loop, and a virtual-time scheduler.
let loop = try UVLoop()
var received: [Int] = []
let cancellable = [1, 2, 3].publisher
    .map { $0 * 10 }
    .receive(on: loop)
    .sink { received.append($0) }
_ = loop.run()
cancellable.cancel()
try loop.close()
precondition(received == [10, 20, 30], "received \(received)")

let scheduler = TestScheduler<UVLoop.SchedulerTimeType, UVLoop.SchedulerOptions>(
    now: .init(uptimeNanoseconds: 1))
var fired = false
scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) { fired = true }
scheduler.advance(by: .seconds(5))
precondition(fired)

// Linking the test support module does not interpose malloc: the counter is
// the opt-in product UVCombineAllocationCounting, not linked here.
precondition(!AllocationCounter.isCounting, "the malloc counter was linked without being asked for")
print("SwiftUser: ok")
SWIFT

cat > "$work/Sources/CUser/include/cuser.h" <<'C'
const char *cuser_version(void);
C
cat > "$work/Sources/CUser/cuser.c" <<'C'
#include <uvcombine.h>
#include "cuser.h"
const char *cuser_version(void) { return uvc_version_string(); }
C
cat > "$work/Sources/CUserMain/main.swift" <<'SWIFT'
import CUser
print("CUserMain: uvcombine-c \(String(cString: cuser_version()))")
SWIFT

# Built first with the core's import (the fuzzers' way in), then without it.
spi_probe() {
    cat > "$work/Sources/SPIProbe/probe.swift" <<SWIFT
$1
public func probe() -> Bool {
    var parser = HTTPResponseParser()
    parser.expectResponse(to: .get, requestClosesConnection: false)
    return true
}
SWIFT
}
spi_probe 'import UVCombineHTTPCore'

cd "$work"
swift build ${DEPENDENT_SWIFT_FLAGS:-} 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
test "${PIPESTATUS[0]}" -eq 0
"$(swift build --show-bin-path)/SwiftUser"
"$(swift build --show-bin-path)/CUserMain"
"$(swift build --show-bin-path)/ProtocolUser"
spi_probe 'import UVCombine'
if swift build --target SPIProbe > spi-probe.log 2>&1; then
    echo "check-dependent: \`import UVCombine\` alone reaches HTTPResponseParser (only \`import UVCombineHTTPCore\` may)"; exit 1
fi
grep -q "cannot find 'HTTPResponseParser' in scope" spi-probe.log || { cat spi-probe.log; exit 1; }
echo "check-dependent: a package depending on UVCombine by path builds and runs; the HTTP core needs import UVCombineHTTPCore"
