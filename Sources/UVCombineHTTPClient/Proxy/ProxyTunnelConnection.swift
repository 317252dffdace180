import HTTPTypes
import UVCombineHTTPAuthentication
import UVCombineHTTPCore

/// A `CONNECT` tunnel through an HTTP proxy, layered between the TLS
/// connection to the origin (above) and the TCP connection to the proxy
/// (below), as ``TLSConnection`` is layered on TCP.
///
/// ## Phases
///
/// connecting (TCP to the proxy) → awaiting the proxy's answer →
/// established (transparent) → closed; or → failed (reported, waiting for
/// the session's `close()`).
/// - When TCP connects it writes `CONNECT host:port HTTP/1.1`, `Host` and,
///   with credentials, `Proxy-Authorization: Basic`, then reads the
///   answer with the data tasks' ``HTTPResponseParser`` (so folded or
///   odd whitespace, repeated fields, a head split across reads and
///   interim 1xx heads are read as a data task reads them), its head
///   limited to 16 KiB.
/// - A 2xx answer opens the tunnel: the layer above hears
///   ``HTTPConnectionHandler/connectionDidConnect()`` and from then on
///   every call and event passes straight through (TLS then handshakes
///   with the origin inside the tunnel).
/// - Anything else is a ``HTTPConnectionHandler/connectionDidFailToConnect(_:)``:
///   407 → `.proxyAuthenticationRequired` (unless answered, below), other
///   statuses, a head the parser refuses (its detail after "sent a
///   malformed answer: ", e.g. "header section exceeds 16384 bytes"), or
///   an end before the answer → `.proxyConnectFailed`. A failed answer's body is never read: the
///   connection is closed by the session. Bytes after a 2xx head, before
///   the client spoke, cannot be TLS from the origin (the client speaks
///   first), so they fail the tunnel too.
///
/// ## Answering a 407
///
/// With credentials, a 407 carrying a Digest challenge (RFC 7616,
/// preferred, through ``DigestAuthenticator``) is answered by a second
/// `CONNECT` with `Proxy-Authorization: Digest ...` (the `uri` is
/// `host:port`, as curl sends); a `stale=true` challenge after an answer is
/// answered once more with its new nonce. Basic is sent with the first
/// `CONNECT` already, so a Basic-only 407 means the credentials were
/// refused, as does a non-stale 407 after a Digest answer.
///
/// The answer goes on the same connection: the 407's body is read and
/// dropped (framed by `Content-Length` or chunked; not `Connection:
/// close`, nor delimited by the close). That keeps the tunnel one
/// lower connection, made once by the session; reconnecting would need the
/// session to hand this layer a new TCP connection. A 407 that does not
/// keep the connection is not answered (`.proxyAuthenticationRequired`,
/// "the proxy closed the connection").
///
/// Threading: loop thread only.
package final class ProxyTunnelConnection: HTTPConnectionIO, HTTPConnectionHandler {
    package enum Phase {
        case connecting
        case awaitingAnswer
        case established
        case failed
        case closed
    }

    /// The most bytes a `CONNECT` answer's head may take.
    package static let maximumHeadBytes = 16 * 1024

    /// The layer above (TLS); released on close.
    private var handler: (any HTTPConnectionHandler)?
    /// TCP to the proxy; set right after creation, released on close.
    package var lower: (any HTTPConnectionIO)?
    package private(set) var phase: Phase = .connecting
    /// `host:port` of the origin, for the request and for errors.
    private let origin: String
    private let proxy: UVURLSession.Proxy
    /// The proxy's answer, parsed as a data task's response is (the
    /// same parser; the head limited to ``maximumHeadBytes``).
    private var parser: HTTPResponseParser
    /// A 407's status (as shown in errors) while its body is read and
    /// dropped, before the Digest answer goes out.
    private var pendingChallenge: String?
    /// `Proxy-Authorization: ...\r\n` for the next `CONNECT`: Basic from
    /// the proxy's credentials, then the Digest answer.
    private var authorizationLine: [UInt8]
    /// The Digest answer's state, from the first Digest 407 on.
    private var digest: DigestAuthenticator?
    /// Whether a `stale=true` challenge was answered already.
    private var answeredStale = false

    package init(originHost: String, port: Int, proxy: UVURLSession.Proxy, handler: any HTTPConnectionHandler) {
        origin = originHost.contains(":") ? "[\(originHost)]:\(port)" : "\(originHost):\(port)"
        self.proxy = proxy
        self.handler = handler
        authorizationLine = proxy.authorizationLine
        var limits = HTTPResponseParser.Configuration()
        limits.maximumHeaderBytes = Self.maximumHeadBytes
        parser = HTTPResponseParser(configuration: limits)
    }

    /// `CONNECT origin HTTP/1.1`, `Host: origin`, the proxy's credentials.
    package var request: [UInt8] {
        var bytes = Array("CONNECT \(origin) HTTP/1.1\r\nHost: \(origin)\r\n".utf8)
        bytes += authorizationLine
        bytes += Array("\r\n".utf8)
        return bytes
    }

    // MARK: HTTPConnectionIO (the layer above)

    package func write(_ bytes: [UInt8]) {
        guard phase == .established else { return }
        lower?.write(bytes)
    }

    package var establishment: ConnectionEstablishment {
        var result = lower?.establishment ?? ConnectionEstablishment()
        result.isProxyConnection = true
        return result
    }

    package var hasPendingWrites: Bool {
        lower?.hasPendingWrites ?? false
    }

    package var unacknowledgedOutputByteCount: Int {
        phase == .established ? (lower?.unacknowledgedOutputByteCount ?? 0) : 0
    }

    package func startReading() {
        if phase == .established { lower?.startReading() }
    }

    package func stopReading() {
        if phase == .established { lower?.stopReading() }
    }

    package func setReadTarget(_ target: UnsafeMutableRawBufferPointer?) {
        if phase == .established || target == nil { lower?.setReadTarget(target) }
    }

    package var bufferedInputByteCount: Int {
        lower?.bufferedInputByteCount ?? 0
    }

    package func setKeepsLoopAlive(_ keepsAlive: Bool) {
        lower?.setKeepsLoopAlive(keepsAlive)
    }

    package func close() {
        guard phase != .closed else { return }
        phase = .closed
        handler = nil
        lower?.close()
        lower = nil
    }

    // MARK: HTTPConnectionHandler (TCP to the proxy)

    package func connectionDidConnect() {
        guard phase == .connecting else { return }
        phase = .awaitingAnswer
        parser.expectResponse(to: .connect)
        lower?.write(request)
        lower?.startReading()
    }

    package func connectionDidFailToConnect(_ error: UVURLError) {
        guard phase == .connecting else { return }
        phase = .failed
        handler?.connectionDidFailToConnect(error)
    }

    package func connectionDidRead(_ bytes: UnsafeRawBufferPointer) {
        switch phase {
        case .established:
            handler?.connectionDidRead(bytes)
        case .awaitingAnswer:
            receiveAnswer(bytes)
        case .connecting, .failed, .closed:
            break
        }
    }

    package func connectionDidWrite() {
        if phase == .established { handler?.connectionDidWrite() }
    }

    package func connectionDidReachEndOfStream() {
        switch phase {
        case .established:
            handler?.connectionDidReachEndOfStream()
        case .awaitingAnswer:
            if let shown = pendingChallenge {
                fail(notAnswered(shown))
            } else {
                let place = parser.hasReceivedResponseBytes ? "inside its answer's head" : "before answering"
                fail(UVURLError(.proxyConnectFailed, detail: "CONNECT \(origin): \(proxy) closed the connection \(place)"))
            }
        case .connecting, .failed, .closed:
            break
        }
    }

    package func connectionDidReachEndOfStreamWithoutCloseNotify() {
        connectionDidReachEndOfStream()
    }

    package func connectionDidFail(_ error: UVURLError) {
        switch phase {
        case .established:
            handler?.connectionDidFail(error)
        case .awaitingAnswer:
            fail(UVURLError(.proxyConnectFailed,
                            detail: "CONNECT \(origin): connection to \(proxy) lost: \(error.detail ?? error.code.description)",
                            underlyingErrorName: error.underlyingErrorName))
        case .connecting, .failed, .closed:
            break
        }
    }

    // MARK: The answer

    /// Feeds the answer's bytes to the parser: a 2xx head opens the
    /// tunnel, a 407's head is checked for a challenge and its body
    /// dropped, anything else fails.
    private func receiveAnswer(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while phase == .awaitingAnswer {
            let event: HTTPResponseParser.Event
            do {
                let (next, consumed) = try parser.next(rest)
                event = next
                rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
            } catch {
                fail(UVURLError(.proxyConnectFailed,
                                detail: "CONNECT \(origin): \(proxy) sent a malformed answer: \(error.detail ?? error.code.description)"))
                return
            }
            switch event {
            case .head(let response):
                receiveHead(response, followedBy: rest.count)
            case .body:
                continue  // a 407's body, dropped
            case .end(let keepAlive):
                answerChallenge(keepAlive: keepAlive, followedBy: rest.count)
                return
            case .needMoreData:
                return
            }
        }
    }

    /// Acts on the answer's head; `extra` bytes followed it in this read.
    private func receiveHead(_ response: HTTPResponse, followedBy extra: Int) {
        let status = response.status
        let shown = status.reasonPhrase.isEmpty ? "\(status.code)" : "\(status.code) \(status.reasonPhrase.prefix(200))"
        switch status.code {
        case 200..<300:
            // RFC 9110 section 9.3.6: a 2xx answer to CONNECT has no body,
            // whatever its fields say; what follows is the tunnel's.
            guard extra == 0 else {
                fail(UVURLError(.proxyConnectFailed,
                                detail: "CONNECT \(origin): the proxy sent data before the TLS handshake"))
                return
            }
            phase = .established
            // The layer above starts reading when it needs to (TLS: at
            // once, for the handshake).
            lower?.stopReading()
            handler?.connectionDidConnect()
        case 407:
            guard let username = proxy.username else {
                fail(UVURLError(.proxyAuthenticationRequired,
                                detail: "CONNECT \(origin): \(proxy) answered \(shown) (no credentials configured)"))
                return
            }
            readChallenge(response, username: username, shown: shown)
        default:
            fail(UVURLError(.proxyConnectFailed, detail: "CONNECT \(origin): \(proxy) answered \(shown)"))
        }
    }

    /// Takes the Digest challenge of a 407 (its head in `response`) into
    /// `digest`, or fails; its body is then read and dropped, and the
    /// answer sent once it ended (``answerChallenge(keepAlive:followedBy:)``).
    private func readChallenge(_ response: HTTPResponse, username: String, shown: String) {
        let fields = response.headerFields
        let refused = UVURLError(.proxyAuthenticationRequired,
                                 detail: "CONNECT \(origin): \(proxy) answered \(shown) (credentials refused)")
        let challenges = AuthenticationChallenge.challenges(in: fields, for: .proxy)
        // Digest needs libcrypto, loaded here at the first challenge.
        guard DigestAlgorithm.isAvailable, let challenge = DigestChallenge.first(in: challenges) else {
            fail(refused)
            return
        }
        if var current = digest {
            guard challenge.isStale, !answeredStale else {
                fail(refused)
                return
            }
            answeredStale = true
            current.accept(challenge)
            digest = current
        } else {
            digest = DigestAuthenticator(username: username, password: proxy.password ?? "", challenge: challenge)
        }
        // The answer needs the connection: a 407 that closes it (said so,
        // or a body delimited by the close) is not answered. HTTP/1.0
        // without keep-alive shows at the body's end.
        let closes = fields[values: .connection].contains { value in
            var value = value
            return value.withUTF8 { HTTPTokenList.contains($0, "close") }
        }
        let closeDelimited = parser.announcedBodyLength == nil && fields[.transferEncoding] == nil
        if closes || closeDelimited {
            fail(notAnswered(shown))
            return
        }
        pendingChallenge = shown
    }

    /// The 407 read by ``readChallenge(_:username:shown:)`` ended (its body
    /// dropped): sends the Digest answer on the same connection.
    private func answerChallenge(keepAlive: Bool, followedBy extra: Int) {
        guard let shown = pendingChallenge, digest != nil else {
            fail(UVURLError(.proxyConnectFailed, detail: "CONNECT \(origin): \(proxy) ended an answer without a head"))
            return
        }
        pendingChallenge = nil
        guard keepAlive else {
            fail(notAnswered(shown))
            return
        }
        guard extra == 0 else {
            fail(UVURLError(.proxyConnectFailed, detail: "CONNECT \(origin): \(proxy) sent data after its 407"))
            return
        }
        let value = digest!.authorization(method: "CONNECT", uri: origin)
        authorizationLine = Array("Proxy-Authorization: \(value)\r\n".utf8)
        parser.expectResponse(to: .connect)
        lower?.write(request)
    }

    /// A 407 that is not answered because the proxy closes the connection.
    private func notAnswered(_ shown: String) -> UVURLError {
        UVURLError(.proxyAuthenticationRequired,
                   detail: "CONNECT \(origin): \(proxy) answered \(shown) (not answered: the proxy closed the connection)")
    }

    private func fail(_ error: UVURLError) {
        phase = .failed
        pendingChallenge = nil
        lower?.stopReading()
        handler?.connectionDidFailToConnect(error)
    }
}
