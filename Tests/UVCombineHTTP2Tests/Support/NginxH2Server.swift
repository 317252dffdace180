import Foundation
import TestServerSupport

/// nginx with `http2` on a cleartext listener (h2c with prior knowledge;
/// nginx 1.22 spells it `listen ... http2`), serving files from a
/// temporary prefix, in the foreground, stopped by PID.
final class NginxH2Server {
    let prefix: URL
    let port: Int
    private let server: ServerProcess

    static let executable = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    struct NotReady: Error, CustomStringConvertible {
        let log: String
        var description: String { "nginx never accepted a connection: \(log)" }
    }

    /// A second port, for `extraServer` (a `listen` of its own); 0 without one.
    private(set) var extraPort = 0

    /// `maxConcurrentStreams`: nginx's `http2_max_concurrent_streams`.
    /// `tls`: certificate and key files: the listener speaks TLS with ALPN
    /// (`listen ... ssl http2`). `serverDirectives` go into the server
    /// block, `httpDirectives` into `http` (`EXTRA_PORT` in them becomes
    /// ``extraPort``).
    init(files: [String: [UInt8]], maxConcurrentStreams: Int = 128, tls: (certificate: String, key: String)? = nil,
         serverDirectives: String = "", httpDirectives: String = "") throws {
        guard let nginx = Self.executable else { throw NotReady(log: "nginx not found") }
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-nginx-h2-\(UUID().uuidString)")
        let html = prefix.appendingPathComponent("html")
        try FileManager.default.createDirectory(at: html, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: html.appendingPathComponent(name)) }
        let port = try Loopback.freePort()
        self.port = port
        extraPort = httpDirectives.contains("EXTRA_PORT") || serverDirectives.contains("EXTRA_PORT") ? try Loopback.freePort() : 0
        let listen = tls.map { "listen 127.0.0.1:\(port) ssl http2;\n ssl_certificate \($0.certificate);\n ssl_certificate_key \($0.key);" }
            ?? "listen 127.0.0.1:\(port) http2;"
        let extraHTTP = httpDirectives.replacingOccurrences(of: "EXTRA_PORT", with: String(extraPort))
            .replacingOccurrences(of: "MAIN_PORT", with: String(port)).replacingOccurrences(of: "ROOT", with: html.path)
        let extraServer = serverDirectives.replacingOccurrences(of: "EXTRA_PORT", with: String(extraPort))
            .replacingOccurrences(of: "MAIN_PORT", with: String(port))
        // One process, no user switch (as root, workers would become nobody).
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/logs/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                default_type application/octet-stream;
                http2_max_concurrent_streams \(maxConcurrentStreams);
                \(extraHTTP)
                server {
                    \(listen)
                    root \(html.path);
                    \(extraServer)
                }
            }
            """
        let file = prefix.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: file)
        server = try ServerProcess(executable: nginx,
                                   arguments: ["-p", prefix.path, "-c", file.path, "-e", "\(prefix.path)/logs/error.log"],
                                   captureOutput: false)
        guard Loopback.waitUntilAccepting(port: port, while: server) else {
            let log = (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            stop()
            throw NotReady(log: log)
        }
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: prefix)
    }

    deinit { stop() }
}
