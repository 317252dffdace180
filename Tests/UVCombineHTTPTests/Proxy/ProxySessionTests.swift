import Foundation
import HTTPTypes
import Testing
import TestServerSupport
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Sessions through a real proxy (scripts/test-proxy.py) on loopback:
/// `http` URLs as absolute-form requests, `https` URLs through `CONNECT`
/// tunnels to a Python TLS server, Basic and Digest authentication, a proxy that
/// refuses `CONNECT`, the no-proxy list and unreachable proxies.
@Suite("UVURLSession through a proxy", .serialized)
struct ProxySessionTests {
    typealias Proxy = UVURLSession.Proxy

    static func configuration(http: Proxy? = nil, https: Proxy? = nil, noProxy: String = "",
                              caFile: String? = nil) -> UVURLSession.Configuration {
        var configuration = UVURLSession.Configuration()
        configuration.proxy = UVURLSession.ProxyConfiguration(http: http, https: https, noProxy: noProxy)
        if let caFile { configuration.tls.trustRoots = .pemFile(caFile) }
        return configuration
    }

    @Test("http: absolute-form requests, one keep-alive connection to the proxy for two origins")
    func httpThroughProxy() throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let first = try TestHTTPServer { request in .text("first \(request.method) \(request.target)") }
        defer { first.shutdown() }
        let second = try TestHTTPServer { _ in .text("second") }
        defer { second.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: Self.configuration(
                http: Proxy(host: "127.0.0.1", port: proxy.port)))
            for index in 0..<3 {
                let outcome = fetch(session.dataTaskPublisher(for: first.url("/a?n=\(index)")), on: loop)
                #expect(outcome?.text == "first GET /a?n=\(index)", "\(String(describing: outcome))")
            }
            let other = fetch(session.dataTaskPublisher(for: second.url("/b")), on: loop)
            #expect(other?.text == "second")
            #expect(session.engine.connectionCount == 1, "one pooled connection to the proxy")
        }
        let requests = proxy.requests()
        #expect(requests.map(\.target) == (0..<3).map { "\(first.baseURL)/a?n=\($0)" } + ["\(second.baseURL)/b"])
        #expect(Set(requests.map(\.connection)) == [1], "all on the proxy's first connection: \(requests)")
        #expect(requests.allSatisfy { !$0.hadAuthorization })
        #expect(first.requests.first?.headerFields[HTTPField.Name("Host")!] == "127.0.0.1:\(first.port)",
                "Host is still sent")
        #expect(first.requests.first?.headerFields[HTTPField.Name("Proxy-Authorization")!] == nil)
    }

    @Test("https: a CONNECT tunnel, TLS verified for the origin, reused for the next requests")
    func httpsThroughTunnel() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let big = pseudoRandomBytes(1024 * 1024 + 3, seed: 21)
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["big.bin": Data(big), "hello.txt": Data("hello through the tunnel".utf8)])
        defer { origin.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: Self.configuration(
                https: Proxy(host: "127.0.0.1", port: proxy.port), caFile: certificates.caFile))
            let large = fetch(session.dataTaskPublisher(for: origin.url("/big.bin")), on: loop)
            #expect(large?.error == nil, "\(String(describing: large?.error))")
            #expect(large?.data == Data(big), "byte for byte")
            for _ in 0..<2 {
                let small = fetch(session.dataTaskPublisher(for: origin.url("/hello.txt")), on: loop)
                #expect(small?.text == "hello through the tunnel")
            }
            #expect(session.engine.connectionCount == 1)
        }
        #expect(proxy.requests() == [TestProxy.Request(connection: 1, method: "CONNECT", target: "localhost:\(origin.port)",
                                                      hadAuthorization: false)])
        #expect(Set(origin.requestClientPorts()).count == 1, "three requests in one tunnel")
    }

    @Test("concurrent requests: at most maximumConnectionsPerHost tunnels per origin, connections per proxy for http")
    func concurrentRequests() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let body = pseudoRandomBytes(64 * 1024, seed: 3)
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["body.bin": Data(body)])
        defer { origin.stop() }
        let plainOrigins = try (0..<3).map { index in try TestHTTPServer { _ in .text("origin \(index)") } }
        defer { plainOrigins.forEach { $0.shutdown() } }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        withRealLoop { loop in
            let through = Proxy(host: "127.0.0.1", port: proxy.port)
            var configuration = Self.configuration(http: through, https: through, caFile: certificates.caFile)
            configuration.maximumConnectionsPerHost = 2
            let session = UVURLSession(loop: loop, configuration: configuration)
            var bodies: [Data] = []
            var completions: [Subscribers.Completion<UVURLError>] = []
            let urls = (0..<6).map { _ in origin.url("/body.bin") } + (0..<6).map { plainOrigins[$0 % 3].url("/") }
            let cancellables = urls.map { url in
                session.dataTaskPublisher(for: url)
                    .sink(receiveCompletion: { completions.append($0) }, receiveValue: { bodies.append($0.data) })
            }
            withExtendedLifetime(cancellables) { _ = loop.run() }
            #expect(completions.count == 12)
            #expect(completions.allSatisfy { $0 == .finished }, "\(completions)")
            #expect(bodies.filter { $0 == Data(body) }.count == 6)
            #expect(session.engine.connectionCount <= 4, "2 tunnels and at most 2 connections for http")
        }
        let requests = proxy.requests()
        let tunnels = requests.filter { $0.method == "CONNECT" }
        #expect(tunnels.count == 2, "\(requests)")
        let forwarded = requests.filter { $0.method == "GET" }
        #expect(forwarded.count == 6)
        #expect(Set(forwarded.map(\.connection)).count <= 2, "http requests for three origins on at most two connections")
    }

    @Test("streamed request bodies through an http proxy: with Content-Length and chunked, every byte arrives")
    func streamedUploadThroughProxy() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: Self.configuration(
                http: Proxy(host: "127.0.0.1", port: proxy.port)))
            let body = ChunkPublisher(totalBytes: 300_007, chunkSize: 40_000)
            let sized = SinkReport(fetch(session.dataTaskPublisher(for: StreamedUploadTests.request(server), bodyPublisher: body,
                                                                   contentLength: body.totalBytes), on: loop))
            #expect(sized?.bytes == body.totalBytes)
            #expect(sized?.crc == body.crc)
            #expect(sized?.framing == "length")
            let chunked = SinkReport(fetch(session.dataTaskPublisher(for: StreamedUploadTests.request(server), bodyPublisher: body),
                                           on: loop))
            #expect(chunked?.bytes == body.totalBytes)
            #expect(chunked?.crc == body.crc)
            #expect(chunked?.framing == "chunked")
        }
        #expect(proxy.requests().map(\.target) == Array(repeating: "http://\(server.authority)/sink", count: 2))
    }

    @Test("https: the certificate is checked against the origin inside the tunnel")
    func tunnelVerifiesOrigin() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["a.txt": Data("a".utf8)])
        defer { origin.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        withRealLoop { loop in
            // System roots only: the test CA is unknown.
            let session = UVURLSession(loop: loop, configuration: Self.configuration(
                https: Proxy(host: "127.0.0.1", port: proxy.port)))
            let outcome = fetch(session.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(outcome?.error?.code == .serverCertificateHasUnknownRoot, "\(String(describing: outcome))")
        }
        #expect(proxy.requests().map(\.method) == ["CONNECT"])
    }

    @Test("proxy authentication: 407 without credentials (an error for CONNECT, a response for http), success with them")
    func authentication() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["a.txt": Data("secret".utf8)])
        defer { origin.stop() }
        let plain = try TestHTTPServer { _ in .text("plain") }
        defer { plain.shutdown() }
        let proxy = try TestProxy(auth: "alice:s3cret")
        defer { proxy.stop() }
        withRealLoop { loop in
            let anonymous = Proxy(host: "127.0.0.1", port: proxy.port)
            let session = UVURLSession(loop: loop, configuration: Self.configuration(
                http: anonymous, https: anonymous, caFile: certificates.caFile))
            let tunnel = fetch(session.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(tunnel?.error?.code == .proxyAuthenticationRequired, "\(String(describing: tunnel))")
            #expect(tunnel?.error?.detail?.contains("407") == true)
            #expect(tunnel?.error?.detail?.contains("no credentials") == true)
            let forwarded = fetch(session.dataTaskPublisher(for: plain.url("/x")), on: loop)
            #expect(forwarded?.status == 407, "the proxy's answer to an http request is a response")
            #expect(forwarded?.response?.headerFields[HTTPField.Name("Proxy-Authenticate")!] == "Basic realm=\"test-proxy\"")

            let wrong = Proxy(host: "127.0.0.1", port: proxy.port, username: "alice", password: "wrong")
            let refused = UVURLSession(loop: loop, configuration: Self.configuration(https: wrong, caFile: certificates.caFile))
            let denied = fetch(refused.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(denied?.error?.code == .proxyAuthenticationRequired)
            #expect(denied?.error?.detail?.contains("credentials refused") == true)

            let right = Proxy(host: "127.0.0.1", port: proxy.port, username: "alice", password: "s3cret")
            let authorized = UVURLSession(loop: loop, configuration: Self.configuration(
                http: right, https: right, caFile: certificates.caFile))
            let secret = fetch(authorized.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(secret?.text == "secret", "\(String(describing: secret))")
            let again = fetch(authorized.dataTaskPublisher(for: plain.url("/y")), on: loop)
            #expect(again?.text == "plain")
        }
        let requests = proxy.requests()
        #expect(requests.map(\.hadAuthorization) == [false, false, true, true, true], "\(requests)")
        #expect(plain.requests.count == 1, "only the authorized request reached the origin")
        #expect(plain.requests.first?.headerFields[HTTPField.Name("Proxy-Authorization")!] == nil,
                "the proxy's credentials stop at the proxy")
    }

    @Test("Digest on CONNECT: the 407 is answered on the same connection; the tunnel opens",
          arguments: ["MD5", "SHA-256"])
    func digestTunnel(algorithm: String) throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["a.txt": Data("secret".utf8)])
        defer { origin.stop() }
        let proxy = try TestProxy(digest: "alice:s3cret", digestAlgorithm: algorithm)
        defer { proxy.stop() }
        withRealLoop { loop in
            let right = Proxy(host: "127.0.0.1", port: proxy.port, username: "alice", password: "s3cret")
            let session = UVURLSession(loop: loop, configuration: Self.configuration(https: right, caFile: certificates.caFile))
            let secret = fetch(session.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(secret?.text == "secret", "\(String(describing: secret))")
        }
        let connect = TestProxy.Request(connection: 1, method: "CONNECT", target: "localhost:\(origin.port)",
                                        hadAuthorization: true)
        #expect(proxy.requests() == [connect, connect], "Basic first, then the Digest answer, on one connection")
    }

    @Test("Digest on CONNECT: a wrong password is refused after one answer; no credentials fail as before")
    func digestTunnelRefused() throws {
        let proxy = try TestProxy(digest: "alice:s3cret", digestAlgorithm: "SHA-256")
        defer { proxy.stop() }
        let url = URL(string: "https://localhost:1/x")!
        withRealLoop { loop in
            let wrong = Proxy(host: "127.0.0.1", port: proxy.port, username: "alice", password: "wrong")
            let refused = UVURLSession(loop: loop, configuration: Self.configuration(https: wrong))
            let denied = fetch(refused.dataTaskPublisher(for: url), on: loop)
            #expect(denied?.error?.code == .proxyAuthenticationRequired)
            #expect(denied?.error?.detail
                    == "CONNECT localhost:1: \(wrong) answered 407 Proxy Authentication Required (credentials refused)",
                    "\(String(describing: denied?.error))")
            #expect(refused.engine.connectionCount == 0, "the refused tunnel is closed")

            let anonymous = Proxy(host: "127.0.0.1", port: proxy.port)
            let session = UVURLSession(loop: loop, configuration: Self.configuration(https: anonymous))
            let tunnel = fetch(session.dataTaskPublisher(for: url), on: loop)
            #expect(tunnel?.error?.code == .proxyAuthenticationRequired)
            #expect(tunnel?.error?.detail
                    == "CONNECT localhost:1: \(anonymous) answered 407 Proxy Authentication Required (no credentials configured)",
                    "\(String(describing: tunnel?.error))")
        }
        let requests = proxy.requests()
        #expect(requests.map(\.connection) == [1, 1, 2], "two CONNECTs with the wrong password, one without: \(requests)")
        #expect(requests.map(\.hadAuthorization) == [true, true, false])
    }

    @Test("Digest on CONNECT: a stale=true 407 after the answer is answered once more with the new nonce")
    func digestTunnelStale() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["a.txt": Data("fresh".utf8)])
        defer { origin.stop() }
        let proxy = try TestProxy(digest: "alice:s3cret", staleOnce: true)
        defer { proxy.stop() }
        withRealLoop { loop in
            let right = Proxy(host: "127.0.0.1", port: proxy.port, username: "alice", password: "s3cret")
            let session = UVURLSession(loop: loop, configuration: Self.configuration(https: right, caFile: certificates.caFile))
            let fresh = fetch(session.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(fresh?.text == "fresh", "\(String(describing: fresh))")
        }
        let requests = proxy.requests()
        #expect(requests.map(\.method) == ["CONNECT", "CONNECT", "CONNECT"], "\(requests)")
        #expect(Set(requests.map(\.connection)) == [1])
    }

    @Test("Digest on a forwarded request: test-proxy.py checks the uri curl and Squid use (the path); answered once",
          arguments: ["MD5", "SHA-256"])
    func digestForwarding(algorithm: String) throws {
        let origin = try TestHTTPServer { request in .text("forwarded \(request.target)") }
        defer { origin.shutdown() }
        let proxy = try TestProxy(digest: "alice:s3cret", digestAlgorithm: algorithm)
        defer { proxy.stop() }
        withRealLoop { loop in
            let right = Proxy(host: "127.0.0.1", port: proxy.port, username: "alice", password: "s3cret")
            let session = UVURLSession(loop: loop, configuration: Self.configuration(http: right))
            let answered = fetch(session.dataTaskPublisher(for: origin.url("/x?a=1")), on: loop)
            #expect(answered?.text == "forwarded /x?a=1", "\(String(describing: answered))")
        }
        let get = TestProxy.Request(connection: 1, method: "GET", target: "http://127.0.0.1:\(origin.port)/x?a=1",
                                    hadAuthorization: true)
        #expect(proxy.requests() == [get, get], "Basic first, then the Digest answer, on one connection")
    }

    @Test("a proxy that refuses CONNECT: .proxyConnectFailed with its status; its body is not a response; the pool recovers")
    func connectRefused() throws {
        let proxy = try TestProxy(refuseConnect: true)
        defer { proxy.stop() }
        let plain = try TestHTTPServer { _ in .text("still fine") }
        defer { plain.shutdown() }
        withRealLoop { loop in
            let through = Proxy(host: "127.0.0.1", port: proxy.port)
            let session = UVURLSession(loop: loop, configuration: Self.configuration(http: through, https: through))
            for _ in 0..<2 {
                let outcome = fetch(session.dataTaskPublisher(for: URL(string: "https://localhost:1/x")!), on: loop)
                #expect(outcome?.error?.code == .proxyConnectFailed, "\(String(describing: outcome))")
                #expect(outcome?.error?.detail?.contains("403 Forbidden") == true, "\(String(describing: outcome?.error))")
            }
            #expect(session.engine.connectionCount == 0, "the refused connections are closed")
            let after = fetch(session.dataTaskPublisher(for: plain.url("/ok")), on: loop)
            #expect(after?.text == "still fine")
        }
    }

    @Test("CONNECT answers that open no tunnel: a 502, a malformed status line, a 2xx with bytes after it, an early close")
    func badConnectAnswers() throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        // TestHTTPServer as a misbehaving proxy: it answers CONNECT like
        // any request.
        let surprising = try TestHTTPServer { _ in .text("not TLS") }
        defer { surprising.shutdown() }
        let malformed = try TestHTTPServer(fault: .malformedStatusLine)
        defer { malformed.shutdown() }
        let closing = try TestHTTPServer(fault: .closeAfterHead)
        defer { closing.shutdown() }
        withRealLoop { loop in
            func outcome(through port: Int) -> UVURLError? {
                let session = UVURLSession(loop: loop, configuration: Self.configuration(
                    https: Proxy(host: "127.0.0.1", port: port)))
                let result = fetch(session.dataTaskPublisher(for: URL(string: "https://localhost:1/x")!), on: loop)
                #expect(session.engine.connectionCount == 0, "the failed tunnel is closed")
                return result?.error
            }
            let gateway = outcome(through: proxy.port)  // the origin refuses: the proxy answers 502
            #expect(gateway?.code == .proxyConnectFailed)
            #expect(gateway?.detail?.contains("answered 502 Bad Gateway") == true, "\(String(describing: gateway))")
            let garbled = outcome(through: malformed.port)
            #expect(garbled?.code == .proxyConnectFailed)
            #expect(garbled?.detail?.contains("malformed answer") == true, "\(String(describing: garbled))")
            let early = outcome(through: surprising.port)
            #expect(early?.code == .proxyConnectFailed)
            #expect(early?.detail?.contains("before the TLS handshake") == true, "\(String(describing: early))")
            let cut = outcome(through: closing.port)
            #expect(cut?.code == .proxyConnectFailed || cut?.code == .secureConnectionFailed, "\(String(describing: cut))")
        }
    }

    @Test("a proxy that never answers CONNECT: the connect timeout covers the tunnel")
    func connectTimeoutCoversTunnel() throws {
        let silent = try TestHTTPServer(fault: .stall)
        defer { silent.shutdown() }
        withRealLoop { loop in
            var configuration = Self.configuration(https: Proxy(host: "127.0.0.1", port: silent.port))
            configuration.connectTimeout = .milliseconds(300)
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: URL(string: "https://localhost:1/x")!), on: loop)
            #expect(outcome?.error?.code == .timedOut)
            #expect(outcome?.error?.timeoutKind == .connect)
        }
        // The server's thread may not have parsed the request yet on a
        // loaded machine: what it did parse is the CONNECT.
        #expect(silent.requests.allSatisfy { $0.description == "CONNECT localhost:1 HTTP/1.1"
                && $0.headerFields[HTTPField.Name("Host")!] == "localhost:1" }, "\(silent.requests)")
    }

    @Test("no-proxy list: a matching host goes direct; redirects are routed afresh")
    func noProxyBypass() throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let direct = try TestHTTPServer { _ in .text("direct") }
        defer { direct.shutdown() }
        // Reached through the proxy (by "localhost"), it redirects to
        // 127.0.0.1, which the list exempts.
        let redirecting = try TestHTTPServer { request in
            request.path == "/go"
                ? TestHTTPServer.Response(status: .found, headerFields: [.location: direct.url("/landed").absoluteString])
                : .notFound
        }
        defer { redirecting.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: Self.configuration(
                http: Proxy(host: "127.0.0.1", port: proxy.port), noProxy: "127.0.0.1"))
            let bypassed = fetch(session.dataTaskPublisher(for: direct.url("/a")), on: loop)
            #expect(bypassed?.text == "direct")
            #expect(proxy.requests().isEmpty)
            let redirected = fetch(session.dataTaskPublisher(
                for: URL(string: "http://localhost:\(redirecting.port)/go")!), on: loop)
            #expect(redirected?.text == "direct", "\(String(describing: redirected))")
        }
        #expect(proxy.requests().map(\.target) == ["http://localhost:\(redirecting.port)/go"],
                "only the first hop went through the proxy")
        #expect(direct.requests.map(\.target) == ["/a", "/landed"])
    }

    @Test("an unreachable proxy: .cannotConnectToProxy; an unknown one: .cannotFindProxyHost")
    func unreachableProxy() throws {
        withRealLoop { loop in
            let closed = Proxy(host: "127.0.0.1", port: 1)
            let session = UVURLSession(loop: loop, configuration: Self.configuration(http: closed, https: closed))
            for url in ["http://example.com/", "https://example.com/"] {
                let outcome = fetch(session.dataTaskPublisher(for: URL(string: url)!), on: loop)
                #expect(outcome?.error?.code == .cannotConnectToProxy, "\(url): \(String(describing: outcome))")
                #expect(outcome?.error?.underlyingErrorName == "UV_ECONNREFUSED")
            }
            let unknown = Proxy(host: "no-such-proxy.invalid", port: 3128)
            let lost = UVURLSession(loop: loop, configuration: Self.configuration(http: unknown))
            let outcome = fetch(lost.dataTaskPublisher(for: URL(string: "http://example.com/")!), on: loop)
            #expect(outcome?.error?.code == .cannotFindProxyHost, "\(String(describing: outcome))")
        }
    }
}

extension Result where Success == (data: Data, response: HTTPResponse), Failure == UVURLError {
    var response: HTTPResponse? {
        if case .success(let value) = self { return value.response }
        return nil
    }
}
