import Foundation
import TestServerSupport

/// A real TLS server we did not write, on a random loopback port, serving
/// the files of a temporary directory:
///
/// - ``Kind/openSSL(arguments:)``: `openssl s_server -WWW`: HTTP/1.0, one
///   response per connection, ended with `close_notify`; the extra
///   arguments restrict it (`-tls1_2`).
/// - ``Kind/python``: Python's `http.server` behind its `ssl` module, with
///   HTTP/1.1 keep-alive (`protocol_version = "HTTP/1.1"`), one thread per
///   connection; every request is logged with the client's port
///   (``requestClientPorts()``), so a test sees which connection carried
///   it. Python closes connections without `close_notify`.
///
/// Started with the shared ``ServerProcess``; the port is the one the
/// server prints once it listens; stopped by PID.
final class TLSTestServer {
    enum Kind {
        case openSSL(arguments: [String])
        case python
        /// The same Python server without TLS (`http://`), to compare.
        case plainPython
        /// A Python TLS server that answers every request with a body
        /// delimited by the connection's close (`HTTP/1.1 200 OK`,
        /// `Connection: close`, no `Content-Length`): the file named by the
        /// path after its first segment, then `/notify/...` sends
        /// `close_notify` before closing TCP and `/cut/...` closes TCP
        /// without it (a bare FIN, as an attacker on the path could).
        case closeDelimited
    }

    let directory: URL
    let port: Int
    private let isPlain: Bool
    private let server: ServerProcess

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts a server presenting `certificate` (with `key`) that serves
    /// `files` (name → contents).
    init(_ kind: Kind, certificate: String, key: String, files: [String: Data]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-tls-server-\(UUID().uuidString)", isDirectory: true)
        let root = directory.appendingPathComponent("www", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(to: root.appendingPathComponent(name))
        }
        let errors = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)

        if case .plainPython = kind { isPlain = true } else { isPlain = false }
        let program: String
        let arguments: [String]
        let portPattern: String
        switch kind {
        case .openSSL(let extra):
            program = "openssl"
            arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-WWW"] + extra
            // "ACCEPT 127.0.0.1:41003"
            portPattern = #"ACCEPT [0-9.]+:(\d+)\s"#
        case .closeDelimited:
            program = "python3"
            arguments = ["-u", "-c", Self.closeDelimitedServer, certificate, key, root.path]
            portPattern = #"port (\d+)\s"#
        case .python, .plainPython:
            program = "python3"
            arguments = ["-u", "-c", Self.pythonServer, isPlain ? "-" : certificate, key, root.path,
                         directory.appendingPathComponent("requests.log").path]
            // "port 43215"
            portPattern = #"port (\d+)\s"#
        }
        guard let executable = ServerProcess.executable(named: program) else {
            throw Failure(description: "\(program) not found")
        }
        let server = try ServerProcess(executable: executable, arguments: arguments, directory: root,
                                       standardError: try FileHandle(forWritingTo: errors))
        self.server = server

        let (found, text) = server.readPort(matching: portPattern)
        guard let found else {
            server.stop()
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "the TLS server did not report a port: \(text) \(log)")
        }
        port = found
    }

    /// `https://<host>:<port><path>` (`http://` for ``Kind/plainPython``).
    func url(_ path: String, host: String = "localhost") -> URL {
        URL(string: "\(isPlain ? "http" : "https")://\(host):\(port)\(path)")!
    }

    /// The client port of each request served, in order (Python only).
    func requestClientPorts() -> [Int] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            line.contains("\" 200 ") ? Int(line.split(separator: " ")[0]) : nil
        }
    }

    /// Stops the server by PID (SIGKILL: the child inherits the test
    /// thread's signal mask, in which SIGTERM may be blocked) and removes
    /// the directory.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The close-delimited server; arguments: certificate, key, directory.
    private static let closeDelimitedServer = """
        import os, socket, ssl, sys, threading
        certificate, key, root = sys.argv[1:4]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        context.set_alpn_protocols(["http/1.1"])
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)

        def serve(raw):
            try:
                connection = context.wrap_socket(raw, server_side=True)
                request = b""
                while b"\\r\\n\\r\\n" not in request:
                    chunk = connection.recv(4096)
                    if not chunk:
                        return
                    request += chunk
                mode, name = request.split(b" ")[1].decode().strip("/").split("/", 1)
                with open(os.path.join(root, name), "rb") as file:
                    body = file.read()
                connection.sendall(b"HTTP/1.1 200 OK\\r\\nConnection: close\\r\\n\\r\\n" + body)
                if mode == "notify":
                    try:
                        connection.unwrap()  # close_notify (then waits for the client's, or its close)
                    except (OSError, ssl.SSLError):
                        pass
                connection.close()  # Python's close sends no close_notify
            except Exception:
                raw.close()

        print("port", listener.getsockname()[1], flush=True)
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=serve, args=(raw,), daemon=True).start()
        """

    /// Python's file server behind TLS; arguments: certificate (`-` for no
    /// TLS), key, directory, request log.
    private static let pythonServer = """
        import http.server, ssl, sys
        certificate, key, root, log = sys.argv[1:5]

        class Handler(http.server.SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=root, **kwargs)

            def log_message(self, format, *args):
                with open(log, "a") as file:
                    file.write("%d %s\\n" % (self.client_address[1], format % args))

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

        server = Server(("127.0.0.1", 0), Handler)
        if certificate != "-":
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            context.set_alpn_protocols(["http/1.1"])
            # The handshake runs in each connection's thread, not in accept().
            server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        print("port", server.server_address[1], flush=True)
        server.serve_forever()
        """
}
