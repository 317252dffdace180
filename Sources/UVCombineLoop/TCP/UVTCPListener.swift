import CLibUV
import UVCombineCore

extension UVTCP {
    /// Listens for TCP connections on `host` and `port` and hands each
    /// accepted connection to `accept`, on the loop thread.
    ///
    /// - `host` is a numeric IPv4 or IPv6 address (`127.0.0.1`, `::1`,
    ///   `0.0.0.0`, `::`), or `localhost` for `127.0.0.1`.
    /// - Port 0 picks a free port: read it from ``UVTCPListener/port``.
    /// - `accept` owns each connection: set its handler and request reads,
    ///   or close it. A connection nobody closes stays open until its peer
    ///   ends it or the loop closes. Accepted connections use `options`
    ///   (read buffer size, high-water mark, `TCP_NODELAY`).
    ///
    /// Throws ``UVTCPError/Kind/invalidArgument`` for a host that is not an
    /// address or a port outside `0...65535`, and
    /// ``UVTCPError/Kind/listenFailed`` when binding or listening fails
    /// (`UV_EADDRINUSE`, `UV_EACCES`, ...).
    ///
    /// Call it on the loop's thread, or before the loop first ran. The
    /// listener keeps listening until ``UVTCPListener/close()`` (or until the
    /// loop closes), and keeps `run()` running meanwhile.
    ///
    /// ```swift
    /// let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
    ///     connection.write(Array("hello\n".utf8))
    ///     connection.close()
    /// }
    /// print("listening on \(listener.address)")
    /// ```
    public static func listen(host: String = "127.0.0.1", port: Int = 0, backlog: Int = 511, on loop: UVLoop,
                              options: Options = Options(),
                              accept: @escaping (UVTCPConnection) -> Void) throws(UVTCPError) -> UVTCPListener
    {
        loop.preconditionLoopConfined("UVTCP.listen")
        if loop.isClosed { violation("UVTCP.listen: the loop is closed") }
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard (0...65535).contains(port), let address = SocketAddress(numericHost: literal, port: port) else {
            throw UVTCPError(.invalidArgument, code: UV_EINVAL.rawValue)
        }
        let socket = TCPSocket(loop: loop)
        socket.open()
        var status = address.withSockaddr { uv_tcp_bind(socket.tcp, $0, 0) }
        if status == 0 {
            status = uv_listen(socket.stream, Int32(clamping: backlog)) { server, status in
                guard let server, let listener = TCPSocket.of(server).listener else { return }
                listener.incoming(status: status)
            }
        }
        guard status == 0, let bound = socket.localAddress?.address else {
            socket.closeHandle()
            throw UVTCPError(.listenFailed, code: status == 0 ? UV_EINVAL.rawValue : status)
        }
        let listener = UVTCPListener(socket: socket, address: bound, options: options, accept: accept)
        socket.listener = listener
        return listener
    }
}

/// A listening TCP socket from ``UVTCP/listen(host:port:backlog:on:options:accept:)``.
///
/// Threading: ``close()`` and the `let` properties from any thread;
/// ``isClosed`` on the loop thread. The accept closure runs on the loop
/// thread.
///
/// ```swift
/// let listener = try UVTCP.listen(port: 0, on: loop) { $0.close() }
/// print(listener.port) // e.g. "40123"
/// listener.close()
/// ```
public final class UVTCPListener: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the mutable state is loop-confined; `close()`
    // hops to the loop thread.

    /// The loop that accepts connections.
    public let loop: UVLoop
    /// The address the socket is bound to, with the port the kernel picked
    /// for port 0.
    public let address: UVTCPAddress
    internal let socket: TCPSocket
    internal let options: UVTCP.Options

    // MARK: Loop thread only

    internal var accept: ((UVTCPConnection) -> Void)?
    internal var closed = false
    /// Accept errors the listener skipped (`UV_EMFILE`, ...). For tests.
    package private(set) var acceptErrorCount = 0

    internal init(socket: TCPSocket, address: UVTCPAddress, options: UVTCP.Options,
                  accept: @escaping (UVTCPConnection) -> Void) {
        loop = socket.loop
        self.socket = socket
        self.address = address
        self.options = options
        self.accept = accept
    }

    /// The bound port.
    public var port: Int { address.port }

    /// `UVTCPListener(127.0.0.1:40123)`.
    public var description: String { "UVTCPListener(\(address))" }

    /// Whether the listener keeps ``UVLoop/run(_:)`` running (libuv's
    /// `uv_ref`); `true` by default. A server that should not hold a
    /// program open on its own (a test server on the client's loop) sets it
    /// to `false`. Loop thread, or before the loop first ran.
    ///
    /// ```swift
    /// listener.keepsLoopAlive = false
    /// ```
    public var keepsLoopAlive: Bool {
        get {
            loop.preconditionLoopConfined("UVTCPListener.keepsLoopAlive")
            return !closed && uv_has_ref(socket.handle) != 0
        }
        set {
            loop.preconditionLoopConfined("UVTCPListener.keepsLoopAlive")
            guard !closed else { return }
            if newValue { uv_ref(socket.handle) } else { uv_unref(socket.handle) }
        }
    }

    /// Whether ``close()`` took effect. Loop thread.
    public var isClosed: Bool {
        loop.preconditionLoopConfined("UVTCPListener.isClosed")
        return closed
    }

    /// Stops listening: the socket closes (new connections are refused),
    /// the accept closure is released. Connections already accepted stay
    /// open. Idempotent.
    ///
    /// Any thread: on the loop thread (or before the loop first ran) it acts
    /// at once, otherwise in the loop's next iteration.
    ///
    /// ```swift
    /// listener.close()
    /// ```
    public func close() {
        if loop.isLoopConfinedContext {
            closeNow()
        } else {
            loop.schedule { self.closeNow() }
        }
    }

    internal func closeNow() {
        guard !closed else { return }
        closed = true
        let accept = self.accept
        self.accept = nil
        socket.closeHandle()
        _ = accept
    }

    internal func incoming(status: Int32) {
        guard !closed else { return }
        guard status == 0 else {
            acceptErrorCount += 1
            return
        }
        let client = TCPSocket(loop: loop)
        client.open()
        guard uv_accept(socket.stream, client.stream) == 0 else {
            acceptErrorCount += 1
            client.closeHandle()
            return
        }
        let connection = UVTCPConnection(socket: client, options: options)
        accept?(connection)
    }

    /// The loop is closing. Loop thread.
    internal func loopWillClose() {
        closeNow()
    }

    internal func socketDidClose() {}
}
