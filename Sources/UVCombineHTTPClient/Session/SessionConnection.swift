import UVCombineHTTPCore

/// One pooled connection as the session engine keeps it: the transport's
/// socket, the response parser (kept across exchanges so its buffers keep
/// their capacity) and the write buffers.
///
/// The pool state machine decides everything about the connection, and
/// owns which task it carries (`SessionEngine.task(on:)` asks it); this
/// object keeps only what the engine needs to run the pool's actions and
/// forwards the transport's events to the engine.
///
/// Threading: loop thread only.
package final class SessionConnection: DeadlineEntry, HTTPConnectionHandler {
    package let id: ConnectionPoolStateMachine.ConnectionID
    package let key: ConnectionKey
    /// `key.isForwardProxied`, computed once (the request head is then
    /// rewritten for the proxy).
    package let isForwardProxied: Bool
    internal unowned let engine: SessionEngine
    /// The socket; set right after creation (no transport calls back
    /// synchronously, so nothing sees it nil before), nil once closed.
    @exclusivity(unchecked) package var io: (any HTTPConnectionIO)?
    @exclusivity(unchecked) package var parser: HTTPResponseParser
    /// The request bytes; not mutated while a write of them is in flight.
    @exclusivity(unchecked) package var writeBuffer: [UInt8] = []
    /// A streamed request body's chunks, one at a time (a chunk is asked
    /// for once the previous one's write completed, so it is unique again
    /// and reused without copying).
    @exclusivity(unchecked) package var bodyWriteBuffer: [UInt8] = []
    /// The task whose exchange the connection carries: the pool's lease
    /// (the pool owns the link) mirrored here, because every read asks
    /// and two dictionary lookups per read cost about 600 instructions per
    /// request (callgrind, issue 33). Written in two places only: set by
    /// `execute`, cleared by `detach` and `closeConnection`, before the
    /// pool forgets the lease; debug builds check it against the pool
    /// (`SessionEngine.task(on:)`).
    @exclusivity(unchecked) package var task: SessionTask?
    /// Connected (the pending deadline is the idle one, not the connect one).
    @exclusivity(unchecked) package var isEstablished = false
    /// The engine closed it (and let go of ``io``); the transport reports
    /// nothing more. Derived, not stored: who holds the socket says whether
    /// it is open (docs/url-session.md, "Who owns what").
    package var isClosed: Bool { io == nil }
    /// Whether reading is started.
    @exclusivity(unchecked) package var isReading = false
    /// The transport's reads go into the carried task's body buffer
    /// (``HTTPConnectionIO/setReadTarget(_:)``).
    @exclusivity(unchecked) package var hasReadTarget = false
    /// Exchanges started on the connection (the task metrics' reuse).
    @exclusivity(unchecked) package var exchangeCount = 0
    /// How it was established, read from the transport the first time a
    /// task collecting metrics used it (SessionEngine+Metrics.swift).
    @exclusivity(unchecked) package var establishment: ConnectionEstablishment?
    /// The HTTP/2 side when the connection speaks HTTP/2 (issue 33); its
    /// events then go there (SessionEngine+HTTP2.swift).
    @exclusivity(unchecked) package var http2: HTTP2SessionConnection?

    package init(
        id: ConnectionPoolStateMachine.ConnectionID,
        key: ConnectionKey,
        engine: SessionEngine,
        parser: HTTPResponseParser.Configuration
    ) {
        self.id = id
        self.key = key
        isForwardProxied = key.isForwardProxied
        self.engine = engine
        self.parser = HTTPResponseParser(configuration: parser)
        super.init()
    }

    /// Starts reading unless it is.
    package func startReading() {
        guard !isReading, let io else { return }
        isReading = true
        io.startReading()
    }

    /// Stops reading if it is.
    package func stopReading() {
        guard isReading, let io else { return }
        isReading = false
        io.stopReading()
    }

    // MARK: HTTPConnectionHandler

    package func connectionDidConnect() {
        if engine.connectionDidConnectHTTP2(self) { return }
        engine.connectionDidConnect(self)
    }

    package func connectionDidFailToConnect(_ error: UVURLError) {
        engine.connectionDidFailToConnect(self, error: error)
    }

    package func connectionDidRead(_ bytes: UnsafeRawBufferPointer) {
        if let http2 {
            engine.http2DidRead(http2, bytes)
            return
        }
        engine.connectionDidRead(self, bytes: bytes)
    }

    package func connectionDidWrite() {
        engine.connectionDidWrite(self)
    }

    package func connectionDidReachEndOfStream() {
        if let http2 {
            engine.http2DidEnd(http2, error: nil)
            return
        }
        engine.connectionDidReachEndOfStream(self, isAuthenticated: true)
    }

    package func connectionDidReachEndOfStreamWithoutCloseNotify() {
        if let http2 {
            engine.http2DidEnd(http2, error: nil)
            return
        }
        engine.connectionDidReachEndOfStream(self, isAuthenticated: false)
    }

    package func connectionDidFail(_ error: UVURLError) {
        if let http2 {
            engine.http2DidEnd(http2, error: error)
            return
        }
        engine.connectionDidFail(self, error: error)
    }
}
