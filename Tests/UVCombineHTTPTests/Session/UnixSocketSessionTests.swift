import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// `http+unix://` URL for `path` and `target`.
private func unixURL(_ path: String, _ target: String) -> URL {
    URL(string: "http+unix://\(path.replacingOccurrences(of: "/", with: "%2F"))\(target)")!
}

/// Requests through Unix domain sockets (issue 19): `http+unix://` URLs and
/// `Configuration.unixSocketPath`, against nginx listening on sockets.
@Suite("UVURLSession over Unix domain sockets", .enabled(if: NginxServer.isAvailable, "nginx is not installed"))
struct UnixSocketSessionTests {
    @Test("http+unix:// URLs: the body through the socket, Host: localhost, one pooled connection per socket path")
    func httpUnixURLs() throws {
        let text = compressibleText(200_000)
        let nginx = try NginxServer(files: ["a.txt": Data(text)], unixSockets: 2)
        defer { nginx.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let first = nginx.socketPaths[0]
            let second = nginx.socketPaths[1]
            for _ in 0..<3 {
                let outcome = fetch(session.dataTaskPublisher(for: unixURL(first, "/a.txt")), on: loop)
                #expect((try? outcome?.get())?.data == Data(text), "\(String(describing: outcome?.error))")
            }
            #expect(fetch(session.dataTaskPublisher(for: unixURL(first, "/host")), on: loop)?.text == "localhost\n")
            #expect(session.engine.connectionCount == 1, "one keep-alive connection for the socket")
            #expect(fetch(session.dataTaskPublisher(for: unixURL(second, "/host")), on: loop)?.text == "localhost\n")
            #expect(session.engine.connectionCount == 2, "keyed by socket path")
            // TCP to the same server is a third key.
            #expect(fetch(session.dataTaskPublisher(for: nginx.url("/host")), on: loop)?.text == "127.0.0.1\n")
            #expect(session.engine.connectionCount == 3)
            // The streaming publisher too, and an HTTPRequest with the scheme.
            let request = HTTPRequest(method: .get, scheme: "http+unix",
                                      authority: first.replacingOccurrences(of: "/", with: "%2F"), path: "/a.txt")
            let tracker = PartsTracker()
            session.bytesPublisher(for: request).subscribe(tracker)
            loop.run()
            #expect(tracker.completion == .finished)
            var body = Data()
            for case .body(let part) in tracker.values { body.append(part) }
            #expect(body == Data(text))
            #expect(session.engine.connectionCount == 3)
        }
    }

    @Test("Configuration.unixSocketPath: every request through the socket, Host from the URL")
    func sessionSocketPath() throws {
        let nginx = try NginxServer(files: ["a.txt": Data("through the socket\n".utf8)], unixSockets: 1)
        defer { nginx.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.unixSocketPath = nginx.socketPaths[0]
            let session = UVURLSession(loop: loop, configuration: configuration)
            // `.invalid` never resolves: only the socket can answer.
            #expect(fetch(session.dataTaskPublisher(for: URL(string: "http://api.invalid/a.txt")!), on: loop)?.text
                == "through the socket\n")
            #expect(fetch(session.dataTaskPublisher(for: URL(string: "http://api.invalid:8080/host")!), on: loop)?.text
                == "api.invalid\n")
        }
    }

    @Test("a socket path that does not exist: cannotConnectToHost with UV_ENOENT; the pool serves the next request")
    func missingSocket() throws {
        let nginx = try NginxServer(files: ["a.txt": Data("ok\n".utf8)], unixSockets: 1)
        defer { nginx.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let missing = fetch(session.dataTaskPublisher(for: unixURL("/tmp/uvcombine-none/missing.sock", "/")), on: loop)
            #expect(missing?.error?.code == .cannotConnectToHost)
            #expect(missing?.error?.underlyingErrorName == "UV_ENOENT")
            #expect(missing?.error?.description == "cannot connect to host (connection failed) [UV_ENOENT]")
            let long = fetch(session.dataTaskPublisher(for: unixURL("/tmp/" + String(repeating: "d", count: 120), "/")), on: loop)
            #expect(long?.error?.code == .cannotConnectToHost)
            #expect(long?.error?.underlyingErrorName == "UV_ENAMETOOLONG")
            #expect(fetch(session.dataTaskPublisher(for: unixURL(nginx.socketPaths[0], "/a.txt")), on: loop)?.text == "ok\n")
            #expect(session.engine.connectionCount == 1)

            var configuration = UVURLSession.Configuration()
            configuration.unixSocketPath = "/tmp/uvcombine-none/missing.sock"
            let routed = UVURLSession(loop: loop, configuration: configuration)
            #expect(fetch(routed.dataTaskPublisher(for: URL(string: "http://localhost/")!), on: loop)?.error?.underlyingErrorName
                == "UV_ENOENT")
        }
    }
}

@Suite("UVURLSession: https over a Unix domain socket", .enabled(if: NginxServer.isAvailable, "nginx is not installed"))
struct UnixSocketTLSTests {
    @Test("https+unix:// and unixSocketPath with an https URL: TLS over the socket, verified for localhost")
    func httpsOverUnixSocket() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let nginx = try NginxServer(files: ["a.txt": Data("secret\n".utf8)],
                                    tls: (certificates.localhost, certificates.keyFile))
        defer { nginx.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.tls.trustRoots = .pemFile(certificates.caFile)
            let session = UVURLSession(loop: loop, configuration: configuration)
            let encoded = nginx.tlsSocketPath.replacingOccurrences(of: "/", with: "%2F")
            let outcome = fetch(session.dataTaskPublisher(for: URL(string: "https+unix://\(encoded)/a.txt")!), on: loop)
            #expect(outcome?.text == "secret\n", "\(String(describing: outcome?.error))")

            configuration.unixSocketPath = nginx.tlsSocketPath
            let routed = UVURLSession(loop: loop, configuration: configuration)
            #expect(fetch(routed.dataTaskPublisher(for: URL(string: "https://localhost/a.txt")!), on: loop)?.text == "secret\n")
            // The certificate names localhost, not this host: verified as for TCP.
            let wrong = fetch(routed.dataTaskPublisher(for: URL(string: "https://example.com/a.txt")!), on: loop)
            #expect(wrong?.error?.code == .serverCertificateHostnameMismatch)
        }
    }
}

@Suite("HTTPRequestTarget: http+unix")
struct HTTPRequestTargetUnixTests {
    @Test("http+unix and https+unix: the socket path from the host, Host: localhost, a key per path")
    func parse() throws {
        let target = try HTTPRequestTarget(string: "http+unix://%2Fvar%2Frun%2Fapp%20x.sock/v1/items?limit=2")
        #expect(target.scheme == .http)
        #expect(target.socketPath == "/var/run/app x.sock")
        #expect(target.authority == "localhost")
        #expect(target.target == "/v1/items?limit=2")
        #expect(target.key == ConnectionKey(scheme: .http, host: "localhost", port: 80, socketPath: "/var/run/app x.sock"))
        #expect(target.key != ConnectionKey(scheme: .http, host: "localhost", port: 80))
        #expect(target.description == "http+unix://%2Fvar%2Frun%2Fapp%20x.sock/v1/items?limit=2")
        #expect(target.key.description == "http+unix://%2Fvar%2Frun%2Fapp%20x.sock (localhost:80)")
        let secure = try HTTPRequestTarget(string: "HTTPS+UNIX://%2Ftmp%2Fs.sock")
        #expect(secure.scheme == .https && secure.socketPath == "/tmp/s.sock" && secure.target == "/")
        #expect(try HTTPRequestTarget(string: "http://localhost/").socketPath == nil)
    }

    @Test("refused: no socket path, a bad scheme")
    func refused() {
        #expect(throws: UVURLError(.badURL)) { try HTTPRequestTarget(string: "http+unix:///path") }
        #expect(throws: UVURLError(.unsupportedURL)) { try HTTPRequestTarget(string: "ftp+unix://%2Ftmp%2Fs.sock/") }
    }
}
