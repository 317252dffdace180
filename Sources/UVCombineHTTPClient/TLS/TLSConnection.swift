internal import CUVCombineLazyLibraries
import UVCombineLoop

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import UVCombineHTTPCore
import UVCombineHTTP2

/// One TLS client connection, layered on the connection below it (TCP):
/// to the session it is an ``HTTPConnectionIO`` carrying plaintext; to the
/// TCP connection it is the ``HTTPConnectionHandler`` receiving ciphertext.
///
/// OpenSSL never touches the socket. The `SSL` object reads from one
/// memory BIO and writes to another: bytes read from TCP are appended to
/// the first, the bytes OpenSSL produces are taken from the second and
/// written to TCP. Nothing blocks; every OpenSSL call returns at once,
/// with `SSL_ERROR_WANT_READ` when it needs bytes that have not arrived.
///
/// ## Phases
///
/// connecting (TCP) → handshaking → established → closed, or → failed
/// (reported, waiting for the session's `close()`).
/// - The handshake starts when TCP connects: SNI (for a name, not an IP
///   address), ALPN `http/1.1`, and, unless verification is disabled,
///   host name (or IP address) verification against the certificate.
///   The session hears ``HTTPConnectionHandler/connectionDidConnect()``
///   only once the handshake completed, so its connect timeout covers it.
///   Any failure until then is a ``HTTPConnectionHandler/connectionDidFailToConnect(_:)``.
/// - Established: ``write(_:)`` encrypts and writes at once (inside a
///   delivery: when the delivery ends, one TCP write for all); received
///   records are decrypted into one 16 KiB buffer (one record's
///   plaintext at most) and delivered from it, one record per
///   ``HTTPConnectionHandler/connectionDidRead(_:)``.
///
/// ## Backpressure
///
/// Reading follows the session's ``startReading()`` and ``stopReading()``
/// as on plain TCP: when the session stops (inside a delivery, when its
/// subscriber has no demand), the TCP connection stops reading at once
/// and the records not yet decrypted stay in the memory BIO (at most one
/// TCP read buffer). ``startReading()`` delivers them in the loop's next
/// iteration (never inside the call: the transport contract), then TCP
/// reading resumes.
///
/// ## End of stream
///
/// The server's `close_notify` is reported as the end of the stream. TCP's
/// end of file without it (after the delivered records) is reported as
/// ``HTTPConnectionHandler/connectionDidReachEndOfStreamWithoutCloseNotify()``:
/// HTTP's own framing (`Content-Length`, chunked) still detects a
/// truncated response and an idle connection's end is harmless, but a
/// body delimited by the connection's end then fails, since anyone on
/// the path can send a FIN (docs/tls.md, "End of stream").
/// ``close()`` closes TCP without sending `close_notify` (the session closes
/// only connections it will not use again).
///
/// Threading: loop thread only.
package final class TLSConnection: HTTPConnectionIO, HTTPConnectionHandler {
    package enum Phase {
        case connecting
        case handshaking
        case established
        /// A failure was reported (or will be, in the loop's next
        /// iteration); nothing else is.
        case failed
        case closed
    }

    /// ALPN's wire format for `h2`, then `http/1.1`.
    private static let alpnHTTP2 = HTTP2ALPN.wireFormat([HTTP2ALPN.http2, HTTP2ALPN.http11])

    /// The largest plaintext a TLS record carries (RFC 8446, 5.1).
    private static let plaintextCapacity = 16 * 1024

    private let loop: UVLoop
    private let host: String
    /// Nil when the context could not be built (the failure is reported).
    private let context: TLSContext?
    /// OpenSSL's functions, the context's: called only while `ssl`
    /// exists, which needs a context.
    private var openSSL: cuvc_openssl_functions { context!.openSSL }
    /// The session's connection; released on close.
    private var handler: (any HTTPConnectionHandler)?
    /// The TCP connection; set right after creation, released on close.
    package var lower: (any HTTPConnectionIO)?
    package private(set) var phase: Phase = .connecting

    /// `SSL *`, owned; created when TCP connects.
    private var ssl: OpaquePointer?
    /// The memory BIO OpenSSL reads ciphertext from (owned by `ssl`).
    private var networkIn: OpaquePointer?
    /// The memory BIO OpenSSL writes ciphertext to (owned by `ssl`).
    private var networkOut: OpaquePointer?
    /// ALPN offers `h2` before `http/1.1` (set before TCP connects; issue 33).
    package var offersHTTP2 = false
    /// The server chose `h2` in the handshake.
    package private(set) var isHTTP2Negotiated = false
    /// Decrypted bytes of one record; allocated when the handshake is done.
    private var plaintext: UnsafeMutableRawPointer?
    /// The ciphertext array the next flush fills: two arrays in turn,
    /// since TCP keeps the array it was given (a reference) until its
    /// write callback, in the loop's next iteration. The one written last
    /// is ``writtenOutbound``; this one was written the time before and is
    /// normally released again, so its storage is reused. Should TCP still
    /// hold it, `removeAll` copies on write (fresh storage): never wrong,
    /// only an allocation.
    private var outbound: [UInt8] = []
    /// The ciphertext array written last (TCP may still hold it).
    private var writtenOutbound: [UInt8] = []

    /// The session asked for bytes.
    private var wantsReads = false
    /// The TCP connection is reading.
    private var isLowerReading = false
    /// TCP reported end of file; reported upward once the records before
    /// it are delivered.
    private var lowerEnded = false
    private var endReported = false
    /// Inside the delivery loop (a `startReading()` from the session then
    /// just lets the loop continue).
    private var isDelivering = false
    private var isDrainScheduled = false
    /// Runs a drain in the loop's next iteration; formed once, so resuming
    /// allocates nothing.
    private var drainAction: (() -> Void)?
    /// A failure to report in the loop's next iteration, and whether it
    /// happened before the session heard `connectionDidConnect`.
    private var pendingFailure: (error: UVURLError, beforeConnect: Bool)?
    /// When the handshake started and completed (the task metrics').
    private var handshakeStart: UInt64 = 0
    private var handshakeEnd: UInt64 = 0

    /// A connection that starts its handshake when `lower` (set right
    /// after) connects. With a nil `context`, it reports `setupError` as a
    /// failure to connect in the loop's next iteration.
    package init(host: String, context: TLSContext?, setupError: UVURLError?, loop: UVLoop,
                  handler: any HTTPConnectionHandler) {
        self.loop = loop
        self.host = host
        self.context = context
        self.handler = handler
        drainAction = { [weak self] in self?.scheduledDrain() }
        if context == nil {
            reportLater(setupError ?? UVURLError(.secureConnectionFailed, detail: "no TLS context"), beforeConnect: true)
        }
    }

    deinit {
        freeSSL()
    }

    // MARK: HTTPConnectionIO (the session's side)

    package func write(_ bytes: [UInt8]) {
        guard phase == .established, let ssl, !bytes.isEmpty else { return }
        openSSL.ERR_clear_error()
        var written = 0
        let status = bytes.withUnsafeBytes { raw in
            openSSL.SSL_write_ex(ssl, raw.baseAddress, raw.count, &written)
        }
        guard status == 1 else {
            // A failed write is reported later, as TCP reports it.
            reportLater(TLSFailure.records(ssl, status: status, openSSL), beforeConnect: false)
            return
        }
        // Inside the delivery of received records the ciphertext waits in
        // the output BIO and goes to TCP in one write when the delivery
        // ends (before it returns to the loop): one write per TCP read,
        // not one per record the session answered.
        if !isDelivering { flushOutbound() }
    }

    package var hasPendingWrites: Bool {
        (lower?.hasPendingWrites ?? false) || pendingOutboundByteCount > 0
    }

    /// Ciphertext in the output BIO, not yet handed to TCP.
    private var pendingOutboundByteCount: Int {
        guard let networkOut else { return 0 }
        return Int(openSSL.BIO_ctrl_pending(networkOut))
    }

    package var establishment: ConnectionEstablishment {
        var result = lower?.establishment ?? ConnectionEstablishment()
        result.secureConnectionStart = handshakeStart
        result.secureConnectionEnd = handshakeEnd
        return result
    }

    package var unacknowledgedOutputByteCount: Int {
        (lower?.unacknowledgedOutputByteCount ?? 0) + pendingOutboundByteCount
    }

    package var bufferedInputByteCount: Int {
        guard let ssl, let networkIn else { return 0 }
        return Int(openSSL.BIO_ctrl_pending(networkIn)) + Int(openSSL.SSL_pending(ssl))
    }

    package func startReading() {
        guard !wantsReads else { return }
        wantsReads = true
        // While handshaking the handshake reads by itself; inside the
        // delivery loop the loop continues by itself.
        guard phase == .established, !isDelivering else { return }
        if hasBufferedInput {
            scheduleDrain()
        } else {
            setLowerReading(true)
        }
    }

    package func stopReading() {
        wantsReads = false
        if phase == .established { setLowerReading(false) }
    }

    package func setKeepsLoopAlive(_ keepsAlive: Bool) {
        lower?.setKeepsLoopAlive(keepsAlive)
    }

    package func close() {
        guard phase != .closed else { return }
        phase = .closed
        handler = nil
        wantsReads = false
        pendingFailure = nil
        // What the session wrote inside a delivery goes out first (a
        // GOAWAY or RST_STREAM written just before closing).
        flushOutbound()
        lower?.close()
        lower = nil
        freeSSL()
    }

    // MARK: HTTPConnectionHandler (the TCP connection's events)

    package func connectionDidConnect() {
        guard phase == .connecting else { return }
        handshakeStart = loop.now.uptimeNanoseconds
        do throws(UVURLError) {
            try startHandshake()
        } catch {
            failBeforeConnect(error)
            return
        }
        stepHandshake()
    }

    package func connectionDidFailToConnect(_ error: UVURLError) {
        guard phase == .connecting else { return }
        phase = .failed
        handler?.connectionDidFailToConnect(error)
    }

    package func connectionDidRead(_ bytes: UnsafeRawBufferPointer) {
        guard phase == .handshaking || phase == .established, let networkIn, !bytes.isEmpty else { return }
        // A memory BIO takes everything (it grows); at most one TCP read
        // buffer waits in it, since TCP stops reading while nobody reads.
        _ = openSSL.BIO_write(networkIn, bytes.baseAddress, Int32(bytes.count))
        if phase == .handshaking {
            stepHandshake()
        } else if !isDelivering {
            processInput()
        }
    }

    package func connectionDidWrite() {
        // Ciphertext progress is the session's progress (handshake bytes
        // are not: the session is not exchanging yet).
        if phase == .established { handler?.connectionDidWrite() }
    }

    package func connectionDidReachEndOfStream() {
        isLowerReading = false
        switch phase {
        case .connecting, .handshaking:
            failBeforeConnect(UVURLError(.secureConnectionFailed,
                                         detail: "the server closed the connection during the TLS handshake"))
        case .established:
            lowerEnded = true
            if wantsReads && !isDelivering { processInput() }
        case .failed, .closed:
            break
        }
    }

    package func connectionDidFail(_ error: UVURLError) {
        isLowerReading = false
        switch phase {
        case .connecting, .handshaking:
            failBeforeConnect(UVURLError(.secureConnectionFailed,
                                         detail: "connection lost during the TLS handshake: \(error.detail ?? error.code.description)",
                                         underlyingErrorName: error.underlyingErrorName))
        case .established:
            phase = .failed
            handler?.connectionDidFail(error)
        case .failed, .closed:
            break
        }
    }

    // MARK: Handshake

    private func startHandshake() throws(UVURLError) {
        guard let context else { return }
        openSSL.ERR_clear_error()
        guard let ssl = openSSL.SSL_new(context.pointer) else {
            throw UVURLError(.secureConnectionFailed, detail: "SSL_new: \(TLSFailure.queuedReason(openSSL) ?? "out of memory")")
        }
        self.ssl = ssl
        guard let input = openSSL.BIO_new(openSSL.BIO_s_mem()), let output = openSSL.BIO_new(openSSL.BIO_s_mem()) else {
            throw UVURLError(.secureConnectionFailed, detail: "BIO_new: \(TLSFailure.queuedReason(openSSL) ?? "out of memory")")
        }
        // The SSL object owns both BIOs from here on.
        openSSL.SSL_set_bio(ssl, input, output)
        networkIn = input
        networkOut = output
        openSSL.SSL_set_connect_state(ssl)
        if offersHTTP2 {
            // Replaces the context's `http/1.1` for this connection; 0 is success.
            let status = Self.alpnHTTP2.withUnsafeBufferPointer {
                openSSL.SSL_set_alpn_protos(ssl, $0.baseAddress, UInt32($0.count))
            }
            guard status == 0 else { throw UVURLError(.secureConnectionFailed, detail: "cannot set ALPN h2") }
        }

        let isAddress = Self.isIPAddress(host)
        // RFC 6066: SNI carries host names only, never literal addresses.
        if !isAddress && cuvc_ssl_set_sni_host_name(openSSL.SSL_ctrl, ssl, host) != 1 {
            throw UVURLError(.secureConnectionFailed, detail: "cannot set SNI \"\(host)\": \(TLSFailure.queuedReason(openSSL) ?? "")")
        }
        if context.verifiesCertificates {
            let accepted: Int32
            if isAddress {
                accepted = openSSL.X509_VERIFY_PARAM_set1_ip_asc(openSSL.SSL_get0_param(ssl), host)
            } else {
                openSSL.SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
                accepted = openSSL.SSL_set1_host(ssl, host)
            }
            guard accepted == 1 else {
                throw UVURLError(.secureConnectionFailed,
                                 detail: "cannot verify against host \"\(host)\": \(TLSFailure.queuedReason(openSSL) ?? "")")
            }
        }
        phase = .handshaking
    }

    /// Runs the handshake as far as the bytes received allow.
    private func stepHandshake() {
        guard phase == .handshaking, let ssl, let context else { return }
        openSSL.ERR_clear_error()
        let status = openSSL.SSL_do_handshake(ssl)
        // The ClientHello, the Finished message, or an alert.
        flushOutbound()
        if status == 1 {
            handshakeFinished(ssl)
            return
        }
        if openSSL.SSL_get_error(ssl, status) == SSL_ERROR_WANT_READ {
            setLowerReading(true)
            return
        }
        failBeforeConnect(TLSFailure.handshake(ssl, status: status, verifiesCertificates: context.verifiesCertificates, openSSL))
    }

    private func handshakeFinished(_ ssl: OpaquePointer) {
        // OpenSSL refuses a protocol we did not offer; a server may also
        // choose none (it does not speak ALPN), which means HTTP/1.1 here.
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        openSSL.SSL_get0_alpn_selected(ssl, &selected, &length)
        if length > 0, let selected {
            let name = String(decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
            if name == "h2" && offersHTTP2 {
                isHTTP2Negotiated = true
            } else if name != "http/1.1" {
                failBeforeConnect(UVURLError(.secureConnectionFailed, detail: "the server chose ALPN protocol \"\(name)\""))
                return
            }
        }
        phase = .established
        handshakeEnd = loop.now.uptimeNanoseconds
        plaintext = UnsafeMutableRawPointer.allocate(byteCount: Self.plaintextCapacity, alignment: 16)
        handler?.connectionDidConnect()
        // The session started reading inside that call (or closed us).
        guard phase == .established else { return }
        processInput()
    }

    // MARK: Records

    /// Delivers decrypted records while the session reads; then either
    /// waits for TCP (reading it) or, without demand, leaves the rest
    /// buffered and stops TCP.
    private func processInput() {
        guard phase == .established, let ssl, let plaintext else { return }
        isDelivering = true
        defer {
            isDelivering = false
            // The session's writes during the delivery, in one TCP write.
            flushOutbound()
        }
        while wantsReads {
            openSSL.ERR_clear_error()
            var count = 0
            let status = openSSL.SSL_read_ex(ssl, plaintext, Self.plaintextCapacity, &count)
            if status == 1 {
                handler?.connectionDidRead(UnsafeRawBufferPointer(start: plaintext, count: count))
                // The session may have closed, or failed, the connection.
                guard phase == .established else { return }
                continue
            }
            let kind = openSSL.SSL_get_error(ssl, status)
            // Reading may produce bytes to send (a TLS 1.3 key update).
            flushOutbound()
            switch kind {
            case SSL_ERROR_WANT_READ:
                if lowerEnded {
                    // TCP ended without close_notify (perhaps inside a
                    // record): the end is not authenticated.
                    reportEnd(closeNotify: false)
                } else {
                    setLowerReading(true)
                }
            case SSL_ERROR_ZERO_RETURN:
                // The server's close_notify.
                reportEnd(closeNotify: true)
            default:
                phase = .failed
                setLowerReading(false)
                handler?.connectionDidFail(TLSFailure.records(ssl, status: status, openSSL))
            }
            return
        }
        setLowerReading(false)
    }

    private func reportEnd(closeNotify: Bool) {
        guard !endReported else { return }
        endReported = true
        setLowerReading(false)
        if closeNotify {
            handler?.connectionDidReachEndOfStream()
        } else {
            handler?.connectionDidReachEndOfStreamWithoutCloseNotify()
        }
    }

    /// Whether bytes wait for delivery (or the end of the stream does).
    private var hasBufferedInput: Bool {
        guard let ssl, let networkIn else { return false }
        return openSSL.SSL_has_pending(ssl) == 1 || openSSL.BIO_ctrl_pending(networkIn) > 0 || (lowerEnded && !endReported)
    }

    private func scheduleDrain() {
        guard !isDrainScheduled, let drainAction else { return }
        isDrainScheduled = true
        loop.schedule(drainAction)
    }

    private func scheduledDrain() {
        isDrainScheduled = false
        guard phase == .established, wantsReads, !isDelivering else { return }
        processInput()
    }

    // MARK: TCP

    private func setLowerReading(_ reading: Bool) {
        guard reading != isLowerReading, let lower else { return }
        isLowerReading = reading
        if reading {
            lower.startReading()
        } else {
            lower.stopReading()
        }
    }

    /// Hands what OpenSSL wrote to its output BIO to TCP.
    private func flushOutbound() {
        guard let networkOut, let lower else { return }
        var start: UnsafeMutablePointer<CChar>?
        let count = cuvc_bio_get_mem_data(openSSL.BIO_ctrl, networkOut, &start)
        guard count > 0, let start else { return }
        // Fresh storage only when TCP still holds this array's last write.
        outbound.removeAll(keepingCapacity: true)
        outbound.append(contentsOf: UnsafeRawBufferPointer(start: start, count: count))
        _ = cuvc_bio_reset(openSSL.BIO_ctrl, networkOut)
        lower.write(outbound)
        swap(&outbound, &writtenOutbound)
    }

    // MARK: Failures

    private func failBeforeConnect(_ error: UVURLError) {
        phase = .failed
        setLowerReading(false)
        handler?.connectionDidFailToConnect(error)
    }

    /// Reports `error` in the loop's next iteration: a call from the
    /// session never calls back inside it.
    private func reportLater(_ error: UVURLError, beforeConnect: Bool) {
        phase = .failed
        setLowerReading(false)
        pendingFailure = (error, beforeConnect)
        loop.schedule { [weak self] in self?.reportPendingFailure() }
    }

    private func reportPendingFailure() {
        guard phase == .failed, let failure = pendingFailure, let handler else { return }
        pendingFailure = nil
        if failure.beforeConnect {
            handler.connectionDidFailToConnect(failure.error)
        } else {
            handler.connectionDidFail(failure.error)
        }
    }

    private func freeSSL() {
        if let ssl { openSSL.SSL_free(ssl) }
        ssl = nil
        networkIn = nil
        networkOut = nil
        plaintext?.deallocate()
        plaintext = nil
    }

    /// Whether `host` is a literal IPv4 or IPv6 address (verified against
    /// the certificate's IP addresses, and never sent as SNI).
    package static func isIPAddress(_ host: String) -> Bool {
        var buffer = in6_addr()
        return host.withCString { name in
            inet_pton(AF_INET, name, &buffer) == 1 || inet_pton(AF_INET6, name, &buffer) == 1
        }
    }
}
