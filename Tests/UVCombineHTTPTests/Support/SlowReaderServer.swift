import Foundation
import TestServerSupport

/// A Python HTTP server on a random loopback port that reads request
/// bodies at its own pace, for upload timeouts (issue 17, bug 3). Its
/// receive buffer is small (8 KiB, set on the listening socket so the
/// accepted ones inherit it), so the client's writes progress only as fast
/// as the server reads.
///
/// Modes (``Mode``): read steadily (8 KiB every 10 ms, about 800 KB/s)
/// then answer `200` with the byte count as the body; read the head and
/// then nothing (an upload stall); read the whole body and never answer
/// (a response stall).
///
/// Started with the shared ``ServerProcess``; ready once it printed its
/// port (printed after `listen`); stopped by PID.
final class SlowReaderServer {
    enum Mode: String {
        case steady
        case stallUpload
        case stallResponse
    }

    let port: Int
    private let server: ServerProcess

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(_ mode: Mode) throws {
        guard let python = ServerProcess.executable(named: "python3") else { throw Failure(description: "python3 not found") }
        let server = try ServerProcess(executable: python, arguments: ["-u", "-c", Self.script, mode.rawValue])
        self.server = server
        let (found, text) = server.readPort()
        guard let found else {
            server.stop()
            throw Failure(description: "the slow reader did not report a port: \(text)")
        }
        port = found
    }

    func url(_ path: String = "/upload") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops the server by PID (SIGKILL, as the other test servers).
    func stop() {
        server.stop()
    }

    private static let script = """
        import re, socket, sys, threading, time
        mode = sys.argv[1]
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)

        def serve(connection):
            data = b""
            while b"\\r\\n\\r\\n" not in data:
                chunk = connection.recv(8192)
                if not chunk:
                    return
                data += chunk
            head, body = data.split(b"\\r\\n\\r\\n", 1)
            length = int(re.search(rb"(?i)content-length: *([0-9]+)", head).group(1))
            received = len(body)
            if mode == "stallUpload":
                time.sleep(3600)
            while received < length:
                chunk = connection.recv(min(8192, length - received))
                if not chunk:
                    return
                received += len(chunk)
                if mode == "steady":
                    time.sleep(0.01)
            if mode == "stallResponse":
                time.sleep(3600)
            text = str(received).encode()
            connection.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: %d\\r\\n\\r\\n%s" % (len(text), text))

        print("port", listener.getsockname()[1], flush=True)
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """
}
