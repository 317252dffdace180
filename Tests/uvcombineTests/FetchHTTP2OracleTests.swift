import Foundation
import Testing

/// `uvcombine fetch --http2`, `--http2-prior-knowledge`, `--http1.1` and
/// `-w '%{http_version}'` against curl 7.88 (built with nghttp2) on the
/// same nginx: h2c with prior knowledge, h2 by ALPN on TLS, HTTP/1.1 on
/// the plain listener (issue 33).
@Suite("uvcombine fetch over HTTP/2 against curl as the oracle", .serialized,
       .enabled(if: curlExecutable != nil && NginxServer.executable != nil, "curl or nginx is not installed"))
struct FetchHTTP2OracleTests {
    @Test func httpVersions() async throws {
        let certificate = try await FetchTLSTests.SelfSigned()
        let text = Data(String(repeating: "nginx serves this line over HTTP/2.\n", count: 400).utf8)
        let server = try await NginxServer(files: ["text.txt": text, "data.bin": Data(testBytes(200_000, seed: 5))],
                                           tls: (certificate.certificate, certificate.key), http2: true)
        defer { server.stop() }
        let h2c = "http://127.0.0.1:\(server.h2cPort!)"
        let https = "https://localhost:\(server.tlsPort!)"
        let version = ["-w", "%{http_version} %{http_code}\\n"]
        for arguments in [
            ["-s", "--http2-prior-knowledge"] + version + [h2c + "/text.txt"],
            ["-s", "--http2-prior-knowledge", "-o", "/dev/null"] + version + [h2c + "/data.bin"],
            ["-s", "--http2-prior-knowledge", "--compressed", h2c + "/text.txt"],
            ["-s", "--http2-prior-knowledge"] + version + [h2c + "/absent"],
            ["-s", "--cacert", certificate.certificate, "-o", "/dev/null"] + version + [https + "/data.bin"],
            ["-s", "--http2", "--cacert", certificate.certificate] + version + [https + "/text.txt"],
            ["-s", "--http1.1", "--cacert", certificate.certificate, "-o", "/dev/null"] + version + [https + "/data.bin"],
            ["-s", "--http2", "-o", "/dev/null"] + version + [server.url("/data.bin")],
            ["-s", "--http1.1"] + version + [server.url("/text.txt")],
            ["-sk", "--http2-prior-knowledge", "-o", "/dev/null"] + version + [https + "/data.bin"],
            // Heads as curl prints HTTP/2 ones ("HTTP/2 200 ", fields as received).
            ["-si", "--http2-prior-knowledge", h2c + "/text.txt"],
            ["-sI", "--cacert", certificate.certificate, https + "/data.bin"],
            ["-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{size_download} %{size_header}\\n", h2c + "/data.bin"],
        ] {
            try await FetchCurlOracleTests.expectSame(arguments, ignoringDates: true)
        }
    }
}
