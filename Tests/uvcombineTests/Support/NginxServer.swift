import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
    private let process: Process

    /// Writes `files` under `www/` (paths may contain `/`) and starts nginx.
    init(files: [String: Data], tls: (certificate: String, key: String)? = nil) throws {
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
        let hash = try runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), ["passwd", "-apr1", "-salt", "oracle", "secret"])
        try Data("user:\(hash.output.trimmingCharacters(in: .whitespacesAndNewlines))\n".utf8).write(to: directory.file("htpasswd"))

        port = try Self.freePort()
        tlsPort = tls == nil ? nil : try Self.freePort()
        let prefix = directory.url.path
        var tlsServer = ""
        if let tls, let tlsPort {
            tlsServer = """
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
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
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-p", prefix, "-e", directory.file("error.log").path, "-c", directory.file("nginx.conf").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard Self.waitUntilAccepting(port: port) && (tlsPort.map(Self.waitUntilAccepting(port:)) ?? true) else {
            stop()
            let log = (try? String(contentsOf: directory.file("error.log"), encoding: .utf8)) ?? ""
            throw PythonHTTPServer.Failure(description: "nginx did not start: \(log)")
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The Unix domain socket the plain server also listens on.
    var socketPath: String { directory.file("nginx.sock").path }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// A loopback port nobody listens on right now (bound, then closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw PythonHTTPServer.Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func waitUntilAccepting(port: Int) -> Bool {
        for _ in 0..<500 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if status == 0 { return true }
            usleep(10_000)
        }
        return false
    }
}
