import Foundation

/// scripts/test-proxy.py on a random loopback port, for both test targets:
/// absolute-form forwarding and `CONNECT` tunnels, optionally requiring
/// Basic or Digest (RFC 7616, MD5 or SHA-256) authentication or refusing
/// every `CONNECT`. Each request it
/// receives is logged with the number of the client connection that
/// carried it (``requests()``); hop-by-hop proxy fields
/// (`Proxy-Authorization`, `Proxy-Connection`) are not forwarded.
///
/// Started with ``ServerProcess``; ready once it printed its port; stopped
/// by PID.
///
/// ```swift
/// let proxy = try TestProxy(auth: "user:secret")
/// defer { proxy.stop() }
/// // ... requests through 127.0.0.1:\(proxy.port) ...
/// #expect(proxy.requests().first?.method == "CONNECT")
/// ```
public final class TestProxy {
    /// One request as the proxy logged it.
    public struct Request: Equatable, CustomStringConvertible {
        /// The client connection's number (1, 2, ... in accept order).
        public let connection: Int
        /// The method (`GET`, `CONNECT`, ...).
        public let method: String
        /// The request target as received (`http://host:port/path`, `host:port`).
        public let target: String
        /// Whether the request carried `Proxy-Authorization`.
        public let hadAuthorization: Bool

        /// A logged request.
        public init(connection: Int, method: String, target: String, hadAuthorization: Bool) {
            self.connection = connection
            self.method = method
            self.target = target
            self.hadAuthorization = hadAuthorization
        }

        /// `<connection> <method> <target> auth=<bool>`.
        public var description: String { "\(connection) \(method) \(target) auth=\(hadAuthorization)" }
    }

    /// Why the proxy did not start.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let server: ServerProcess
    private let directory: URL

    /// The proxy script in the repository.
    public static var script: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/test-proxy.py")
    }

    /// Starts a proxy; `auth` is the `user:password` to require with Basic,
    /// `digest` the one to require with Digest (`digestAlgorithm` `MD5` or
    /// `SHA-256`; its 407 offers Basic too but accepts only Digest).
    /// With `staleOnce` the first right Digest answer gets a 407 with
    /// `stale=true` and a new nonce.
    public init(auth: String? = nil, digest: String? = nil, digestAlgorithm: String = "MD5",
                staleOnce: Bool = false, refuseConnect: Bool = false) throws {
        guard let python = ServerProcess.executable(named: "python3") else {
            throw Failure(description: "python3 not found")
        }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-proxy-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = ["-u", Self.script.path, "--log", directory.appendingPathComponent("requests.log").path]
        if let auth { arguments += ["--auth", auth] }
        if let digest { arguments += ["--digest", digest, "--digest-algorithm", digestAlgorithm] }
        if staleOnce { arguments.append("--stale-once") }
        if refuseConnect { arguments.append("--refuse-connect") }
        server = try ServerProcess(executable: python, arguments: arguments)
        let (found, text) = server.readPort()
        guard let found else {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "the proxy did not report a port: \(text)")
        }
        port = found
    }

    /// `127.0.0.1:<port>`.
    public var address: String { "127.0.0.1:\(port)" }

    /// The requests received so far, in order.
    public func requests() -> [Request] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, let connection = Int(parts[0]) else { return nil }
            return Request(connection: connection, method: String(parts[1]), target: String(parts[2]),
                           hadAuthorization: parts[3] == "auth=yes")
        }
    }

    /// Stops the proxy by PID and removes its directory. Idempotent.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        stop()
    }
}
