import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The session answering Digest challenges (RFC 7616) of a Python server
/// that checks the answers (DigestTestServer): as an origin, and as a
/// forwarding proxy.
@Suite("UVURLSession authentication")
struct SessionAuthenticationTests {
    func body(_ outcome: Result<(data: Data, response: HTTPResponse), UVURLError>?) -> String {
        outcome?.text ?? "\(String(describing: outcome?.error))"
    }

    @Test("the session's credential answers a 401 once, MD5 and SHA-256; the answered request keeps its body")
    func origin() throws {
        let server = try DigestTestServer()
        defer { server.stop() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.credential = UVURLSession.Credential(username: "user", password: "secret")
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            #expect(body(fetch(session.dataTaskPublisher(for: server.url("/a")), on: loop)) == "ok origin")
            #expect(body(fetch(session.dataTaskPublisher(for: server.url("/a?algorithm=SHA-256")), on: loop)) == "ok origin")
            var post = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/p")
            post.headerFields[.contentType] = "text/plain"
            #expect(body(fetch(session.dataTaskPublisher(for: post, body: Data("body".utf8)), on: loop)) == "ok origin")
        }
        // Two transactions each (the 401, the answer), on one connection.
        let metrics = box.all.withLock { $0 }
        #expect(metrics.map(\.transactionMetrics.count) == [2, 2, 2])
        #expect(metrics.first?.transactionMetrics.map { $0.response?.status.code } == [401, 200])
        #expect(metrics.first?.transactionMetrics.last?.isReusedConnection == true)
        #expect(metrics.last?.transactionMetrics.last?.countOfRequestBodyBytesSent == 4)
    }

    @Test("a wrong password: answered once, then the 401 is the response; no credential: the 401 at once")
    func wrongPasswordAndNone() throws {
        let server = try DigestTestServer()
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.credential = UVURLSession.Credential(username: "user", password: "wrong")
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/a")), on: loop)
            #expect(outcome?.status == 401 && outcome?.text == "challenge")
            let plain = UVURLSession(loop: loop)
            #expect(fetch(plain.dataTaskPublisher(for: server.url("/a")), on: loop)?.status == 401)
        }
    }

    @Test("a request's credential overrides the session's; Basic-only credentials do not answer Digest")
    func perRequest() throws {
        let server = try DigestTestServer()
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.credential = UVURLSession.Credential(username: "user", password: "wrong")
            let session = UVURLSession(loop: loop, configuration: configuration)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/r")
            var options = UVURLSession.RequestOptions()
            options.credential = UVURLSession.Credential(username: "user", password: "secret", schemes: .digest)
            #expect(options.isDefault)
            #expect(body(fetch(session.dataTaskPublisher(for: request, options: options), on: loop)) == "ok origin")
            options.credential = UVURLSession.Credential(username: "user", password: "secret", schemes: .basic)
            #expect(fetch(session.dataTaskPublisher(for: request, options: options), on: loop)?.status == 401)
        }
        #expect("\(UVURLSession.Credential(username: "u", password: "p"))" == "Credential(u, basic digest)")
    }

    @Test("a forwarding proxy's 407 Digest challenge is answered with the proxy's credentials")
    func proxy() throws {
        let server = try DigestTestServer()
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            let proxy = UVURLSession.Proxy(host: "127.0.0.1", port: server.port, username: "user", password: "secret")
            configuration.proxy = UVURLSession.ProxyConfiguration(http: proxy, https: nil, noProxy: "")
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: URL(string: "http://origin.test/x")!), on: loop)
            #expect(body(outcome) == "ok proxy")
            var wrong = configuration
            wrong.proxy = UVURLSession.ProxyConfiguration(
                http: UVURLSession.Proxy(host: "127.0.0.1", port: server.port, username: "user", password: "nope"),
                https: nil, noProxy: "")
            let refused = UVURLSession(loop: loop, configuration: wrong)
            #expect(fetch(refused.dataTaskPublisher(for: URL(string: "http://origin.test/x")!), on: loop)?.status == 407)
        }
    }

    @Test("a stale=true 401 after the Digest answer is answered once more with the new nonce; a second stale one is the response",
          arguments: ["", "&algorithm=SHA-256"])
    func originStale(algorithm: String) throws {
        let server = try DigestTestServer()
        defer { server.stop() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.credential = UVURLSession.Credential(username: "user", password: "secret")
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            let once = fetch(session.dataTaskPublisher(for: server.url("/s?stale=1\(algorithm)")), on: loop)
            #expect(body(once) == "ok origin seen=3")
            let twice = fetch(session.dataTaskPublisher(for: server.url("/s?stale=2\(algorithm)")), on: loop)
            #expect(twice?.status == 401 && twice?.text == "challenge", "as a refused answer: \(body(twice))")
        }
        let metrics = box.all.withLock { $0 }
        #expect(metrics.map { $0.transactionMetrics.map { $0.response?.status.code } } == [[401, 401, 200], [401, 401, 401]])
    }

    @Test("a forwarding proxy's stale=true 407 after the Digest answer is answered once more; a second stale one is the response")
    func proxyStale() throws {
        let server = try DigestTestServer()
        defer { server.stop() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            let proxy = UVURLSession.Proxy(host: "127.0.0.1", port: server.port, username: "user", password: "secret")
            configuration.proxy = UVURLSession.ProxyConfiguration(http: proxy, https: nil, noProxy: "")
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            let once = fetch(session.dataTaskPublisher(for: URL(string: "http://origin.test/x?stale=1")!), on: loop)
            #expect(body(once) == "ok proxy seen=3")
            let twice = fetch(session.dataTaskPublisher(for: URL(string: "http://origin.test/x?stale=2")!), on: loop)
            #expect(twice?.status == 407 && twice?.text == "challenge", "as a refused answer: \(body(twice))")
        }
        let metrics = box.all.withLock { $0 }
        #expect(metrics.map { $0.transactionMetrics.map { $0.response?.status.code } } == [[407, 407, 200], [407, 407, 407]])
    }
}
