import UVCombineCore
import UVCombineLoop
import UVCombineHTTPCore
import UVCombineHTTP2

/// The session's transport on a real loop: TCP connections from
/// UVCombineLoop (`UVTCP.connect`, name resolution included), or Unix
/// domain socket connections (`UVPipe.connect`) for a key with a socket
/// path, TLS over either for `https` (``TLSConnection``, OpenSSL with
/// memory BIOs), and one ``UVDeadlineTimer``.
///
/// It keeps the ``HTTPTransport`` contract: libuv never calls back inside a
/// call (a connect starts in the loop's next iteration), and a closed
/// connection reports nothing (`UVTCPConnection.close()` drops its handler;
/// a connect attempt cancelled before it finished never completes).
///
/// Threading: loop thread only (created anywhere).
package final class UVLoopTransport: HTTPTransport {
    package let loop: UVLoop
    /// `unowned`, not `weak`: see ``HTTPTransport/timerHandler`` (the
    /// engine clears it before it goes away).
    package unowned var timerHandler: (any HTTPTimerHandler)?
    /// Opened on the first arming.
    private var timer: UVDeadlineTimer?
    private let options: UVTCP.Options
    private let tls: UVURLSession.TLSConfiguration
    /// Built at the first `https` connection, shared by the next ones.
    private var tlsContext: TLSContext?

    package init(loop: UVLoop, tls: UVURLSession.TLSConfiguration = UVURLSession.TLSConfiguration(),
                  connectionAttemptDelay: Duration = .milliseconds(250)) {
        self.loop = loop
        self.tls = tls
        // The pool enforces the connect timeout (it reports `.timedOut`
        // with kind `.connect`); the socket layer waits as long as the
        // kernel does.
        var options = UVTCP.Options()
        // Capped at a day, far beyond any connect timeout, so the
        // conversion to nanoseconds cannot overflow.
        let (seconds, attoseconds) = connectionAttemptDelay.components
        let nanoseconds = min(max(seconds, 0), 86_400) * 1_000_000_000 + max(attoseconds, 0) / 1_000_000_000
        options.connectionAttemptDelay = .nanoseconds(Int(nanoseconds))
        self.options = options
    }

    package var now: HTTPDeadline {
        HTTPDeadline(uptimeNanoseconds: loop.now.uptimeNanoseconds)
    }

    package func armTimer(at deadline: HTTPDeadline) {
        if timer == nil {
            timer = UVDeadlineTimer(loop: loop) { [weak self] in
                self?.timerHandler?.timerFired()
            }
        }
        timer!.arm(at: deadline.uptimeNanoseconds)
    }

    package func disarmTimer() {
        timer?.disarm()
    }

    package func shutdown() {
        timer?.close()
        timer = nil
        tlsContext = nil
    }

    package func connect(to key: ConnectionKey, handler: any HTTPConnectionHandler) -> any HTTPConnectionIO {
        guard key.scheme == .https else {
            // Through a forwarding proxy the key's host and port are the
            // proxy's.
            return connectStream(to: key, handler: handler)
        }
        let context: TLSContext
        do throws(UVURLError) {
            if let existing = tlsContext {
                context = existing
            } else {
                context = try TLSContext(configuration: tls)
            }
        } catch {
            // Reported as a failure to connect in the loop's next
            // iteration; the next https connection tries again.
            return TLSConnection(host: key.host, context: nil, setupError: error, loop: loop, handler: handler)
        }
        tlsContext = context
        let connection = TLSConnection(host: key.host, context: context, setupError: nil, loop: loop, handler: handler)
        // Without libnghttp2 (loaded here, at the first connection that may
        // speak HTTP/2) ALPN offers http/1.1 only: the server answers in
        // HTTP/1.1 (NGHTTP2Library).
        connection.offersHTTP2 = key.httpVersion.mayUseHTTP2 && NGHTTP2Library.isAvailable
        if let proxy = key.proxy, key.socketPath == nil {
            // TLS to the origin inside a CONNECT tunnel through the proxy.
            let tunnel = ProxyTunnelConnection(originHost: key.host, port: key.port, proxy: proxy, handler: connection)
            tunnel.lower = connectStream(to: key, handler: tunnel)
            connection.lower = tunnel
        } else {
            connection.lower = connectStream(to: key, handler: connection)
        }
        return connection
    }

    /// TCP to the key's host and port (the proxy's when the key has one),
    /// or the key's Unix domain socket.
    private func connectStream(to key: ConnectionKey, handler: any HTTPConnectionHandler) -> UVLoopConnection {
        let connection = UVLoopConnection(handler: handler)
        connection.timings.connectStart = loop.now.uptimeNanoseconds
        if let path = key.socketPath {
            connection.attempt = UVPipe.connect(path: path, on: loop, options: options) { [connection] result in
                connection.connectFinished(result)
            }
        } else if let proxy = key.proxy {
            connection.isToProxy = true
            let attempt = UVTCP.connect(host: proxy.host, port: proxy.port, on: loop, options: options) {
                [connection] result in
                connection.connectFinished(result)
            }
            connection.attempt = attempt
            connection.tcpAttempt = attempt
        } else {
            let attempt = UVTCP.connect(host: key.host, port: key.port, on: loop, options: options) {
                [connection] result in
                connection.connectFinished(result)
            }
            connection.attempt = attempt
            connection.tcpAttempt = attempt
        }
        return connection
    }
}

/// One session connection on a `UVTCPConnection`.
///
/// Threading: loop thread only.
package final class UVLoopConnection: HTTPConnectionIO, UVTCPConnectionHandler {
    /// Released on close, so nothing is reported afterwards.
    private var handler: (any HTTPConnectionHandler)?
    /// Closed by the session: derived from the released handler, not
    /// stored (the TCP connection below owns the socket's own state).
    private var isClosed: Bool { handler == nil }
    /// The TCP or Unix domain socket connect in progress.
    package var attempt: (any Cancellable)?
    private var tcp: UVTCPConnection?
    /// Set before the connection exists; applied when it does.
    private var keepsLoopAlive = true
    /// The connection goes to a proxy: a failure to connect says so
    /// (`.cannotFindProxyHost`, `.cannotConnectToProxy`).
    package var isToProxy = false
    /// The connect's instants (the task metrics'): the transport sets
    /// `connectStart`, ``connectFinished(_:)`` the rest.
    package var timings = ConnectionEstablishment()
    /// The addresses, read at the first ``establishment``.
    private var addressesRead = false
    /// ``attempt`` when it is a TCP connect (its resolution instants),
    /// typed: no dynamic cast from `any Cancellable`.
    package var tcpAttempt: UVTCPConnectAttempt?

    /// Every write's completion; formed once, so writing allocates no
    /// closure.
    private var writeCompleted: ((UVError?) -> Void)?

    package init(handler: any HTTPConnectionHandler) {
        self.handler = handler
        // `unowned`, not `weak`: a weak reference would give this object a
        // side table and slow every retain and release of it (callgrind,
        // issue 17). Safe: a completion runs only while the TCP connection
        // is open (closing drops them), and while it is open it holds this
        // object as its handler.
        writeCompleted = { [unowned self] error in writeDidComplete(error) }
    }

    package func connectFinished(_ result: Result<UVTCPConnection, UVTCPError>) {
        if let tcpAttempt {
            timings.domainLookupStart = tcpAttempt.startedAt
            timings.domainLookupEnd = tcpAttempt.resolvedAt
            if tcpAttempt.resolvedAt != 0 { timings.connectStart = tcpAttempt.resolvedAt }
            self.tcpAttempt = nil
        }
        attempt = nil
        switch result {
        case .success(let connection):
            guard !isClosed else {
                connection.close()
                return
            }
            timings.connectEnd = connection.loop.now.uptimeNanoseconds
            tcp = connection
            connection.handler = self
            if !keepsLoopAlive { connection.keepsLoopAlive = false }
            handler?.connectionDidConnect()
        case .failure(let error):
            guard !isClosed else { return }
            handler?.connectionDidFailToConnect(isToProxy ? Self.proxyError(error) : Self.urlError(error))
        }
    }

    // MARK: HTTPConnectionIO

    package func write(_ bytes: [UInt8]) {
        guard let tcp, !tcp.isClosed, !bytes.isEmpty else { return }
        // One write, however large: the kernel takes what it can, libuv
        // the rest (splitting it would let a write error overtake a
        // response the server sent before closing, e.g. a 413).
        tcp.write(bytes, completion: writeCompleted)
    }

    private func writeDidComplete(_ error: UVError?) {
        // A failed write ends the connection; the handler hears that.
        guard error == nil, !isClosed else { return }
        handler?.connectionDidWrite()
    }

    package var hasPendingWrites: Bool {
        guard let tcp else { return false }
        return tcp.pendingWriteCount > 0
    }

    package var unacknowledgedOutputByteCount: Int {
        guard let tcp, !tcp.isClosed else { return 0 }
        return tcp.unacknowledgedByteCount
    }

    package func startReading() {
        tcp?.startReading()
    }

    package func setReadTarget(_ target: UnsafeMutableRawBufferPointer?) {
        tcp?.readTarget = target
    }

    package func stopReading() {
        tcp?.stopReading()
    }

    package func setKeepsLoopAlive(_ keepsAlive: Bool) {
        keepsLoopAlive = keepsAlive
        tcp?.keepsLoopAlive = keepsAlive
    }

    package func close() {
        guard !isClosed else { return }
        handler = nil
        attempt?.cancel()
        attempt = nil
        tcpAttempt = nil
        tcp?.close()
        tcp = nil
    }

    package var establishment: ConnectionEstablishment {
        if !addressesRead, let tcp, !tcp.isClosed {
            addressesRead = true
            timings.localAddress = tcp.localAddress
            timings.remoteAddress = tcp.remoteAddress
        }
        var result = timings
        result.isProxyConnection = isToProxy
        return result
    }

    // MARK: UVTCPConnectionHandler

    package func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        handler?.connectionDidRead(bytes)
    }

    package func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        if let error {
            handler?.connectionDidFail(Self.urlError(error))
        } else {
            handler?.connectionDidReachEndOfStream()
        }
    }

    /// A failure to reach a proxy: its own codes for resolution and
    /// connect failures, so callers (and curl's exit codes 5 and 7) can
    /// tell the proxy from the origin.
    package static func proxyError(_ error: UVTCPError) -> UVURLError {
        switch error.kind {
        case .hostNotFound, .resolutionFailed:
            UVURLError(.cannotFindProxyHost, detail: "proxy: \(error.kind.description)", underlyingErrorName: error.name)
        case .connectionFailed, .invalidArgument, .listenFailed:
            UVURLError(.cannotConnectToProxy, detail: "proxy: \(error.kind.description)", underlyingErrorName: error.name)
        default:
            urlError(error)
        }
    }

    /// The session's error for a socket failure (docs/http-protocol-core.md,
    /// "libuv errors to codes"), with the libuv name.
    package static func urlError(_ error: UVTCPError) -> UVURLError {
        switch error.kind {
        case .hostNotFound, .resolutionFailed:
            UVURLError(.cannotFindHost, detail: error.kind.description, underlyingErrorName: error.name)
        case .connectionFailed, .invalidArgument, .listenFailed:
            UVURLError(.cannotConnectToHost, detail: error.kind.description, underlyingErrorName: error.name)
        case .timedOut:
            UVURLError(.timedOut, detail: "connect timeout", underlyingErrorName: error.name, timeoutKind: .connect)
        case .connectionLost, .closed, .alreadyReading:
            UVURLError(.networkConnectionLost, detail: error.kind.description, underlyingErrorName: error.name)
        }
    }
}
