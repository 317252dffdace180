import Foundation
import Testing
import TestServerSupport
import UVCombineHTTPAuthentication

/// curl 7.88 (`--digest`, `--proxy-digest`) as the oracle: a python3
/// server challenges, curl answers, the server echoes curl's answer, and
/// the authenticator, given curl's client nonce, must produce the same
/// response and parameters.
@Suite("Digest against curl", .enabled(if: ServerProcess.executable(named: "curl") != nil))
struct CurlDigestTests {
    static let script = #"""
        import sys, json, http.server
        routes = json.loads(sys.argv[1])
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                proxy = self.path.startswith('http://')
                path = '/' + self.path.split('/', 3)[3] if proxy else self.path
                name = 'Proxy-Authorization' if proxy else 'Authorization'
                answer = self.headers.get(name)
                if answer is None:
                    self.send_response(407 if proxy else 401)
                    self.send_header('Proxy-Authenticate' if proxy else 'WWW-Authenticate', routes[path])
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                body = answer.encode()
                self.send_response(200)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
        print('port %d ' % server.server_address[1], flush=True)
        server.serve_forever()
        """#

    static let routes: [String: String] = [
        "/md5": #"Digest realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", qop="auth,auth-int", opaque="5ccc069c403ebaf9f0171e9517f40e41""#,
        "/sha256": #"Digest realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", qop="auth", algorithm=SHA-256, opaque="FQhe""#,
        "/md5sess": #"Digest realm="r", nonce="abc", qop="auth", algorithm=MD5-sess"#,
        "/sha256sess": #"Digest realm="r", nonce="abc", qop="auth", algorithm=SHA-256-sess"#,
        "/noqop": #"Digest realm="r", nonce="abc""#,
        "/userhash": #"Digest realm="r", nonce="abc", qop="auth", algorithm=SHA-256, userhash=true"#,
        "/authint": #"Digest realm="r", nonce="abc", qop="auth-int""#,
    ]

    /// Runs curl; its standard output (the echoed answer).
    static func curl(_ arguments: [String]) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uvc-digest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.executable(named: "curl")!)
        // -q first: no ~/.curlrc.
        process.arguments = ["-q", "-s", "-o", output.path] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let (status, _) = try await process.runUntilExit(timeout: 30)
        #expect(status == 0)
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// The parameters of a `Digest ...` answer (the same syntax as a challenge).
    static func parameters(_ answer: String) throws -> [String: String] {
        let parsed = try #require(try AuthenticationChallenge.parse(answer).first)
        #expect(parsed.hasScheme("Digest"))
        return Dictionary(parsed.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Compares curl's answer with ours for the same challenge and cnonce.
    static func compare(curlAnswer: String, challenge: String, target: AuthenticationTarget) throws {
        let theirs = try parameters(curlAnswer)
        let parsed = try DigestChallenge(try #require(try AuthenticationChallenge.parse(challenge).first))
        var digest = DigestAuthenticator(username: "Mufasa", password: "Circle of Life", challenge: parsed)
        let uri = try #require(theirs["uri"])
        let value = digest.authorization(method: "GET", uri: uri, cnonce: theirs["cnonce"] ?? "unused")
        let ours = try parameters(value)
        #expect(ours["response"] == theirs["response"], "\(challenge)\ncurl: \(curlAnswer)\nours: \(value)")
        for key in ["username", "realm", "nonce", "uri", "qop", "nc", "cnonce", "opaque", "userhash"] {
            #expect(ours[key] == theirs[key], "\(key) differs for \(challenge)")
        }
        // curl names the algorithm when the challenge did, as we do.
        #expect(ours["algorithm"].map { $0.lowercased() } == theirs["algorithm"].map { $0.lowercased() })
    }

    @Test("server challenges: MD5, SHA-256, -sess, no qop, userhash, auth-int")
    func server() async throws {
        guard let python = ServerProcess.executable(named: "python3") else { return }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: Self.routes), as: UTF8.self)
        let server = try ServerProcess(executable: python, arguments: ["-u", "-c", Self.script, json])
        defer { server.stop() }
        let port = try #require(server.readPort().port)
        #expect(Loopback.waitUntilAccepting(port: port, while: server))
        for (path, challenge) in Self.routes.sorted(by: { $0.key < $1.key }) {
            let answer = try await Self.curl(["--noproxy", "*", "--digest", "-u", "Mufasa:Circle of Life", "http://127.0.0.1:\(port)\(path)"])
            #expect(answer.hasPrefix("Digest "), "\(path): \(answer)")
            try Self.compare(curlAnswer: answer, challenge: challenge, target: .server)
        }
    }

    @Test("a proxy challenge (407, Proxy-Authenticate) answered with Proxy-Authorization")
    func proxy() async throws {
        guard let python = ServerProcess.executable(named: "python3") else { return }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: Self.routes), as: UTF8.self)
        let server = try ServerProcess(executable: python, arguments: ["-u", "-c", Self.script, json])
        defer { server.stop() }
        let port = try #require(server.readPort().port)
        #expect(Loopback.waitUntilAccepting(port: port, while: server))
        let answer = try await Self.curl(["--proxy-digest", "-U", "Mufasa:Circle of Life", "-x", "http://127.0.0.1:\(port)",
                                          "http://origin.test/sha256"])
        #expect(answer.hasPrefix("Digest "), "proxy: \(answer)")
        try Self.compare(curlAnswer: answer, challenge: Self.routes["/sha256"]!, target: .proxy)
    }
}
