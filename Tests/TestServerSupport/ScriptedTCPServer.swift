import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A TCP server on 127.0.0.1 (a free port) whose first connection is
/// played by a script on a thread of its own, with blocking sockets: for
/// peers no real server is (crafted HTTP/2 frames, floods, interim
/// responses), where the test needs every byte on the wire to be its own.
///
/// Every wait is bounded (accept, read and write time out after
/// `timeout`), so a client that misbehaves fails the test instead of
/// hanging it. ``wait()`` returns once the script has returned and the
/// sockets are closed; the ``ScriptedTCPServer/Connection`` then tells
/// what was read and written and whether the client closed.
///
/// ```swift
/// let server = try ScriptedTCPServer { connection in
///     _ = connection.read { $0.count >= 4 }
///     _ = connection.write(Array("bye\n".utf8))
///     _ = connection.awaitClose()
/// }
/// // ... the client talks to 127.0.0.1:\(server.port) ...
/// let connection = server.wait()
/// #expect(connection?.peerClosed == true)
/// ```
public final class ScriptedTCPServer: @unchecked Sendable {
    /// Why the server did not start.
    public struct Failure: Error, CustomStringConvertible {
        /// The call that failed and its errno.
        public let description: String
    }

    /// One accepted connection, used by the script on the server's thread
    /// and read by the test after ``ScriptedTCPServer/wait()``.
    public final class Connection: @unchecked Sendable {
        /// The socket.
        public let descriptor: Int32
        /// Every byte read from the client, in order.
        public private(set) var received: [UInt8] = []
        /// Bytes written to the client.
        public private(set) var bytesWritten = 0
        /// Whether the client closed (EOF, EPIPE or ECONNRESET), as
        /// opposed to a timeout or a still open connection.
        public private(set) var peerClosed = false

        init(descriptor: Int32) { self.descriptor = descriptor }

        /// Reads what is there (waiting at most the timeout): false at
        /// EOF, reset or timeout.
        public func readMore() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
                return true
            }
            if count == 0 || errno == ECONNRESET || errno == EPIPE { peerClosed = true }
            return false
        }

        /// Reads until `condition` holds for everything received so far:
        /// false when the client closed or went quiet first.
        public func read(until condition: ([UInt8]) -> Bool) -> Bool {
            while !condition(received) {
                guard readMore() else { return false }
            }
            return true
        }

        /// Writes all of `bytes`: false when the client closed (or the
        /// write timed out).
        @discardableResult
        public func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes {
                    send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else {
                    if errno == ECONNRESET || errno == EPIPE { peerClosed = true }
                    return false
                }
                offset += count
                bytesWritten += count
            }
            return true
        }

        /// Writes what `next` returns, again and again, until the client
        /// closes or `limit` bytes were written: true when the client
        /// closed first (what a client that bounds its memory does).
        public func writeUntilClosed(limit: Int, next: () -> [UInt8]) -> Bool {
            while bytesWritten < limit {
                guard write(next()) else { return peerClosed }
            }
            return false
        }

        /// Reads until the client closes: true when it did within the
        /// timeout.
        public func awaitClose() -> Bool {
            while readMore() {}
            return peerClosed
        }
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let timeout: Int
    private let finished = DispatchSemaphore(value: 0)
    private var connection: Connection?
    private var waited = false

    /// Listens, and runs `script` on a thread for the first connection
    /// accepted within `timeout` seconds.
    public init(timeout: Int = 10, script: @escaping @Sendable (Connection) -> Void) throws {
        self.timeout = timeout
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(description: "bind/listen: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            run(script)
            finished.signal()
        }
        thread.start()
    }

    private func run(_ script: (Connection) -> Void) {
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return }
        let descriptor = accept(listener, nil, nil)
        guard descriptor >= 0 else { return }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let accepted = Connection(descriptor: descriptor)
        connection = accepted
        script(accepted)
        close(descriptor)
    }

    /// Waits for the script to return (at most the timeout after the
    /// last byte), closes the listener and returns the connection, nil
    /// when no client connected. Call once, from the test.
    @discardableResult
    public func wait() -> Connection? {
        if !waited {
            finished.wait()
            close(listener)
            waited = true
        }
        return connection
    }

    // The script's thread holds the server until it returned, so this runs
    // after it: only the listener may still be open.
    deinit {
        if !waited { close(listener) }
    }
}
