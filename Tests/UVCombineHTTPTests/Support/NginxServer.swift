import Foundation
import TestServerSupport

/// nginx (`/usr/sbin/nginx`) in the foreground with a temporary prefix,
/// serving `files` from `PREFIX/html` with `gzip on` for `text/plain`, on a
/// free loopback port; for interoperability tests against a server we did
/// not write. With `unixSockets`, it also listens on that many Unix domain
/// sockets in the prefix (``socketPaths``). `/host` answers with the
/// `Host` field it received. Stopped by PID.
final class NginxServer {
    let prefix: URL
    let port: Int
    /// The Unix domain sockets nginx listens on.
    let socketPaths: [String]
    private let server: ServerProcess

    enum Failure: Error, CustomStringConvertible {
        case noNginx
        case notReady(String)

        var description: String {
            switch self {
            case .noNginx: "nginx not found"
            case .notReady(let log): "nginx never accepted a connection: \(log)"
            }
        }
    }

    static let executable = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether nginx is installed (tests that need it are skipped without).
    static var isAvailable: Bool { executable != nil }

    /// With `tls` (a certificate and key file), nginx also serves https on
    /// the Unix domain socket ``tlsSocketPath``.
    init(files: [String: Data], unixSockets: Int = 0, tls: (certificate: String, key: String)? = nil) throws {
        guard let nginx = Self.executable else { throw Failure.noNginx }
        prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-nginx-\(UUID().uuidString)", isDirectory: true)
        let html = prefix.appendingPathComponent("html", isDirectory: true)
        try FileManager.default.createDirectory(at: html, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(to: html.appendingPathComponent(name))
        }
        port = try Loopback.freePort()
        let prefixPath = prefix.path
        socketPaths = (0..<unixSockets).map { "\(prefixPath)/s\($0).sock" }
        let unixListens = socketPaths.map { "listen unix:\($0);" }.joined(separator: " ")
        var tlsServer = ""
        if let tls {
            tlsServer = """
                server {
                    listen unix:\(prefixPath)/tls.sock ssl;
                    ssl_certificate \(tls.certificate);
                    ssl_certificate_key \(tls.key);
                    root \(html.path);
                }
                """
        }
        // As root, workers would switch to `nobody`; one process, no
        // switch.
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/logs/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                types { text/plain txt; application/octet-stream bin; }
                default_type application/octet-stream;
                gzip on;
                gzip_types text/plain;
                gzip_min_length 1;
                keepalive_requests 1000;
                server {
                    listen 127.0.0.1:\(port);
                    \(unixListens)
                    root \(html.path);
                    location = /host { default_type text/plain; return 200 "$host\\n"; }
                }
                \(tlsServer)
            }
            """
        let configurationFile = prefix.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        let server = try ServerProcess(
            executable: nginx,
            arguments: ["-p", prefix.path, "-c", configurationFile.path, "-e", "\(prefix.path)/logs/error.log"],
            captureOutput: false
        )
        self.server = server
        guard Loopback.waitUntilAccepting(port: port, while: server) else {
            let log = (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            stop()
            throw Failure.notReady(log)
        }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The Unix domain socket nginx serves https on (with `tls`).
    var tlsSocketPath: String { prefix.path + "/tls.sock" }

    /// Stops nginx by PID (SIGKILL: the test thread's signal mask may
    /// block SIGTERM in the child) and removes the prefix.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: prefix)
    }
}
