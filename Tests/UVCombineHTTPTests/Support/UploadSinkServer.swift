import Foundation
import TestServerSupport

/// A Python HTTP/1.1 server on a random loopback port that reads request
/// bodies of any size as they come (`Content-Length` or chunked), keeping
/// only a running CRC-32 (zlib's), for streamed uploads. Keep-alive; one thread
/// per connection.
///
/// Paths:
/// - `/sink`: reads the body, answers `200` with the body
///   `"<bytes> <crc32> <length|chunked> <connection number>"`.
/// - `/redirect/<code>`: reads the body, answers `<code>` with
///   `Location: /sink`.
/// - `/early`: answers `413` as soon as the head arrived, without reading
///   the body, then closes its side and discards what comes (a lingering
///   close).
/// - `/slow`: as `/sink`, reading 64 KiB every 2 ms.
///
/// Given a certificate and key, it speaks TLS (`https://`).
///
/// Started with the shared ``ServerProcess``; ready once it printed its
/// port; stopped by PID.
final class UploadSinkServer {
    let port: Int
    let scheme: String
    private let server: ServerProcess

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(certificate: String? = nil, key: String? = nil) throws {
        guard let python = ServerProcess.executable(named: "python3") else { throw Failure(description: "python3 not found") }
        scheme = certificate == nil ? "http" : "https"
        let server = try ServerProcess(
            executable: python,
            arguments: ["-u", "-c", Self.script] + (certificate.map { [$0, key!] } ?? [])
        )
        self.server = server
        let (found, text) = server.readPort()
        guard let found else {
            server.stop()
            throw Failure(description: "the upload sink did not report a port: \(text)")
        }
        port = found
    }

    var authority: String { "127.0.0.1:\(port)" }

    func url(_ path: String = "/sink") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// Stops the server by PID (SIGKILL, as the other test servers).
    func stop() {
        server.stop()
    }

    private static let script = """
        import socket, ssl, sys, threading, time, zlib
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        counter = [0]
        lock = threading.Lock()

        class Reader:
            def __init__(self, connection):
                self.connection = connection
                self.buffer = b""
            def fill(self):
                chunk = self.connection.recv(1 << 20)
                if not chunk:
                    raise EOFError()
                self.buffer += chunk
            def line(self):
                while b"\\r\\n" not in self.buffer:
                    self.fill()
                line, self.buffer = self.buffer.split(b"\\r\\n", 1)
                return line
            def take(self, count, digest, slow):
                crc = digest[0]
                while count > 0:
                    if not self.buffer:
                        if slow:
                            time.sleep(0.002)
                            chunk = self.connection.recv(min(count, 65536))
                            if not chunk:
                                raise EOFError()
                            self.buffer = chunk
                        else:
                            self.fill()
                    part = self.buffer[:count]
                    self.buffer = self.buffer[len(part):]
                    crc = zlib.crc32(part, crc)
                    count -= len(part)
                digest[0] = crc

        def respond(connection, status, body, extra=b""):
            connection.sendall(b"HTTP/1.1 %d X\\r\\nContent-Length: %d\\r\\n%s\\r\\n%s" % (status, len(body), extra, body))

        context = None
        if len(sys.argv) > 2:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])

        def serve(connection, number):
            if context is not None:
                try:
                    connection = context.wrap_socket(connection, server_side=True)
                except (OSError, ssl.SSLError):
                    connection.close()
                    return
            reader = Reader(connection)
            try:
                while True:
                    request = reader.line().split(b" ")
                    method, path = request[0], request[1]
                    fields = {}
                    while True:
                        line = reader.line()
                        if not line:
                            break
                        name, value = line.split(b":", 1)
                        fields[name.strip().lower()] = value.strip()
                    if path == b"/early":
                        respond(connection, 413, b"too large", b"Connection: close\\r\\n")
                        # A lingering close, as nginx does: the client
                        # reads the answer before any reset.
                        if context is None:
                            connection.shutdown(socket.SHUT_WR)
                        connection.settimeout(5)
                        while connection.recv(1 << 20):
                            pass
                        connection.close()
                        return
                    digest = [0]
                    slow = path == b"/slow"
                    total = 0
                    if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
                        framing = "chunked"
                        while True:
                            size = int(reader.line().split(b";")[0], 16)
                            if size == 0:
                                while reader.line():
                                    pass
                                break
                            reader.take(size, digest, slow)
                            total += size
                            if reader.line() != b"":
                                raise ValueError("bad chunk end")
                    else:
                        framing = "length"
                        total = int(fields.get(b"content-length", b"0"))
                        reader.take(total, digest, slow)
                    if path.startswith(b"/redirect/"):
                        respond(connection, int(path[10:]), b"", b"Location: /sink\\r\\n")
                    else:
                        respond(connection, 200, b"%d %d %s %d" % (total, digest[0], framing.encode(), number))
            except (EOFError, OSError, ValueError):
                pass
            connection.close()

        print("port", listener.getsockname()[1], flush=True)
        while True:
            connection, _ = listener.accept()
            with lock:
                counter[0] += 1
                number = counter[0]
            threading.Thread(target=serve, args=(connection, number), daemon=True).start()
        """
}
