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
    // @unchecked Sendable: immutable; NginxProcess is used by start and
    // stop on the benchmark's one thread.

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
    public var port: Int { process.ports[0] }
    /// The temporary prefix (config, files, logs, pid).
    public var prefix: String { process.prefix }
    /// `nginx -v`'s answer, for the report.
    public var version: String { process.version }
    /// The nginx process (NginxProcess.swift: its start, stop and common
    /// configuration).
    private let process: NginxProcess

    private init(process: NginxProcess) {
        self.process = process
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The request the bare client sends for `path`.
    public func requestBytes(_ path: String) -> [UInt8] {
        Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
    }

    /// Starts nginx and waits until it accepts connections; nil when
    /// nginx is not installed or did not start.
    public static func start() -> NginxServer? {
        let files = [
            smallPath: Data(repeating: UInt8(ascii: "x"), count: smallBodyLength),
            bigPath: Data((0..<bigBodyLength).map { UInt8(truncatingIfNeeded: $0) }),
        ]
        let process = NginxProcess.start(label: "NginxServer", portCount: 1, files: files, http: { prefix, ports in
            """
                server {
                    listen 127.0.0.1:\(ports[0]);
                    root \(prefix)/html;
                }
            """
        })
        return process.map(NginxServer.init(process:))
    }

    /// Stops nginx by its PID (graceful: the master stops its worker) and
    /// removes the prefix. Idempotent.
    public func stop() {
        process.stop()
    }

    /// Bytes of a whole response (head and body) to a GET of `path`, read
    /// once with a blocking socket: nginx's heads have a constant length
    /// for a file (dates are fixed-width), so the bare client can count
    /// bytes instead of parsing.
    public func responseLength(_ path: String) -> Int {
        let fd = Loopback.connectedSocket(port: port)
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
}
