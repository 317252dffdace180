import Foundation
import TestServerSupport

/// `python3 -m http.server` serving a temporary directory on a random
/// loopback port: a server we did not write, for `uvcombine fetch`.
///
/// The port is the one Python reports ("Serving HTTP on 127.0.0.1 port
/// 43215"); the server is ready once a TCP connect succeeds; ``stop()``
/// ends it by PID and removes the directory.
final class PythonHTTPServer {
    let directory: TemporaryDirectory
    let port: Int
    private let server: ServerProcess

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Python serving the directory over https with `certificate` and
    /// `key` (PEM files), Python's `ssl` module in front of `http.server`.
    private static let tlsScript = """
        import http.server, ssl, sys
        directory, certificate, key = sys.argv[1:4]
        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=directory, **kwargs)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        print("Serving HTTPS on 127.0.0.1 port %d" % httpd.server_address[1], flush=True)
        httpd.serve_forever()
        """

    /// Writes `files` (relative path → contents) and starts the server;
    /// with `tls` (certificate and key PEM paths) it serves https.
    init(files: [String: Data], tls: (certificate: String, key: String)? = nil) throws {
        directory = try TemporaryDirectory()
        for (name, contents) in files {
            let file = directory.file(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file)
        }
        guard let python = ServerProcess.executable(named: "python3") else { throw Failure(description: "python3 not found") }
        let arguments = if let tls {
            ["-u", "-c", Self.tlsScript, directory.url.path, tls.certificate, tls.key]
        } else {
            ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.url.path]
        }
        let server = try ServerProcess(executable: python, arguments: arguments)
        self.server = server
        let (found, text) = server.readPort()
        guard let found, Loopback.waitUntilAccepting(port: found) else {
            server.stop()
            throw Failure(description: "python3 -m http.server did not start: \(text)")
        }
        port = found
    }

    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Ends the server by PID (SIGKILL: the child inherits the test
    /// thread's signal mask, in which SIGTERM may be blocked).
    func stop() {
        server.stop()
    }

    deinit {
        stop()
    }
}
