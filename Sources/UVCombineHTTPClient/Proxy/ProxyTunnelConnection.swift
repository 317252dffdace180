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
///   answer's head (at most 16 KiB).
/// - A 2xx answer opens the tunnel: the layer above hears
///   ``HTTPConnectionHandler/connectionDidConnect()`` and from then on
///   every call and event passes straight through (TLS then handshakes
///   with the origin inside the tunnel).
/// - Anything else is a ``HTTPConnectionHandler/connectionDidFailToConnect(_:)``:
///   407 → `.proxyAuthenticationRequired` (unless answered, below), other
///   statuses, a malformed or oversized head, or an end before the answer
///   → `.proxyConnectFailed`. A failed answer's body is never read: the
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
/// dropped (its `Content-Length` must be given, without
/// `Transfer-Encoding` or `Connection: close`). That keeps the tunnel one
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
    /// The answer's head as it arrives.
    private var answer: [UInt8] = []
    /// `Proxy-Authorization: ...\r\n` for the next `CONNECT`: Basic from
    /// the proxy's credentials, then the Digest answer.
    private var authorizationLine: [UInt8]
    /// The Digest answer's state, from the first Digest 407 on.
    private var digest: DigestAuthenticator?
    /// Whether a `stale=true` challenge was answered already.
    private var answeredStale = false
    /// Bytes of a 407's body still to read and drop.
    private var bodyBytesToDrop = 0

    package init(originHost: String, port: Int, proxy: UVURLSession.Proxy, handler: any HTTPConnectionHandler) {
        origin = originHost.contains(":") ? "[\(originHost)]:\(port)" : "\(originHost):\(port)"
        self.proxy = proxy
        self.handler = handler
        authorizationLine = proxy.authorizationLine
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
            fail(UVURLError(.proxyConnectFailed,
                            detail: "CONNECT \(origin): \(proxy) closed the connection before answering"))
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

    private func receiveAnswer(_ bytes: UnsafeRawBufferPointer) {
        var bytes = bytes
        if bodyBytesToDrop > 0 {
            let dropped = min(bodyBytesToDrop, bytes.count)
            bodyBytesToDrop -= dropped
            bytes = UnsafeRawBufferPointer(rebasing: bytes[dropped...])
            if bytes.isEmpty { return }
        }
        let searchStart = max(answer.count - 3, 0)
        answer.append(contentsOf: bytes)
        guard let headEnd = Self.endOfHead(in: answer, from: searchStart) else {
            if answer.count > Self.maximumHeadBytes {
                fail(UVURLError(.proxyConnectFailed,
                                detail: "CONNECT \(origin): the answer's head exceeds \(Self.maximumHeadBytes) bytes"))
            }
            return
        }
        let statusLine = answer.prefix { $0 != 0x0D }
        guard let status = Self.statusCode(of: Array(statusLine)) else {
            fail(UVURLError(.proxyConnectFailed,
                            detail: "CONNECT \(origin): malformed answer \(HTTPRequestValidation.quoted(String(decoding: statusLine.prefix(80), as: UTF8.self)))"))
            return
        }
        let shown = String(decoding: statusLine.dropFirst(9).prefix(200), as: UTF8.self)
        switch status {
        case 200..<300:
            guard headEnd == answer.count else {
                fail(UVURLError(.proxyConnectFailed,
                                detail: "CONNECT \(origin): the proxy sent data before the TLS handshake"))
                return
            }
            answer = []
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
            answerChallenge(headEnd: headEnd, username: username, shown: shown)
        default:
            fail(UVURLError(.proxyConnectFailed, detail: "CONNECT \(origin): \(proxy) answered \(shown)"))
        }
    }

    /// Answers the 407 in `answer` (its head ends at `headEnd`) with a
    /// Digest `CONNECT` on the same connection, or fails.
    private func answerChallenge(headEnd: Int, username: String, shown: String) {
        let fields = Self.fields(in: answer[..<headEnd])
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
        let connection = fields[.connection]?.lowercased() ?? ""
        guard fields[.transferEncoding] == nil, !connection.contains("close"),
              let lengthText = fields[.contentLength], let length = Int(lengthText), length >= 0 else {
            fail(UVURLError(.proxyAuthenticationRequired,
                            detail: "CONNECT \(origin): \(proxy) answered \(shown) (not answered: the proxy closed the connection)"))
            return
        }
        let received = answer.count - headEnd
        guard received <= length else {
            fail(UVURLError(.proxyConnectFailed,
                            detail: "CONNECT \(origin): \(proxy) sent data after its 407"))
            return
        }
        bodyBytesToDrop = length - received
        answer = []
        let value = digest!.authorization(method: "CONNECT", uri: origin)
        authorizationLine = Array("Proxy-Authorization: \(value)\r\n".utf8)
        lower?.write(request)
    }

    /// The fields of a response head (status line first), for reading the
    /// challenges; lines without a colon are skipped.
    private static func fields(in head: ArraySlice<UInt8>) -> HTTPFields {
        var fields = HTTPFields()
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":"),
                  let name = HTTPField.Name(String(line[..<colon])) else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            let trimmed = value.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            fields.append(HTTPField(name: name, value: String(trimmed)))
        }
        return fields
    }

    private func fail(_ error: UVURLError) {
        phase = .failed
        answer = []
        lower?.stopReading()
        handler?.connectionDidFailToConnect(error)
    }

    /// The index just past the blank line that ends the head, searching
    /// from `start`.
    private static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// The status of `HTTP/1.x NNN ...`, or nil.
    private static func statusCode(of line: [UInt8]) -> Int? {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, Array(line[0..<7]) == prefix,
              line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1"), line[8] == 0x20 else { return nil }
        var status = 0
        for byte in line[9..<12] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard line.count == 12 || line[12] == 0x20 else { return nil }
        return status
    }
}
