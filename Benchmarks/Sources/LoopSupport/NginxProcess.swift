import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One nginx master process for the workloads, in a temporary prefix
/// under /tmp: what ``NginxServer`` (HTTP/1.1) and HTTP2Support's
/// `H2NginxServer` (three listeners, TLS) share. They give the files to
/// serve and their `server` blocks; this writes them with the common
/// configuration (one worker, keep-alive without a request limit, access
/// log off, sendfile), starts nginx on ports picked free by binding port 0
/// first (nginx cannot listen on port 0 and report the port), waits until
/// every port accepts, and stops it by its PID.
///
/// nginx runs through `setpriv --pdeathsig QUIT` when that exists, so it
/// stops even if this process dies before stopping it (a crash).
///
/// Threading: start and stop from one thread; the properties are
/// immutable.
///
/// ```swift
/// let nginx = NginxProcess.start(label: "NginxServer", portCount: 1,
///                                files: ["/small.txt": Data("hi".utf8)]) { prefix, ports in
///     "server { listen 127.0.0.1:\(ports[0]); root \(prefix)/html; }"
/// }
/// nginx?.stop()
/// ```
public final class NginxProcess: @unchecked Sendable {
    // @unchecked Sendable: immutable after start except `pid`, used by
    // start and stop on the benchmark's one thread.

    /// The temporary prefix (config, files under `html`, logs).
    public let prefix: String
    /// The ports the `server` blocks listen on (127.0.0.1), as given to
    /// them.
    public let ports: [Int]
    /// `nginx -v`'s answer, for the report.
    public let version: String
    /// The master process, until stopped.
    private var pid: pid_t?

    private init(prefix: String, ports: [Int], version: String, pid: pid_t) {
        self.prefix = prefix
        self.ports = ports
        self.version = version
        self.pid = pid
    }

    /// Starts nginx and waits (up to 10 s) until every port accepts; nil
    /// when nginx is missing or did not start, the reason on stderr
    /// prefixed with `label`.
    ///
    /// - Parameters:
    ///   - label: who starts it, for the messages and the prefix's name.
    ///   - portCount: how many free ports the `server` blocks get.
    ///   - files: the files to serve, by path under the root (`html`).
    ///   - prepare: runs in the prefix before nginx starts (a
    ///     certificate); returns an error message, or nil.
    ///   - http: the `http` block's own directives and `server` blocks,
    ///     given the prefix and the ports.
    public static func start(label: String, portCount: Int, files: [String: Data],
                             prepare: (String) -> String? = { _ in nil },
                             http: (_ prefix: String, _ ports: [Int]) -> String) -> NginxProcess? {
        func skip(_ reason: String) -> NginxProcess? {
            FileHandle.standardError.write(Data("\(label): \(reason); its workloads are skipped\n".utf8))
            return nil
        }
        guard let nginx = ChildProcess.executable(named: "nginx") else { return skip("no nginx executable") }
        var template = Array("/tmp/uvcombine-\(label)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("\(label): mkdtemp failed: \(errno)") }
        let prefix = String(cString: made)
        let ports = (0..<portCount).map { _ in Loopback.freePort() }
        do {
            for folder in ["html", "logs", "temp"] {
                try FileManager.default.createDirectory(atPath: "\(prefix)/\(folder)", withIntermediateDirectories: true)
            }
            // Readable by the worker, which may run as another user.
            chmod(prefix, 0o755)
            chmod("\(prefix)/html", 0o755)
            for (path, contents) in files {
                try contents.write(to: URL(fileURLWithPath: prefix + "/html" + path))
            }
            try configuration(prefix: prefix, http: http(prefix, ports))
                .write(toFile: "\(prefix)/nginx.conf", atomically: true, encoding: .utf8)
        } catch {
            fatalError("\(label): writing \(prefix): \(error)")
        }
        if let failure = prepare(prefix) {
            try? FileManager.default.removeItem(atPath: prefix)
            return skip(failure)
        }
        var arguments = [nginx, "-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/logs/error.log"]
        let setpriv = "/usr/bin/setpriv"
        if access(setpriv, X_OK) == 0 { arguments = [setpriv, "--pdeathsig", "QUIT", "--"] + arguments }
        guard let pid = ChildProcess.spawn(arguments) else {
            try? FileManager.default.removeItem(atPath: prefix)
            return skip("\(nginx) did not start")
        }
        let server = NginxProcess(prefix: prefix, ports: ports, version: versionOf(nginx), pid: pid)
        for _ in 0..<1000 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                server.pid = nil
                break
            }
            if ports.allSatisfy({ Loopback.canConnect(port: $0) }) { return server }
            usleep(10_000)
        }
        let log = (try? String(contentsOfFile: "\(prefix)/logs/error.log", encoding: .utf8)) ?? ""
        server.stop()
        return skip("nginx did not listen on \(ports): \(log)")
    }

    /// Stops nginx by its PID (SIGQUIT: the master lets its worker finish
    /// and exit) and removes the prefix. Idempotent.
    public func stop() {
        if let pid {
            self.pid = nil
            kill(pid, SIGQUIT)
            ChildProcess.wait(pid)
        }
        try? FileManager.default.removeItem(atPath: prefix)
    }

    /// The common configuration around the `http` block's own part.
    private static func configuration(prefix: String, http: String) -> String {
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
        \(http)
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
}
