import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real nginx in its own process for the HTTP workloads: one worker,
/// keep-alive without a request limit, access log off, serving a 100-byte
/// file (`/small.txt`) and a 64 MiB file (`/big.bin`) from a temporary
/// prefix under /tmp, on a loopback port picked free by binding port 0
/// first (nginx cannot listen on port 0 and report the port).
///
/// ``start()`` returns nil when no `nginx` executable is found (the
/// workloads are then skipped). The server runs until ``stop()``, which
/// ends it by its PID (SIGQUIT: nginx lets the worker finish and exit)
/// and removes the prefix; ``shared`` also stops at process exit.
///
/// Threading: start and stop from one thread; the properties are
/// immutable.
///
/// ```swift
/// if let nginx = NginxServer.shared {
///     let url = nginx.url(NginxServer.smallPath)
///     …
/// }
/// ```
public final class NginxServer: @unchecked Sendable {
    // @unchecked Sendable: immutable after init except `pid`, used by
    // start and stop on the benchmark's one thread.

    /// Bytes of the small file's body.
    public static let smallBodyLength = 100
    /// Bytes of the big file's body: 64 MiB.
    public static let bigBodyLength = 64 << 20
    /// The small file's path.
    public static let smallPath = "/small.txt"
    /// The big file's path.
    public static let bigPath = "/big.bin"

    /// The server of this process, started on first use; nil when nginx is
    /// not installed or failed to start (the reason went to stderr).
    public static let shared: NginxServer? = {
        let server = NginxServer.start()
        if server != nil { atexit { NginxServer.shared?.stop() } }
        return server
    }()

    /// The port nginx listens on (127.0.0.1).
    public let port: Int
    /// The temporary prefix (config, files, logs, pid).
    public let prefix: String
    /// `nginx -v`'s answer, for the report.
    public let version: String
    /// The master process, until stopped.
    private var pid: pid_t?

    private init(port: Int, prefix: String, version: String, pid: pid_t) {
        self.port = port
        self.prefix = prefix
        self.version = version
        self.pid = pid
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The request the bare client sends for `path`.
    public func requestBytes(_ path: String) -> [UInt8] {
        Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
    }

    /// The nginx executable: on the PATH or in /usr/sbin; nil when absent.
    public static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/nginx" } + ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// Starts nginx and waits until it accepts connections; nil when
    /// nginx is not installed or did not start.
    public static func start() -> NginxServer? {
        guard let nginx = executable() else {
            FileHandle.standardError.write(Data("NginxServer: no nginx executable; the nginx workloads are skipped\n".utf8))
            return nil
        }
        var template = Array("/tmp/uvcombine-nginx-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("NginxServer: mkdtemp failed: \(errno)") }
        let prefix = String(cString: made)
        let port = freePort()
        do {
            let fm = FileManager.default
            for folder in ["html", "logs", "temp"] {
                try fm.createDirectory(atPath: "\(prefix)/\(folder)", withIntermediateDirectories: true)
            }
            // Readable by the worker, which may run as another user.
            chmod(prefix, 0o755)
            chmod("\(prefix)/html", 0o755)
            try Data(repeating: UInt8(ascii: "x"), count: smallBodyLength).write(to: URL(fileURLWithPath: prefix + "/html" + smallPath))
            try Data((0..<bigBodyLength).map { UInt8(truncatingIfNeeded: $0) }).write(to: URL(fileURLWithPath: prefix + "/html" + bigPath))
            try configuration(prefix: prefix, port: port).write(toFile: "\(prefix)/nginx.conf", atomically: true, encoding: .utf8)
        } catch {
            fatalError("NginxServer: writing \(prefix): \(error)")
        }
        // posix_spawn rather than Foundation's Process, which fails under
        // valgrind (NginxProfile runs there).
        // Through `setpriv --pdeathsig QUIT` when it exists: nginx then
        // stops even if this process dies before stopping it (a crash).
        // Its standard streams go to /dev/null, so that it holds no pipe
        // of ours open.
        var arguments = [nginx, "-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/logs/error.log"]
        let setpriv = "/usr/bin/setpriv"
        if access(setpriv, X_OK) == 0 { arguments = [setpriv, "--pdeathsig", "QUIT", "--"] + arguments }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            try? FileManager.default.removeItem(atPath: prefix)
            FileHandle.standardError.write(Data("NginxServer: \(nginx) did not start: error \(spawned); the nginx workloads are skipped\n".utf8))
            return nil
        }
        let server = NginxServer(port: port, prefix: prefix, version: versionOf(nginx), pid: pid)
        // Wait (up to 10 s) until it accepts.
        for _ in 0..<1000 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                server.pid = nil
                break
            }
            if canConnect(port: port) { return server }
            usleep(10_000)
        }
        let log = (try? String(contentsOfFile: "\(prefix)/logs/error.log", encoding: .utf8)) ?? ""
        server.stop()
        FileHandle.standardError.write(Data("NginxServer: nginx did not listen on \(port): \(log); the nginx workloads are skipped\n".utf8))
        return nil
    }

    /// Stops nginx by its PID (graceful: the master stops its worker) and
    /// removes the prefix. Idempotent.
    public func stop() {
        if let pid {
            self.pid = nil
            kill(pid, SIGQUIT)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(atPath: prefix)
    }

    /// Bytes of a whole response (head and body) to a GET of `path`, read
    /// once with a blocking socket: nginx's heads have a constant length
    /// for a file (dates are fixed-width), so the bare client can count
    /// bytes instead of parsing.
    public func responseLength(_ path: String) -> Int {
        let fd = Self.connectedSocket(port: port)
        precondition(fd >= 0, "NginxServer: cannot connect")
        defer { close(fd) }
        let request = requestBytes(path)
        precondition(request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == request.count, "short write")
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total: Int?
        while total == nil || received.count < total! {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            precondition(count > 0, "NginxServer: the probe's response ended early")
            received += buffer[0..<count]
            if total == nil, let end = Self.headEnd(received) {
                let head = String(decoding: received[0..<end], as: UTF8.self)
                let line = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }!
                total = end + Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))!
            }
        }
        precondition(received.count == total!, "NginxServer: more than one response")
        return total!
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private static func configuration(prefix: String, port: Int) -> String {
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
            client_body_temp_path \(prefix)/temp/body;
            proxy_temp_path \(prefix)/temp/proxy;
            fastcgi_temp_path \(prefix)/temp/fastcgi;
            uwsgi_temp_path \(prefix)/temp/uwsgi;
            scgi_temp_path \(prefix)/temp/scgi;
            types { text/plain txt; application/octet-stream bin; }
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port);
                root \(prefix)/html;
            }
        }

        """
    }

    private static func versionOf(_ nginx: String) -> String {
        guard let pipe = popen("'\(nginx)' -v 2>&1", "r") else { return "nginx" }
        var line = [CChar](repeating: 0, count: 256)
        let text = fgets(&line, Int32(line.count), pipe) != nil ? String(cString: line) : "nginx"
        pclose(pipe)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A loopback port nobody listens on now: bound to port 0, read back,
    /// closed. (Another process could take it before nginx does; nginx
    /// then fails to start and the workloads report it.)
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

    /// A blocking socket connected to 127.0.0.1:`port`, or -1.
    private static func connectedSocket(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = loopback(port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if status != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = connectedSocket(port: port)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}
