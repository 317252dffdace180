import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One nginx in its own process for the HTTP/2 workloads (issue 33), with
/// three listeners on loopback ports picked free by binding port 0 first:
///
/// - ``h2cPort``: HTTP/2 on cleartext, prior knowledge (`listen … http2`;
///   nginx 1.22 speaks only HTTP/2 there),
/// - ``tlsPort``: TLS with ALPN (`listen … ssl http2`): `h2` or `http/1.1`,
///   a self-signed certificate for 127.0.0.1 made at start-up with
///   `openssl req -x509` (``certificatePath``, the clients' trust root),
/// - ``http1Port``: HTTP/1.1 on cleartext.
///
/// One worker, keep-alive without a request limit (`keepalive_requests`
/// also bounds the requests of an HTTP/2 connection since nginx 1.19.7),
/// up to 128 concurrent streams, access log off, one 100-byte file
/// (``smallPath``), as NginxBenchmarks' nginx serves.
///
/// ``shared`` is nil when `nginx` or `openssl` is missing (the workloads
/// are then skipped). ``stop()`` ends nginx by its PID (SIGQUIT) and
/// removes the prefix; ``shared`` stops at process exit.
///
/// Threading: start and stop from one thread; the properties are
/// immutable.
///
/// ```swift
/// if let nginx = H2NginxServer.shared {
///     let url = nginx.url(.tls)   // https://127.0.0.1:PORT/small.txt
/// }
/// ```
public final class H2NginxServer: @unchecked Sendable {
    // @unchecked Sendable: immutable after start except `pid`, used by
    // start and stop on the benchmark's one thread.

    /// Which listener a URL names.
    public enum Listener: Sendable {
        /// HTTP/2 with prior knowledge on cleartext.
        case h2c
        /// TLS with ALPN (`h2` or `http/1.1`).
        case tls
        /// HTTP/1.1 on cleartext.
        case http1
    }

    /// Bytes of the small file's body.
    public static let smallBodyLength = 100
    /// The small file's path.
    public static let smallPath = "/small.txt"

    /// The server of this process, started on first use; nil when nginx or
    /// openssl is missing, or nginx did not start (the reason went to stderr).
    public static let shared: H2NginxServer? = {
        let server = H2NginxServer.start()
        if server != nil { atexit { H2NginxServer.shared?.stop() } }
        return server
    }()

    /// The cleartext HTTP/2 port (prior knowledge).
    public let h2cPort: Int
    /// The TLS port (ALPN).
    public let tlsPort: Int
    /// The cleartext HTTP/1.1 port.
    public let http1Port: Int
    /// The temporary prefix (config, certificate, files, logs).
    public let prefix: String
    /// The self-signed certificate (PEM) the clients trust.
    public var certificatePath: String { "\(prefix)/cert.pem" }
    private var pid: pid_t?

    private init(h2cPort: Int, tlsPort: Int, http1Port: Int, prefix: String, pid: pid_t) {
        self.h2cPort = h2cPort
        self.tlsPort = tlsPort
        self.http1Port = http1Port
        self.prefix = prefix
        self.pid = pid
    }

    /// The small file's URL on `listener`.
    public func url(_ listener: Listener) -> URL {
        URL(string: urlString(listener))!
    }

    /// The small file's URL on `listener`, as text (for the C client and
    /// AsyncHTTPClient).
    public func urlString(_ listener: Listener) -> String {
        switch listener {
        case .h2c: "http://127.0.0.1:\(h2cPort)\(Self.smallPath)"
        case .tls: "https://127.0.0.1:\(tlsPort)\(Self.smallPath)"
        case .http1: "http://127.0.0.1:\(http1Port)\(Self.smallPath)"
        }
    }

    /// An executable named `name` on the PATH or in the usual folders.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/\(name)" }
            + ["/usr/sbin/\(name)", "/usr/local/sbin/\(name)", "/usr/bin/\(name)"]
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// Starts nginx and waits until every listener accepts; nil when
    /// something is missing or did not start.
    public static func start() -> H2NginxServer? {
        guard let nginx = executable("nginx"), let openssl = executable("openssl") else {
            FileHandle.standardError.write(Data("H2NginxServer: nginx or openssl missing; the HTTP/2 workloads are skipped\n".utf8))
            return nil
        }
        var template = Array("/tmp/uvcombine-h2-nginx-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("H2NginxServer: mkdtemp failed: \(errno)") }
        let prefix = String(cString: made)
        let ports = (freePort(), freePort(), freePort())
        do {
            for folder in ["html", "logs", "temp"] {
                try FileManager.default.createDirectory(atPath: "\(prefix)/\(folder)", withIntermediateDirectories: true)
            }
            chmod(prefix, 0o755)
            chmod("\(prefix)/html", 0o755)
            try Data(repeating: UInt8(ascii: "x"), count: smallBodyLength)
                .write(to: URL(fileURLWithPath: prefix + "/html" + smallPath))
            try configuration(prefix: prefix, ports: ports)
                .write(toFile: "\(prefix)/nginx.conf", atomically: true, encoding: .utf8)
        } catch {
            fatalError("H2NginxServer: writing \(prefix): \(error)")
        }
        let certificate = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                           "-keyout", "\(prefix)/key.pem", "-out", "\(prefix)/cert.pem", "-days", "2",
                           "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        guard let opensslPID = spawn([openssl] + certificate), wait(opensslPID) == 0 else {
            try? FileManager.default.removeItem(atPath: prefix)
            FileHandle.standardError.write(Data("H2NginxServer: openssl req failed; the HTTP/2 workloads are skipped\n".utf8))
            return nil
        }
        // Through `setpriv --pdeathsig QUIT` when it exists: nginx stops
        // even if this process dies first.
        var arguments = [nginx, "-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/logs/error.log"]
        let setpriv = "/usr/bin/setpriv"
        if access(setpriv, X_OK) == 0 { arguments = [setpriv, "--pdeathsig", "QUIT", "--"] + arguments }
        guard let pid = spawn(arguments) else {
            try? FileManager.default.removeItem(atPath: prefix)
            FileHandle.standardError.write(Data("H2NginxServer: \(nginx) did not start; the HTTP/2 workloads are skipped\n".utf8))
            return nil
        }
        let server = H2NginxServer(h2cPort: ports.0, tlsPort: ports.1, http1Port: ports.2, prefix: prefix, pid: pid)
        for _ in 0..<1000 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                server.pid = nil
                break
            }
            if canConnect(port: ports.0) && canConnect(port: ports.1) && canConnect(port: ports.2) { return server }
            usleep(10_000)
        }
        let log = (try? String(contentsOfFile: "\(prefix)/logs/error.log", encoding: .utf8)) ?? ""
        server.stop()
        FileHandle.standardError.write(Data("H2NginxServer: nginx did not listen: \(log); the HTTP/2 workloads are skipped\n".utf8))
        return nil
    }

    /// Stops nginx by its PID (graceful) and removes the prefix. Idempotent.
    public func stop() {
        if let pid {
            self.pid = nil
            kill(pid, SIGQUIT)
            _ = Self.wait(pid)
        }
        try? FileManager.default.removeItem(atPath: prefix)
    }

    private static func configuration(prefix: String, ports: (Int, Int, Int)) -> String {
        """
        worker_processes 1;
        daemon off;
        master_process on;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/logs/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
            sendfile on;
            tcp_nopush on;
            tcp_nodelay on;
            keepalive_timeout 300s;
            keepalive_requests 2000000000;
            http2_max_concurrent_streams 128;
            client_body_temp_path \(prefix)/temp/body;
            proxy_temp_path \(prefix)/temp/proxy;
            fastcgi_temp_path \(prefix)/temp/fastcgi;
            uwsgi_temp_path \(prefix)/temp/uwsgi;
            scgi_temp_path \(prefix)/temp/scgi;
            types { text/plain txt; }
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(ports.0) http2;
                root \(prefix)/html;
            }
            server {
                listen 127.0.0.1:\(ports.1) ssl http2;
                ssl_certificate \(prefix)/cert.pem;
                ssl_certificate_key \(prefix)/key.pem;
                root \(prefix)/html;
            }
            server {
                listen 127.0.0.1:\(ports.2);
                root \(prefix)/html;
            }
        }

        """
    }

    /// posix_spawn with the standard streams on /dev/null (Foundation's
    /// Process fails under valgrind, where HTTP2Profile runs).
    private static func spawn(_ arguments: [String]) -> pid_t? {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid = pid_t()
        return posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 ? pid : nil
    }

    /// Waits for `pid`; its exit status.
    private static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }

    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0, "socket")
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0, "bind: \(errno)")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
