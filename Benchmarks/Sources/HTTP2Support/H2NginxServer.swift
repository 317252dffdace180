import Foundation
import LoopSupport

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
    // @unchecked Sendable: immutable; NginxProcess is used by start and
    // stop on the benchmark's one thread.

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
    public var h2cPort: Int { process.ports[0] }
    /// The TLS port (ALPN).
    public var tlsPort: Int { process.ports[1] }
    /// The cleartext HTTP/1.1 port.
    public var http1Port: Int { process.ports[2] }
    /// The temporary prefix (config, certificate, files, logs).
    public var prefix: String { process.prefix }
    /// The self-signed certificate (PEM) the clients trust.
    public var certificatePath: String { "\(prefix)/cert.pem" }
    /// The nginx process (LoopSupport's NginxProcess: its start, stop and
    /// common configuration).
    private let process: NginxProcess

    private init(process: NginxProcess) {
        self.process = process
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

    /// Starts nginx (after making its certificate with `openssl req`) and
    /// waits until every listener accepts; nil when something is missing
    /// or did not start.
    public static func start() -> H2NginxServer? {
        guard let openssl = ChildProcess.executable(named: "openssl") else {
            FileHandle.standardError.write(Data("H2NginxServer: openssl missing; the HTTP/2 workloads are skipped\n".utf8))
            return nil
        }
        let files = [smallPath: Data(repeating: UInt8(ascii: "x"), count: smallBodyLength)]
        let process = NginxProcess.start(label: "H2NginxServer", portCount: 3, files: files, prepare: { prefix in
            let certificate = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                               "-keyout", "\(prefix)/key.pem", "-out", "\(prefix)/cert.pem", "-days", "2",
                               "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
            guard let pid = ChildProcess.spawn([openssl] + certificate), ChildProcess.wait(pid) == 0 else {
                return "openssl req failed"
            }
            return nil
        }, http: { prefix, ports in
            """
                http2_max_concurrent_streams 128;
                server {
                    listen 127.0.0.1:\(ports[0]) http2;
                    root \(prefix)/html;
                }
                server {
                    listen 127.0.0.1:\(ports[1]) ssl http2;
                    ssl_certificate \(prefix)/cert.pem;
                    ssl_certificate_key \(prefix)/key.pem;
                    root \(prefix)/html;
                }
                server {
                    listen 127.0.0.1:\(ports[2]);
                    root \(prefix)/html;
                }
            """
        })
        return process.map(H2NginxServer.init(process:))
    }

    /// Stops nginx by its PID (graceful) and removes the prefix. Idempotent.
    public func stop() {
        process.stop()
    }
}
