import Foundation
import Testing

/// `uvcombine fetch` over https: Python's `ssl` module in front of
/// `http.server`, with a self-signed certificate made by the `openssl`
/// command line for this run (valid for `localhost` and 127.0.0.1).
@Suite("uvcombine fetch over https")
struct FetchTLSTests {
    static let file = Data(testBytes(256 * 1024 + 5, seed: 11))

    /// A certificate and key in a temporary directory, made by `openssl req`.
    struct SelfSigned {
        let directory: TemporaryDirectory
        var certificate: String { directory.file("cert.pem").path }
        var key: String { directory.file("key.pem").path }

        init() async throws {
            directory = try TemporaryDirectory()
            let openssl = ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
            let result = try await runProcess(URL(fileURLWithPath: openssl ?? "/usr/bin/openssl"), [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-keyout", directory.file("key.pem").path, "-out", directory.file("cert.pem").path,
            ], timeout: 60)
            guard result.status == 0 else { throw PythonHTTPServer.Failure(description: "openssl req: \(result.stderr)") }
        }
    }

    @Test("--cacert: the file arrives byte for byte; the certificate names localhost and 127.0.0.1")
    func customCA() async throws {
        let certificate = try await SelfSigned()
        let python = try PythonHTTPServer(files: ["data.bin": Self.file], tls: (certificate.certificate, certificate.key))
        defer { python.stop() }
        for host in ["localhost", "127.0.0.1"] {
            let output = certificate.directory.file("out-\(host).bin")
            let result = try await runTool(["fetch", "--cacert", certificate.certificate, "-o", output.path,
                                      "https://\(host):\(python.port)/data.bin"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Data(contentsOf: output) == Self.file)
        }
    }

    @Test("without the CA the certificate is refused: exit 60 and the typed error; -k fetches anyway")
    func untrustedThenInsecure() async throws {
        let certificate = try await SelfSigned()
        let python = try PythonHTTPServer(files: ["data.bin": Self.file], tls: (certificate.certificate, certificate.key))
        defer { python.stop() }
        let url = "https://localhost:\(python.port)/data.bin"
        let refused = try await runTool(["fetch", url])
        #expect(refused.status == 60, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("UVURLError.serverCertificate"), "\(refused.stderr)")

        let insecure = try await runTool(["fetch", "-k", url])
        #expect(insecure.status == 0, "\(insecure.stderr)")
        #expect(insecure.stdout == Self.file)
    }

    @Test("--cacert with a missing file: exit 77 as curl's, not a crash")
    func missingCAFile() async throws {
        let certificate = try await SelfSigned()
        let python = try PythonHTTPServer(files: ["data.bin": Self.file], tls: (certificate.certificate, certificate.key))
        defer { python.stop() }
        let result = try await runTool(["fetch", "--cacert", certificate.directory.file("absent.pem").path,
                                  "https://localhost:\(python.port)/data.bin"])
        #expect(result.status == 77)
        #expect(result.stderr.contains("(77) error setting certificate verify locations"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
