import Foundation
import HTTPTypes
import Testing
import TestServerSupport
import UVCombineHTTP
import UVCombineLoop
import UVCombineTesting

/// Digest proxy authentication against Squid itself (SquidProxy.swift;
/// skipped when squid is not installed): a forwarded `http` request, whose
/// answer carries the request's path as `uri` (what curl 7.88 sends with
/// `--proxy-digest`), and a `CONNECT` tunnel, whose answer carries
/// `host:port`. docs/url-session.md, "Proxy authentication", has what
/// Squid and curl were seen to do.
@Suite("UVURLSession through Squid with Digest", .serialized)
struct ProxySquidTests {
    typealias Proxy = UVURLSession.Proxy

    @Test("forwarding: Squid's Digest 407 is answered (uri = the path); a wrong password gets the 407 as the response")
    func forwardingDigest() throws {
        guard let squid = try SquidProxy.start(user: "alice", password: "s3cret") else {
            print("skipped: squid is not installed (apt-get install squid)")
            return
        }
        defer { squid.stop() }
        let origin = try TestHTTPServer { request in .text("through squid \(request.target)") }
        defer { origin.shutdown() }
        withRealLoop { loop in
            let right = Proxy(host: "127.0.0.1", port: squid.port, username: "alice", password: "s3cret")
            let session = UVURLSession(loop: loop, configuration: ProxySessionTests.configuration(http: right))
            let answered = fetch(session.dataTaskPublisher(for: origin.url("/x?a=1")), on: loop)
            #expect(answered?.status == 200, "\(String(describing: answered))")
            #expect(answered?.text == "through squid /x?a=1")

            let wrong = Proxy(host: "127.0.0.1", port: squid.port, username: "alice", password: "wrong")
            let refused = UVURLSession(loop: loop, configuration: ProxySessionTests.configuration(http: wrong))
            let denied = fetch(refused.dataTaskPublisher(for: origin.url("/y")), on: loop)
            #expect(denied?.status == 407, "answered once; the second 407 is the response")
            #expect(denied?.response?.headerFields[HTTPField.Name("Proxy-Authenticate")!]?.hasPrefix("Digest realm=\"squid\"") == true)
        }
        let log = squid.accessLog()
        // Squid logs URLs without their query (strip_query_terms).
        #expect(log.contains { $0.contains("TCP_MISS/200") && $0.contains("/x? alice ") }, "\(log)")
        #expect(!log.contains { $0.contains("/y alice") && $0.contains("/200") }, "\(log)")
        #expect(origin.requests.map(\.target) == ["/x?a=1"], "only the authorized request reached the origin")
    }

    @Test("CONNECT: Squid's Digest 407 is answered on the same connection (uri = host:port); the tunnel opens")
    func tunnelDigest() throws {
        guard let squid = try SquidProxy.start(user: "alice", password: "s3cret") else {
            print("skipped: squid is not installed (apt-get install squid)")
            return
        }
        defer { squid.stop() }
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let origin = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["a.txt": Data("tunnelled".utf8)])
        defer { origin.stop() }
        withRealLoop { loop in
            let right = Proxy(host: "127.0.0.1", port: squid.port, username: "alice", password: "s3cret")
            let session = UVURLSession(loop: loop, configuration: ProxySessionTests.configuration(
                https: right, caFile: certificates.caFile))
            let tunnelled = fetch(session.dataTaskPublisher(for: origin.url("/a.txt")), on: loop)
            #expect(tunnelled?.text == "tunnelled", "\(String(describing: tunnelled))")
        }
        // Squid requires Digest of every request, so the body proves the
        // answer was accepted; the tunnel's own line is logged when Squid
        // notices it closed, which may be after this point.
        let log = squid.accessLog()
        #expect(log.first?.contains("TCP_DENIED/407") == true && log.first?.contains("CONNECT localhost:\(origin.port) - ") == true,
                "\(log)")
    }
}
