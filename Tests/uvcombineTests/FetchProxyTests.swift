import Foundation
import Testing
import TestServerSupport

/// `uvcombine fetch -x/--proxy`, `-U/--proxy-user`, `--noproxy` and the
/// proxy environment variables, against curl as the oracle: the same
/// command line through the same proxy (scripts/test-proxy.py) prints the
/// same bytes and exits with the same status (curl 7.88: 5 for a proxy
/// that does not resolve, 7 for one that refuses the connection, 56 for
/// a CONNECT answered with 403 or 407).
@Suite("uvcombine fetch through a proxy, against curl", .serialized,
       .enabled(if: curlExecutable != nil, "curl is not installed (apt-get install curl)"))
struct FetchProxyTests {
    /// Runs `arguments` with curl and with `uvcombine fetch`, both with
    /// `environment` (PATH kept) instead of the test process's.
    static func runBoth(_ arguments: [String], environment: [String: String]) async throws -> (curl: ToolResult, fetch: ToolResult) {
        var full = environment
        full["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        full["HOME"] = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
        let curl = try await runProcess(curlExecutable!, arguments, timeout: 60, environment: full)
        let fetch = try await runProcess(toolURL(), ["fetch"] + arguments, timeout: 60, environment: full)
        return (curl, fetch)
    }

    /// Expects the same standard output and exit status, under a clean
    /// environment plus `environment`.
    static func expectSame(_ arguments: [String], environment: [String: String] = [:],
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (curl, fetch) = try await runBoth(arguments, environment: environment)
        #expect(fetch.status == curl.status,
                "\(arguments) \(environment): curl exited \(curl.status), fetch \(fetch.status): \(fetch.stderr)",
                sourceLocation: sourceLocation)
        #expect(fetch.stdout == curl.stdout,
                "\(arguments) \(environment): curl printed \(curl.output.debugDescription), fetch \(fetch.output.debugDescription)",
                sourceLocation: sourceLocation)
    }

    @Test("http through -x: absolute-form requests, the proxy's credentials, its 407, a redirect, -x '' and --noproxy")
    func httpThroughProxy() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let guarded = try TestProxy(auth: "user:pw")
        defer { guarded.stop() }
        for arguments in [
            ["-s", "-x", proxy.address, server.url("/echo")],
            ["-s", "--proxy", "http://\(proxy.address)", server.url("/echo?a=1")],
            ["-si", "-x", proxy.address, server.url("/status/201")],
            ["-sSL", "-x", proxy.address, server.url("/redirect/302?to=/echo")],
            ["-s", "-d", "a=1", "-x", proxy.address, server.url("/echo")],
            ["-s", "-x", guarded.address, "-U", "user:pw", server.url("/echo")],
            ["-s", "-x", "http://user:pw@\(guarded.address)", server.url("/echo")],
            ["-si", "-x", guarded.address, server.url("/echo")],
            ["-sf", "-x", guarded.address, server.url("/echo")],
            ["-s", "-w", "%{http_code}", "-x", guarded.address, "-U", "user:wrong", server.url("/echo")],
            ["-s", "-x", "", server.url("/echo")],
            ["-s", "-x", "127.0.0.1:1", "--noproxy", "127.0.0.1", server.url("/echo")],
            ["-s", "-x", "127.0.0.1:1", "--noproxy", "*", server.url("/echo")],
        ] {
            try await Self.expectSame(arguments)
        }
        let targets = proxy.requests().map(\.target)
        #expect(targets.contains(server.url("/echo")), "absolute form: \(targets)")
        #expect(guarded.requests().contains { $0.hadAuthorization })
    }

    @Test("-v through an http proxy: the same '>' and '<' lines (Proxy-Authorization after Host, Proxy-Connection)")
    func verboseThroughProxy() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let proxy = try TestProxy(auth: "user:pw")
        defer { proxy.stop() }
        for arguments in [
            ["-s", "-v", "-x", proxy.address, "-U", "user:pw", server.url("/echo")],
            ["-s", "-v", "-x", proxy.address, "-U", "user:pw", "-H", "X-Trace: 1", "-d", "a=1", server.url("/echo")],
        ] {
            let (curl, fetch) = try await Self.runBoth(arguments, environment: [:])
            func traced(_ result: ToolResult) -> [String] {
                result.stderr.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
                    .filter { ($0.hasPrefix("> ") || $0.hasPrefix("< ")) && !$0.contains("User-Agent:") && !$0.contains("Content-Length:") }
                    .map(String.init)
            }
            #expect(!traced(curl).isEmpty)
            #expect(traced(fetch) == traced(curl), "\(arguments)")
            #expect(fetch.stdout == curl.stdout)
            #expect(fetch.status == curl.status)
        }
    }

    @Test("https through -x: a CONNECT tunnel to the origin; refused (403) and unauthenticated (407) tunnels exit 56")
    func httpsThroughTunnel() async throws {
        let certificate = try await FetchTLSTests.SelfSigned()
        let file = Data(testBytes(200_000, seed: 5))
        let origin = try PythonHTTPServer(files: ["data.bin": file], tls: (certificate.certificate, certificate.key))
        defer { origin.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let refusing = try TestProxy(refuseConnect: true)
        defer { refusing.stop() }
        let guarded = try TestProxy(auth: "user:pw")
        defer { guarded.stop() }
        let url = "https://localhost:\(origin.port)/data.bin"
        for arguments in [
            ["-s", "--cacert", certificate.certificate, "-x", proxy.address, url],
            ["-s", "--cacert", certificate.certificate, "-x", guarded.address, "-U", "user:pw", url],
            ["-s", "-x", proxy.address, url],  // the origin's certificate is checked: 60
            ["-s", "-w", "%{http_code}", "--cacert", certificate.certificate, "-x", refusing.address, url],
            ["-s", "--cacert", certificate.certificate, "-x", guarded.address, url],
            ["-s", "--cacert", certificate.certificate, "-x", guarded.address, "-U", "user:bad", url],
        ] {
            try await Self.expectSame(arguments)
        }
        let fetched = try await runTool(["fetch", "-sS", "--cacert", certificate.certificate, "-x", proxy.address, url])
        #expect(fetched.stdout == file)
        let refused = try await runTool(["fetch", "-sS", "--cacert", certificate.certificate, "-x", refusing.address, url])
        #expect(refused.status == 56)
        #expect(refused.stderr.contains("CONNECT tunnel failed, response 403"), "\(refused.stderr)")
        #expect(refused.stderr.contains("UVURLError.proxyConnectFailed"), "\(refused.stderr)")
        let unauthenticated = try await runTool(["fetch", "-sS", "--cacert", certificate.certificate, "-x", guarded.address, url])
        #expect(unauthenticated.stderr.contains("UVURLError.proxyAuthenticationRequired"), "\(unauthenticated.stderr)")
    }

    @Test("proxies that cannot be reached: 5 when the name does not resolve, 7 when nothing listens; 4 for SOCKS")
    func unreachable() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        for arguments in [
            ["-s", "-x", "no-such-proxy.invalid:3128", server.url("/echo")],
            ["-s", "-x", "127.0.0.1:1", server.url("/echo")],
            ["-s", "-x", "127.0.0.1:1", "https://localhost:1/"],
        ] {
            try await Self.expectSame(arguments)
        }
        let socks = try await runTool(["fetch", "-sS", "-x", "socks5://127.0.0.1:1", server.url("/echo")])
        #expect(socks.status == 4, "not built in: \(socks.stderr)")
        let message = try await runTool(["fetch", "-sS", "-x", "127.0.0.1:1", server.url("/echo")])
        #expect(message.stderr.contains("UVURLError.cannotConnectToProxy"), "\(message.stderr)")
    }

    @Test("the environment: http_proxy (never HTTP_PROXY), HTTPS_PROXY, ALL_PROXY, NO_PROXY, as curl reads them")
    func environment() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let closed = "127.0.0.1:1"
        let echo = server.url("/echo")
        for environment in [
            ["http_proxy": proxy.address],
            ["HTTP_PROXY": closed],                      // ignored: direct
            ["ALL_PROXY": proxy.address],
            ["all_proxy": closed, "http_proxy": proxy.address],
            ["http_proxy": closed, "NO_PROXY": "127.0.0.1"],
            ["http_proxy": closed, "no_proxy": "127.0.0.0/8"],
            ["http_proxy": closed, "no_proxy": "localhost", "NO_PROXY": "127.0.0.1"],  // lower case wins: 7
            ["https_proxy": closed],                     // not for http: direct
            ["http_proxy": "no-such-proxy.invalid:1"],   // 5
        ] {
            try await Self.expectSame(["-s", echo], environment: environment)
        }
        // -x and --noproxy win over the environment.
        try await Self.expectSame(["-s", "-x", proxy.address, echo], environment: ["http_proxy": closed])
        try await Self.expectSame(["-s", "-x", "", echo], environment: ["http_proxy": closed])
        try await Self.expectSame(["-s", "--noproxy", "", echo], environment: ["http_proxy": closed, "no_proxy": "127.0.0.1"])
        try await Self.expectSame(["-s", "-x", closed, echo], environment: ["no_proxy": "127.0.0.1"])
        #expect(proxy.requests().count >= 6, "\(proxy.requests())")
    }
}
