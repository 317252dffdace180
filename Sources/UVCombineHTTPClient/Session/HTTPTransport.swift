import UVCombineHTTPCore

/// What a ``UVURLSession`` needs from the world below HTTP: a monotonic
/// clock, one timer, and connections (TCP, or TLS over TCP for `https`). The real implementation runs on a
/// libuv loop (``UVLoopTransport``); tests use an in-memory fake that they
/// drive event by event.
///
/// Contract (both sides run on the session's loop thread only):
/// - No call into the transport or into a connection calls back
///   synchronously: every event (connected, bytes, end of stream, a
///   failure, timer) arrives later, from the loop, as libuv callbacks do.
/// - After ``HTTPConnectionIO/close()`` a connection reports nothing more
///   (a connect or write callback that libuv runs with `UV_ECANCELED`
///   after the close is swallowed by the transport). A connection may
///   close itself after reporting an end or a failure; `close()` is then
///   a no-op.
/// - The timer never keeps the loop alive: the session's deadlines only
///   matter while sockets are busy, and sockets keep the loop alive
///   themselves. It may fire late, never early (an early firing is
///   harmless anyway: the state machines re-arm).
/// - Errors arrive as ``UVURLError`` with the libuv name in
///   `underlyingErrorName`; see docs/http-protocol-core.md for the mapping.
package protocol HTTPTransport: AnyObject {
    /// The current instant on the monotonic clock (`uv_hrtime`).
    var now: HTTPDeadline { get }

    /// Receives the session timer's firings. Not retained by the transport
    /// (its owner, the session engine, sets it and clears it in `deinit`);
    /// a transport holds it `unowned` rather than `weak`, because a weak
    /// reference gives the engine a side table, which makes every retain
    /// and release of it (several per request) take the slow path.
    var timerHandler: (any HTTPTimerHandler)? { get set }

    /// Arms the session's one timer for `deadline`, replacing any earlier
    /// arming.
    func armTimer(at deadline: HTTPDeadline)

    /// Stops the session timer.
    func disarmTimer()

    /// Resolves the key's host and opens a connection to its port: TCP for
    /// `http`, TLS over TCP for `https` (the transport owns the TLS
    /// settings). Reports ``HTTPConnectionHandler/connectionDidConnect()``
    /// (for `https`, once the handshake completed) or
    /// ``HTTPConnectionHandler/connectionDidFailToConnect(_:)`` later. The
    /// transport holds `handler` strongly until the connection closes.
    func connect(to key: ConnectionKey, handler: any HTTPConnectionHandler) -> any HTTPConnectionIO

    /// Closes the timer; the session is shutting down. Connections are
    /// closed one by one before this.
    func shutdown()
}

/// Receives the session timer's firings.
package protocol HTTPTimerHandler: AnyObject {
    /// The armed deadline passed.
    func timerFired()
}

/// One connection (TCP, or TLS over TCP) as the session drives it.
///
/// Reading is demand-driven: bytes arrive only between ``startReading()``
/// and ``stopReading()``, each chunk in a buffer the transport reuses (valid
/// only during the callback: copy what you keep).
package protocol HTTPConnectionIO: AnyObject {
    /// Queues `bytes` for sending. The transport keeps the array (a
    /// reference, not a copy) until the kernel took them; the caller does
    /// not mutate its own copy meanwhile, so no byte is copied. A failed
    /// write is reported by ``HTTPConnectionHandler/connectionDidFail(_:)``,
    /// its completion by ``HTTPConnectionHandler/connectionDidWrite()``.
    func write(_ bytes: [UInt8])

    /// Written bytes the peer has not acknowledged yet, wherever they
    /// wait (here, in libuv, in the kernel's send queue). The session
    /// compares it between idle-timer firings: a change means an upload
    /// progressed even though no write completed (the kernel holds the
    /// tail of the request and the peer reads it slowly). 0 by default.
    var unacknowledgedOutputByteCount: Int { get }

    /// Whether written bytes are still queued (not yet taken by the
    /// kernel). A response that ends while its request is still being
    /// sent leaves the connection unusable for another exchange.
    var hasPendingWrites: Bool { get }

    /// Starts delivering received bytes (and end of stream, read errors).
    /// Idempotent.
    func startReading()

    /// Stops delivering bytes; the kernel's receive buffer then fills and
    /// TCP flow control throttles the peer. Idempotent.
    func stopReading()

    /// Whether this connection keeps the loop running. Idle pooled
    /// connections say false, so a program's `loop.run()` returns when its
    /// work is done even while keep-alive connections stay open.
    func setKeepsLoopAlive(_ keepsAlive: Bool)

    /// Closes the socket (cancelling resolution or connect in progress).
    /// Idempotent; nothing is reported afterwards.
    func close()

    /// Bytes received and held below the session, not delivered yet: TLS
    /// records waiting while the session does not read. For tests; 0 for
    /// plain TCP, which hands every read over at once.
    var bufferedInputByteCount: Int { get }

    /// Asks that the next reads go into `target` (which stays valid until
    /// this is called again with nil, or the connection closes) instead
    /// of the transport's buffer; the reads are then handed over pointing
    /// into it. The engine sets it to the rest of a data task's body
    /// buffer while a body of known length arrives, so the kernel copies
    /// the body into its place (no copy from a read buffer). A transport
    /// that cannot (TLS decrypts into its own buffer) ignores it.
    func setReadTarget(_ target: UnsafeMutableRawBufferPointer?)

    /// How the connection was established (its steps' instants, its
    /// addresses), for the task metrics; read once per connection, once
    /// it is established. Empty by default (ConnectionEstablishment.swift).
    var establishment: ConnectionEstablishment { get }
    /// Whether TLS negotiated `h2` by ALPN (issue 33); false for
    /// cleartext, where HTTP/2 is by prior knowledge only.
    var isHTTP2Negotiated: Bool { get }
}

extension HTTPConnectionHandler {
    /// Ignores write progress.
    package func connectionDidWrite() {}

    /// The same as an end of stream.
    package func connectionDidReachEndOfStreamWithoutCloseNotify() {
        connectionDidReachEndOfStream()
    }
}

extension HTTPConnectionIO {
    /// Reads always go to the transport's own buffer.
    package func setReadTarget(_ target: UnsafeMutableRawBufferPointer?) {}

    /// Nothing is held: every read is handed over at once.
    package var bufferedInputByteCount: Int { 0 }

    /// No ALPN: HTTP/1.1 (or h2c by prior knowledge).
    package var isHTTP2Negotiated: Bool { false }

    /// Not known: no progress is seen but write completions.
    package var unacknowledgedOutputByteCount: Int { 0 }
}

/// Receives one connection's events. All on the loop thread.
package protocol HTTPConnectionHandler: AnyObject {
    /// The connection is established (for TLS: the handshake completed).
    func connectionDidConnect()
    /// Resolution, connect or the TLS handshake failed (`.cannotFindHost`,
    /// `.cannotConnectToHost`, `.secureConnectionFailed`,
    /// `.serverCertificateHasBadDate`, ...).
    func connectionDidFailToConnect(_ error: UVURLError)
    /// Bytes arrived; `bytes` is valid only during the call.
    func connectionDidRead(_ bytes: UnsafeRawBufferPointer)
    /// A write completed: the kernel took all its bytes. The session
    /// counts it as activity for the idle timeout. Does nothing by
    /// default.
    func connectionDidWrite()
    /// The peer closed its side (`UV_EOF`; for TLS, the server's
    /// `close_notify`).
    func connectionDidReachEndOfStream()
    /// TLS only: the TCP stream ended (after the records before it were
    /// delivered) without the server's `close_notify`, so the end itself
    /// is not authenticated: a body delimited by the connection's close
    /// may have been cut. By default the same as
    /// ``connectionDidReachEndOfStream()``.
    func connectionDidReachEndOfStreamWithoutCloseNotify()
    /// Reading or writing failed (`UV_ECONNRESET`, `UV_EPIPE`, ...):
    /// `.networkConnectionLost`; or a TLS record failed: `.tlsProtocolError`.
    func connectionDidFail(_ error: UVURLError)
}
