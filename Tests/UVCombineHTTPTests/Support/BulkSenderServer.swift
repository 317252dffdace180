import Foundation
import Synchronization
import TestServerSupport

/// A Python HTTP server on a random loopback port that answers every GET
/// with a large `Content-Length` body (byte `i` is `i % 256`), sent with
/// blocking `sendall` calls of 16 KiB from a small send buffer, and
/// reports after each call how many body bytes the kernel took: a client
/// that stops reading stops the server's sends, and ``sentByteCount``
/// stops growing. For backpressure tests.
///
/// Started with the shared ``ServerProcess``; ready once it printed its
/// port (after `listen`); stopped by PID.
final class BulkSenderServer: @unchecked Sendable {
    // @unchecked Sendable: the counter is atomic; the rest is immutable.
    let port: Int
    let bodyLength: Int
    private let server: ServerProcess
    private let sent = SentCounter()
    private let reader: Thread

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(bodyLength: Int) throws {
        guard let python = ServerProcess.executable(named: "python3") else { throw Failure(description: "python3 not found") }
        self.bodyLength = bodyLength
        let server = try ServerProcess(executable: python, arguments: ["-u", "-c", Self.script, String(bodyLength)])
        self.server = server
        let (found, text) = server.readPort()
        guard let found, let handle = server.output else {
            server.stop()
            throw Failure(description: "the bulk sender did not report a port: \(text)")
        }
        port = found
        // "sent N" lines, read on a thread of their own until the pipe closes.
        let counter = sent
        reader = Thread {
            var pending = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    pending = String(pending[pending.index(after: newline)...])
                    if line.hasPrefix("sent "), let value = Int(line.dropFirst(5)) {
                        counter.value.store(value, ordering: .releasing)
                    }
                }
            }
        }
        reader.start()
    }

    /// Body bytes the server's kernel accepted so far (on the current
    /// connection).
    var sentByteCount: Int { sent.value.load(ordering: .acquiring) }

    func url(_ path: String = "/bulk") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops the server by PID (SIGKILL, as the other test servers).
    func stop() {
        server.stop()
    }

    /// Waits until ``sentByteCount`` has not changed for `quiet`, or
    /// `limit` passed; returns the count.
    func waitUntilSendsStop(quiet: Duration = .milliseconds(300), limit: Duration = .seconds(10)) async -> Int {
        let start = ContinuousClock.now
        var last = sentByteCount
        var lastChange = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            try? await Task.sleep(for: .milliseconds(20))
            let now = sentByteCount
            if now != last {
                last = now
                lastChange = ContinuousClock.now
            } else if ContinuousClock.now - lastChange >= quiet {
                break
            }
        }
        return last
    }

    private static let script = """
        import socket, sys, threading
        length = int(sys.argv[1])
        block = bytes(range(256)) * 64
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32768)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        lock = threading.Lock()

        def serve(connection):
            data = b""
            while b"\\r\\n\\r\\n" not in data:
                chunk = connection.recv(8192)
                if not chunk:
                    return
                data += chunk
            connection.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: %d\\r\\n\\r\\n" % length)
            sent = 0
            try:
                while sent < length:
                    piece = block[: min(len(block), length - sent)]
                    connection.sendall(piece)
                    sent += len(piece)
                    with lock:
                        print("sent", sent, flush=True)
            except OSError:
                pass
            connection.close()

        print("port", listener.getsockname()[1], flush=True)
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """
}

/// The bulk sender's progress, shared with its reader thread.
private final class SentCounter: Sendable {
    let value = Atomic<Int>(0)
}
