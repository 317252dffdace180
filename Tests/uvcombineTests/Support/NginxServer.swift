import Foundation
import TestServerSupport

/// nginx (when installed) in the foreground as one process, with its own
/// prefix in a temporary directory, on a free loopback port: static files
/// from `www/`, `/private/` behind basic auth (`user:secret`), gzip on for
/// text, and, when given a certificate, https on a second port. Stopped by
/// PID.
final class NginxServer {
    static let executable = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        .map(URL.init(fileURLWithPath:))

    let directory: TemporaryDirectory
    let port: Int
    let tlsPort: Int?
    private let server: ServerProcess

    /// Writes `files` under `www/` (paths may contain `/`) and starts nginx.
    /// A cleartext listener speaking HTTP/2 with prior knowledge (h2c),
    /// when made with `http2: true` (the TLS one then offers `h2` by ALPN).
    private(set) var h2cPort: Int?

    init(files: [String: Data], tls: (certificate: String, key: String)? = nil, http2: Bool = false) async throws {
        guard let executable = Self.executable else { throw PythonHTTPServer.Failure(description: "nginx is not installed") }
        directory = try TemporaryDirectory()
        let root = directory.file("www")
        for (name, contents) in files {
            let file = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("private"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.file("temp"), withIntermediateDirectories: true)
        // user:secret, as `openssl passwd -apr1 -salt oracle secret` prints it.
        let hash = try await runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), ["passwd", "-apr1", "-salt", "oracle", "secret"])
        try Data("user:\(hash.output.trimmingCharacters(in: .whitespacesAndNewlines))\n".utf8).write(to: directory.file("htpasswd"))

        port = try Loopback.freePort()
        tlsPort = tls == nil ? nil : try Loopback.freePort()
        let prefix = directory.url.path
        var tlsServer = ""
        let h2cPort = http2 ? try Loopback.freePort() : nil
        self.h2cPort = h2cPort
        if let h2cPort {
            tlsServer += "server { listen 127.0.0.1:\(h2cPort) http2; root \(prefix)/www; }\n"
        }
        if let tls, let tlsPort {
            tlsServer += """
                server {
                    listen 127.0.0.1:\(tlsPort) ssl\(http2 ? " http2" : "");
                    ssl_certificate \(tls.certificate);
                    ssl_certificate_key \(tls.key);
                    root \(prefix)/www;
                }
                """
        }
        let configuration = """
            daemon off;
            master_process off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(prefix)/temp/body;
                proxy_temp_path \(prefix)/temp/proxy;
                fastcgi_temp_path \(prefix)/temp/fastcgi;
                uwsgi_temp_path \(prefix)/temp/uwsgi;
                scgi_temp_path \(prefix)/temp/scgi;
                types { text/plain txt; text/html html; application/octet-stream bin; }
                server_tokens off;
                gzip on;
                gzip_min_length 1;
                gzip_types text/plain;
                server {
                    listen 127.0.0.1:\(port);
                    listen unix:\(prefix)/nginx.sock;
                    root \(prefix)/www;
                    location /private/ {
                        auth_basic "oracle";
                        auth_basic_user_file \(prefix)/htpasswd;
                    }
                }
                \(tlsServer)
            }
            """
        try Data(configuration.utf8).write(to: directory.file("nginx.conf"))
        let server = try ServerProcess(
            executable: executable.path,
            arguments: ["-p", prefix, "-e", directory.file("error.log").path, "-c", directory.file("nginx.conf").path],
            captureOutput: false
        )
        self.server = server
        guard Loopback.waitUntilAccepting(port: port, attempts: 500),
              tlsPort.map({ Loopback.waitUntilAccepting(port: $0, attempts: 500) }) ?? true
        else {
            stop()
            let log = (try? String(contentsOf: directory.file("error.log"), encoding: .utf8)) ?? ""
            throw PythonHTTPServer.Failure(description: "nginx did not start: \(log)")
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The Unix domain socket the plain server also listens on.
    var socketPath: String { directory.file("nginx.sock").path }

    func stop() {
        server.stop()
    }

    deinit { stop() }
}
