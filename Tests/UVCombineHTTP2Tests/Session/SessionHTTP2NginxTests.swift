import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop

/// `UVURLSession` over HTTP/2 against nginx: cleartext with prior
/// knowledge, TLS with ALPN (a self-signed certificate made here), a
/// server reset (RST_STREAM), GOAWAY after `keepalive_requests`,
/// redirects between an HTTP/2 and an HTTP/1.1 origin, timeouts,
/// decompression.
@Suite("UVURLSession over HTTP/2 against nginx", .enabled(if: NginxH2Server.executable != nil, "nginx not installed"))
struct SessionHTTP2NginxTests {
    static let small = patternBytes(1024)
    static let big = patternBytes(256 * 1024)

    @Test("h2c with prior knowledge: 100 concurrent requests on one connection")
    func priorKnowledge() throws {
        let server = try NginxH2Server(files: ["small.bin": Self.small])
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            for index in 0..<100 {
                outcomes.start(index, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            }
            _ = loop.run()
            #expect(outcomes.values.values.filter { if case .success(let v) = $0 { Array(v.data) == Self.small } else { false } }.count == 100,
                    "\(outcomes.errors())")
            #expect(counter.connections == 1)
            #expect(counter.http2Connections == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("RST_STREAM from the server fails that request only, with a typed error")
    func serverReset() throws {
        let server = try NginxH2Server(files: ["small.bin": Self.small], serverDirectives: "location /reset { return 444; }")
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            outcomes.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/reset")))
            outcomes.start(1, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            _ = loop.run()
            let error = outcomes.errors()[0]
            #expect(error?.code == .networkConnectionLost)
            #expect(error?.detail?.hasPrefix("HTTP/2") == true, "\(String(describing: error))")
            #expect(outcomes.bodies()[1] != nil)
            outcomes.start(2, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            _ = loop.run()
            #expect(outcomes.bodies()[2] != nil)
            #expect(counter.connections == 1, "a reset stream leaves its connection alone")
            session.invalidateAndCancel()
        }
    }

    @Test("GOAWAY mid-flight (keepalive_requests 10): refused streams are retried on a new connection, none fails")
    func goAway() throws {
        let server = try NginxH2Server(files: ["small.bin": Self.small], httpDirectives: "keepalive_requests 10;")
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            for index in 0..<30 {
                outcomes.start(index, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            }
            _ = loop.run()
            #expect(outcomes.bodies().count == 30, "\(outcomes.errors())")
            #expect(counter.connections >= 3, "10 requests per connection")
            #expect(counter.http2Connections == counter.connections)
            session.invalidateAndCancel()
        }
    }

    @Test("http2_max_concurrent_streams 1: every request completes on one connection")
    func oneStream() throws {
        let server = try NginxH2Server(files: ["small.bin": Self.small], maxConcurrentStreams: 1)
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            for index in 0..<10 {
                outcomes.start(index, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            }
            _ = loop.run()
            #expect(outcomes.bodies().count == 10, "\(outcomes.errors())")
            #expect(counter.connections == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("a total timeout fails the slow stream; the connection serves the next request")
    func timeout() throws {
        let server = try NginxH2Server(files: ["small.bin": Self.small, "big.bin": Self.big],
                                       serverDirectives: "location /big.bin { limit_rate 4k; }")
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            var options = UVURLSession.RequestOptions()
            options.totalTimeout = .milliseconds(300)
            outcomes.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/big.bin"), options: options))
            _ = loop.run()
            #expect(outcomes.errors()[0]?.code == .timedOut)
            #expect(outcomes.errors()[0]?.timeoutKind == .total)
            outcomes.start(1, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            _ = loop.run()
            #expect(outcomes.bodies()[1] != nil)
            #expect(counter.connections == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("gzip over HTTP/2 is decoded, for data tasks and streaming")
    func decompression() throws {
        let text = Array(String(repeating: "HTTP/2 carries gzip too. ", count: 4000).utf8)
        let server = try NginxH2Server(files: ["text.txt": text],
                                       httpDirectives: "gzip on; gzip_types *; gzip_min_length 0;")
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, _) = makeH2Session(loop)
            let outcomes = Outcomes()
            outcomes.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/text.txt")))
            let held = HeldSubscriber(initial: .unlimited)
            session.bytesPublisher(for: h2Request("127.0.0.1:\(server.port)", "/text.txt")).subscribe(held)
            _ = loop.run()
            guard case .success(let value)? = outcomes.values[0] else {
                Issue.record("\(String(describing: outcomes.values[0]))")
                return
            }
            #expect(value.response.headerFields[.contentEncoding] == "gzip")
            #expect(Array(value.data) == text)
            #expect(held.bodyBytes == text.count)
            session.invalidateAndCancel()
        }
    }
}

/// The same against nginx on TLS: ALPN chooses `h2`; redirects between
/// the HTTP/2 origin and an HTTP/1.1 one.
@Suite("UVURLSession over HTTP/2 on TLS against nginx", .enabled(if: NginxH2Server.executable != nil, "nginx not installed"))
struct SessionHTTP2TLSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost.
    static func makeCertificate() throws -> (directory: URL, certificate: String, key: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-h2tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (directory, certificate, key)
    }

    @Test("ALPN h2 by default (automatic); RequestOptions http1_1 gets HTTP/1.1 on its own connection")
    func alpn() throws {
        let files = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let server = try NginxH2Server(files: ["small.bin": SessionHTTP2NginxTests.small],
                                       tls: (files.certificate, files.key))
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop, version: .automatic) {
                $0.tls.trustRoots = .pemFile(files.certificate)
            }
            let outcomes = Outcomes()
            for index in 0..<20 {
                outcomes.start(index, session.dataTaskPublisher(
                    for: h2Request("127.0.0.1:\(server.port)", "/small.bin", scheme: "https")))
            }
            _ = loop.run()
            #expect(outcomes.bodies().count == 20, "\(outcomes.errors())")
            #expect(counter.connections == 1)
            #expect(counter.http2Connections == 1)
            var options = UVURLSession.RequestOptions()
            options.httpVersion = .http1_1
            outcomes.start(20, session.dataTaskPublisher(
                for: h2Request("127.0.0.1:\(server.port)", "/small.bin", scheme: "https"), options: options))
            _ = loop.run()
            #expect(outcomes.bodies()[20] != nil, "\(outcomes.errors())")
            #expect(counter.connections == 2)
            #expect(counter.http2Connections == 1, "HTTP/1.1 only: ALPN offered http/1.1 alone")
            session.invalidateAndCancel()
        }
    }

    @Test("redirects across origins: h2 (TLS) -> HTTP/1.1 (cleartext) -> h2 again")
    func redirectsAcrossVersions() throws {
        let files = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let server = try NginxH2Server(
            files: ["small.bin": SessionHTTP2NginxTests.small], tls: (files.certificate, files.key),
            serverDirectives: "location /to-h1 { return 302 http://127.0.0.1:EXTRA_PORT/back; }",
            httpDirectives: "server { listen 127.0.0.1:EXTRA_PORT; location /back { return 302 https://127.0.0.1:MAIN_PORT/small.bin; } }")
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop, version: .automatic) {
                $0.tls.trustRoots = .pemFile(files.certificate)
                $0.redirectPolicy.allowsHTTPSToHTTP = true
            }
            let outcomes = Outcomes()
            outcomes.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/to-h1", scheme: "https")))
            _ = loop.run()
            #expect(outcomes.values[0].map { if case .success(let v) = $0 { Array(v.data) == SessionHTTP2NginxTests.small } else { false } } == true,
                    "\(String(describing: outcomes.values[0]))")
            #expect(counter.connections == 2, "the h2 connection is reused for the last hop")
            #expect(counter.http2Connections == 1)
            session.invalidateAndCancel()
        }
    }
}
