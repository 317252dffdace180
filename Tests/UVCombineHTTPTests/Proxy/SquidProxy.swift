import Foundation
import TestServerSupport

/// Squid (Debian's `squid` package, 5.7 on Debian 12) as a process of the
/// test's own, requiring Digest proxy authentication (`digest_file_auth`
/// over a password file, realm `squid`): the real proxy the forwarding and
/// `CONNECT` Digest answers are checked against.
///
/// It runs in the foreground (`squid -N -d 1`) with its configuration,
/// logs and password file in a temporary directory, on 127.0.0.1 and a
/// port picked free (Squid refuses port 0). Ready once it printed
/// `Accepting HTTP Socket connections ... local=127.0.0.1:PORT` on its
/// output; one that lost its port to another process before binding it
/// exits, and is started again on a fresh port. Stopped by PID.
///
/// ```swift
/// guard let squid = try SquidProxy.start(user: "alice", password: "s3cret") else { return } // not installed
/// defer { squid.stop() }
/// ```
final class SquidProxy {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    private let server: ServerProcess
    private let directory: URL

    /// Why Squid did not start.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The squid executable, or nil when it is not installed.
    static var executable: String? {
        ["/usr/sbin/squid", "/usr/local/sbin/squid"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The Digest helper Debian installs with squid.
    static let digestHelper = "/usr/lib/squid/digest_file_auth"

    private init(port: Int, server: ServerProcess, directory: URL) {
        self.port = port
        self.server = server
        self.directory = directory
    }

    /// Starts Squid requiring Digest for `user`; nil when squid or its
    /// Digest helper is not installed.
    static func start(user: String, password: String) throws -> SquidProxy? {
        guard let squid = executable, FileManager.default.isExecutableFile(atPath: digestHelper) else { return nil }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-squid-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Run as root, squid drops to its own user (proxy), which writes
        // the logs and reads the password file.
        chmod(directory.path, 0o777)
        let passwords = directory.appendingPathComponent("passwords")
        try Data("\(user):\(password)\n".utf8).write(to: passwords)
        chmod(passwords.path, 0o644)
        var log = ""
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            let configuration = directory.appendingPathComponent("squid.conf")
            try Data(Self.configuration(port: port, directory: directory.path, passwords: passwords.path).utf8)
                .write(to: configuration)
            // Its log (-d 1) goes to standard error: through the shell, onto
            // the standard output the test reads; `exec` keeps the PID squid's.
            let server = try ServerProcess(executable: "/bin/sh",
                                           arguments: ["-c", "exec \"$0\" -N -d 1 -f \"$1\" 2>&1", squid, configuration.path])
            let (found, text) = server.readPort(matching: #"Accepting HTTP Socket connections .* local=127\.0\.0\.1:(\d+)\s"#)
            if found == port { return SquidProxy(port: port, server: server, directory: directory) }
            server.stop()
            log = text
        }
        try? FileManager.default.removeItem(at: directory)
        throw Failure(description: "squid did not listen on any of 5 ports: \(log)")
    }

    /// `squid.conf`: one port, no cache, Digest required of every request.
    private static func configuration(port: Int, directory: String, passwords: String) -> String {
        """
        http_port 127.0.0.1:\(port)
        pid_filename \(directory)/squid.pid
        cache_log \(directory)/cache.log
        access_log \(directory)/access.log
        coredump_dir \(directory)
        cache deny all
        shutdown_lifetime 0 seconds
        pinger_enable off
        auth_param digest program \(digestHelper) \(passwords)
        auth_param digest children 2
        auth_param digest realm squid
        acl authenticated proxy_auth REQUIRED
        http_access allow authenticated
        http_access deny all

        """
    }

    /// Squid's access log so far: one line per request, with the user name
    /// it authenticated (`-` when none) and its verdict (`TCP_DENIED/407`,
    /// `TCP_MISS/200`, `TCP_TUNNEL/200`).
    func accessLog() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops Squid by PID and removes its directory. Idempotent.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        stop()
    }
}
