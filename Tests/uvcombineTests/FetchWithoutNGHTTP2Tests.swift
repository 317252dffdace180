import Foundation
import Testing

/// libnghttp2 is loaded at the first connection that may speak HTTP/2
/// (issue 30), so a system without it runs everything but HTTP/2: the tool
/// runs with `LD_LIBRARY_PATH` naming a directory whose `libnghttp2.so.14`
/// is not a library (the loader searches it first, and fails), against
/// nginx serving h2c and h2.
@Suite("uvcombine fetch without libnghttp2", .serialized,
       .enabled(if: NginxServer.executable != nil, "nginx is not installed"))
struct FetchWithoutNGHTTP2Tests {
    /// The test process's environment, less proxies, with `LD_LIBRARY_PATH`
    /// naming a directory that holds a broken libnghttp2.so.14.
    static func environment(brokenLibraryIn directory: TemporaryDirectory) throws -> [String: String] {
        let library = directory.url.appendingPathComponent("libnghttp2.so.14")
        try Data("not a library\n".utf8).write(to: library)
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            !["http_proxy", "https_proxy", "all_proxy", "no_proxy"].contains(name.lowercased())
        }
        environment["LD_LIBRARY_PATH"] = directory.url.path
        return environment
    }

    @Test("the tool does not need libnghttp2 at start-up")
    func notNeeded() async throws {
        let dynamic = try await runProcess(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", toolURL().path])
        #expect(dynamic.status == 0)
        #expect(!dynamic.output.contains("libnghttp2"), "\(dynamic.output)")
    }

    @Test("h2c with prior knowledge fails with invalidRequest naming the loader's reason; https falls back to HTTP/1.1")
    func withoutTheLibrary() async throws {
        let certificate = try await FetchTLSTests.SelfSigned()
        let text = Data(String(repeating: "served over HTTP/1.1 when HTTP/2 cannot load.\n", count: 50).utf8)
        let server = try await NginxServer(files: ["text.txt": text], tls: (certificate.certificate, certificate.key),
                                           http2: true)
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let environment = try Self.environment(brokenLibraryIn: directory)
        let library = directory.url.appendingPathComponent("libnghttp2.so.14").path

        let h2c = try await runProcess(toolURL(), ["fetch", "-sS", "--http2-prior-knowledge",
                                                    "http://127.0.0.1:\(server.h2cPort!)/text.txt"],
                                       environment: environment)
        #expect(h2c.status == 43)
        #expect(h2c.stdout.isEmpty)
        // glibc's loader says "file too short" of a file that is no ELF object.
        #expect(h2c.stderr == "uvcombine fetch: (43) UVURLError.invalidRequest: invalid request (HTTP/2: invalid "
                + "HTTP/2 request (cannot load libnghttp2: \(library): file too short))\n", "\(h2c.stderr)")

        // ALPN offers http/1.1 only: nginx answers in HTTP/1.1.
        let https = try await runProcess(toolURL(), ["fetch", "-s", "--http2", "--cacert", certificate.certificate,
                                                     "-w", "%{http_version} %{http_code}\\n",
                                                     "https://localhost:\(server.tlsPort!)/text.txt"],
                                         environment: environment)
        #expect(https.status == 0, "\(https.stderr)")
        #expect(https.output == String(decoding: text, as: UTF8.self) + "1.1 200\n", "\(https.output)")
    }
}
