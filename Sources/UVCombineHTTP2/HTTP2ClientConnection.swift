internal import CUVCombineLazyLibraries
import HTTPTypes
import UVCombineHTTPCore

/// One HTTP/2 client connection (RFC 9113) as an I/O-free machine around
/// nghttp2's session: the owner feeds it the bytes it reads and writes the
/// bytes it produces; it opens streams for requests and reports what
/// happens to them as ``HTTP2Event``s to its ``delegate``.
///
/// - Cleartext with prior knowledge (`h2c`) and TLS with ALPN `h2`
///   (``HTTP2ALPN``) look the same here: the first output is the client
///   preface and our SETTINGS.
/// - Demand is flow control: nghttp2's automatic WINDOW_UPDATE is off. A
///   stream's window opens again only as the owner reports bytes consumed
///   (``consume(_:on:)``), so a stream whose subscriber asks for nothing
///   stops receiving after ``HTTP2Configuration/initialStreamWindowSize``
///   bytes while other streams flow: the connection's window is given back
///   as bytes arrive.
/// - Uploads are framed only as the peer's window allows
///   (``HTTP2RequestBody``).
/// - Cancel is RST_STREAM(CANCEL) (``cancelStream(_:)``).
/// - A hostile peer ends in a typed ``HTTP2Error`` and
///   ``HTTP2Event/connectionFailed(_:)`` (docs/http2.md lists the limits).
///
/// Threading: not thread-safe; confine it to one thread (the loop's). The
/// delegate is called from inside the call that caused the event.
///
/// ```swift
/// let connection = try HTTP2ClientConnection()
/// connection.delegate = engine
/// let id = try connection.openStream(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/"))
/// var out: [UInt8] = []
/// connection.produceOutput(into: &out)            // preface, SETTINGS, HEADERS: write them
/// bytesRead.withUnsafeBytes { connection.receive($0, now: now) }  // events reach engine
/// ```
public final class HTTP2ClientConnection {
    /// The settings and limits it was made with.
    public let configuration: HTTP2Configuration
    /// Receives the events. Held weakly: the owner holds the connection.
    public weak var delegate: (any HTTP2ConnectionDelegate)?

    /// nghttp2's functions (`NGHTTP2Library`), loaded before the session
    /// was made.
    internal let nghttp2: cuvc_nghttp2_functions
    /// nghttp2's session, ours from init to deinit.
    internal let session: OpaquePointer
    /// nghttp2's allocator: per-connection free lists, so its per-stream
    /// blocks are reused (released after the session, in deinit).
    package let blockCache: HTTP2BlockCache
    /// Open streams by id.
    internal var streams: [Int32: HTTP2StreamState] = [:]
    /// Inside `receive` or `produceOutput` (they must not nest).
    internal var isProcessing = false
    /// The owner's clock at the current `receive`, in nanoseconds.
    internal var now: UInt64 = 0
    /// Set once the connection failed.
    public internal(set) var failure: HTTP2Error?
    /// A limit a callback found broken, reported once the nghttp2 call
    /// returned.
    internal var pendingFailure: HTTP2Error?
    /// nghttp2's last error (error callback): code and message.
    internal var lastLibraryError: (code: Int32, message: String)?
    /// The peer's GOAWAY, when one came.
    public internal(set) var receivedGoAway: (lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode)?
    /// The code of the last GOAWAY serialised (on_frame_send).
    internal var sentGoAwayCode: HTTP2ErrorCode?
    /// Output pulled out of nghttp2 early (see `receive`), written first.
    internal var heldOutput: [UInt8] = []
    /// We sent (or queued) GOAWAY ourselves.
    internal var isShuttingDown = false
    /// The peer's last SETTINGS.
    public internal(set) var peerSettings: HTTP2PeerSettings?
    internal var resetLimit: HTTP2FrameRateLimit
    internal var pingLimit: HTTP2FrameRateLimit
    internal var settingsLimit: HTTP2FrameRateLimit
    /// Streams whose streamed upload ran dry during `produceOutput`; told
    /// once it returned (so the owner's append never runs inside nghttp2's
    /// data callback).
    internal var drainedUploads: [Int32] = []
    /// Reused for every request's header block (no allocation per request
    /// once grown).
    internal var headerBytes: [UInt8] = []
    internal var headerSpans: [(name: Range<Int>, value: Range<Int>)] = []
    internal var headerVectors: [nghttp2_nv] = []
    /// The last final head, reused while the server repeats it.
    internal var headCache = HTTP2HeadCache()

    /// Creates a client session and queues the preface and our SETTINGS
    /// (ENABLE_PUSH 0, the window, table and header list sizes of
    /// `configuration`), and the connection window update.
    ///
    /// libnghttp2 is loaded at the first connection of the process
    /// (`NGHTTP2Library`), not when it starts.
    ///
    /// Throws ``HTTP2Error/Kind/invalidRequest`` when libnghttp2.so.14
    /// cannot be loaded (detail `"cannot load libnghttp2: "` and the
    /// loader's reason; a data task fails with `.invalidRequest`), and
    /// ``HTTP2Error/Kind/protocolError`` when nghttp2 cannot allocate its
    /// session.
    public convenience init(configuration: HTTP2Configuration = HTTP2Configuration()) throws(HTTP2Error) {
        try self.init(configuration: configuration, nghttp2: NGHTTP2Library.load())
    }

    /// The same with libnghttp2 loaded from `nghttp2Library` (a soname or
    /// path, loaded anew): for tests of a missing or wrong library.
    package convenience init(configuration: HTTP2Configuration = HTTP2Configuration(),
                             nghttp2Library: String) throws(HTTP2Error) {
        try self.init(configuration: configuration, nghttp2: NGHTTP2Library.load(soname: nghttp2Library))
    }

    private init(configuration: HTTP2Configuration, nghttp2: cuvc_nghttp2_functions) throws(HTTP2Error) {
        self.configuration = configuration
        self.nghttp2 = nghttp2
        let window = HTTP2ClientConnection.nanoseconds(configuration.floodWindow)
        resetLimit = HTTP2FrameRateLimit(limit: configuration.maxPeerResets, windowNanoseconds: window)
        pingLimit = HTTP2FrameRateLimit(limit: configuration.maxPeerPings, windowNanoseconds: window)
        settingsLimit = HTTP2FrameRateLimit(limit: configuration.maxPeerSettingsFrames, windowNanoseconds: window)
        blockCache = HTTP2BlockCache()
        guard let made = HTTP2ClientConnection.makeSession(configuration, nghttp2, blockCache: blockCache) else {
            throw HTTP2Error(.protocolError, detail: "nghttp2_session_client_new3 failed")
        }
        session = made
        nghttp2.session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var settings: [nghttp2_settings_entry] = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: UInt32(max(configuration.initialStreamWindowSize, 0))),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue),
                                   value: UInt32(clamping: configuration.headerTableSize)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(clamping: configuration.maxHeaderListSize)),
        ]
        _ = nghttp2.submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // Why a connection window far above the stream window: bytes return
        // to it on arrival, so it only has to cover what is in flight.
        _ = nghttp2.session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                                  configuration.connectionWindowSize)
    }

    deinit {
        // Frees into blockCache, which is released after this body.
        nghttp2.session_del(session)
    }

    // MARK: Bytes in and out

    /// Processes bytes read from the socket, at `now` (the owner's
    /// monotonic clock: PING round trips and flood windows). Events reach
    /// the delegate before it returns. After a failure it ignores input.
    public func receive(_ bytes: UnsafeRawBufferPointer, now: HTTPDeadline) {
        if isProcessing { httpViolation("HTTP2ClientConnection.receive must not be called from its delegate") }
        guard failure == nil, !bytes.isEmpty else { return }
        isProcessing = true
        self.now = now.uptimeNanoseconds
        lastLibraryError = nil
        let queuedBefore = nghttp2.session_get_outbound_queue_size(session)
        let result = nghttp2.session_mem_recv(session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        isProcessing = false
        if result < 0 {
            failConnection(pendingFailure ?? error(forLibraryCode: Int32(result), message: lastLibraryError?.message))
            return
        }
        // nghttp2 handles most connection errors itself (a frame in the
        // wrong state, HPACK, flow control): it queues GOAWAY and says so
        // nowhere we can ask before the GOAWAY is serialised. So when this
        // read queued control frames (the count leaves DATA out), the
        // output is pulled out now and kept for the owner's next
        // produceOutput; a GOAWAY of ours in it is a connection error.
        guard failure == nil, !isShuttingDown, nghttp2.session_get_outbound_queue_size(session) > queuedBefore else { return }
        sentGoAwayCode = nil
        isProcessing = true
        serialize(into: &heldOutput)
        isProcessing = false
        if let code = sentGoAwayCode, failure == nil, !isShuttingDown {
            failConnection(error(forLibraryCode: lastLibraryError?.code, goAwayCode: code,
                                                       message: lastLibraryError?.message))
        }
    }

    /// Everything nghttp2 has to send, appended to `buffer`.
    internal func serialize(into buffer: inout [UInt8]) {
        while true {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2.session_mem_send(session, &pointer)
            guard count > 0, let pointer else { return }
            buffer.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }

    /// Appends the bytes to write (preface, SETTINGS, HEADERS, DATA as the
    /// peer's windows allow, WINDOW_UPDATE, PING, RST_STREAM, GOAWAY) to
    /// `buffer`; how many. Call it after every call that may have queued
    /// something (all of them) and write the bytes in order.
    @discardableResult
    public func produceOutput(into buffer: inout [UInt8]) -> Int {
        if isProcessing { httpViolation("HTTP2ClientConnection.produceOutput must not be called from its delegate") }
        isProcessing = true
        var total = heldOutput.count
        if !heldOutput.isEmpty {
            buffer.append(contentsOf: heldOutput)
            heldOutput.removeAll()
        }
        while true {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2.session_mem_send(session, &pointer)
            if count <= 0 || pointer == nil {
                if count < 0 && failure == nil {
                    isProcessing = false
                    failConnection(error(forLibraryCode: Int32(count), message: lastLibraryError?.message))
                    isProcessing = true
                }
                break
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
            total += count
        }
        isProcessing = false
        if !drainedUploads.isEmpty {
            // Swapped out, not copied: the delegate may append more.
            var drained: [Int32] = []
            swap(&drained, &drainedUploads)
            for id in drained where streams[id]?.isCancelled == false {
                emit(.uploadWanted(HTTP2StreamID(id)))
            }
        }
        return total
    }

    /// Whether there is something to write (``produceOutput(into:)``).
    public var wantsToWrite: Bool { !heldOutput.isEmpty || nghttp2.session_want_write(session) != 0 }

    /// Whether the connection is done: nothing more to read or write
    /// (after GOAWAY both ways, or a failure). Close the socket.
    public var isFinished: Bool {
        failure != nil || (nghttp2.session_want_read(session) == 0 && nghttp2.session_want_write(session) == 0)
    }

    /// Whether a new stream may be opened: no failure, no GOAWAY either way.
    public var canOpenStreams: Bool { failure == nil && receivedGoAway == nil && !isShuttingDown }

    /// Streams opened and not yet ended, failed or cancelled.
    public var openStreamCount: Int { streams.count }

    // MARK: Connection-level actions

    /// Queues a PING whose payload is `now`; its acknowledgement is
    /// reported as ``HTTP2Event/pingAcknowledged(roundTripNanoseconds:)``.
    public func sendPing(now: HTTPDeadline) {
        var payload = now.uptimeNanoseconds.bigEndian
        withUnsafeBytes(of: &payload) { bytes in
            _ = nghttp2.submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Graceful shutdown: queues GOAWAY(NO_ERROR); open streams run to
    /// their end, no new ones may be opened; ``isFinished`` turns true once
    /// they ended and the GOAWAY was written.
    public func shutdown() {
        guard !isShuttingDown, failure == nil else { return }
        isShuttingDown = true
        _ = nghttp2.submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2.session_get_last_proc_stream_id(session),
                                  HTTP2ErrorCode.noError.rawValue, nil, 0)
    }

    /// The socket ended (end of file or an error): every open stream fails
    /// with ``HTTP2Error/Kind/connectionLost`` (``HTTP2Error/Kind/goAway``
    /// after a GOAWAY with an error code). Reports no
    /// ``HTTP2Event/connectionFailed(_:)``: the owner knows.
    public func connectionEnded(detail: String? = nil) {
        guard failure == nil else { return }
        let error: HTTP2Error
        if let goAway = receivedGoAway, goAway.errorCode != .noError {
            error = HTTP2Error(.goAway, errorCode: goAway.errorCode, detail: detail)
        } else {
            error = HTTP2Error(.connectionLost, detail: detail)
        }
        failure = error
        failOpenStreams(error)
    }

    // MARK: Failing

    /// Ends the connection with `error`: queues GOAWAY with the matching
    /// code, reports ``HTTP2Event/connectionFailed(_:)`` and fails every
    /// open stream.
    internal func failConnection(_ error: HTTP2Error) {
        guard failure == nil else { return }
        failure = error
        pendingFailure = nil
        _ = nghttp2.session_terminate_session(session, (error.errorCode ?? .protocolError).rawValue)
        emit(.connectionFailed(error))
        failOpenStreams(error)
    }

    internal func failOpenStreams(_ error: HTTP2Error) {
        let open = streams.filter { !$0.value.isCancelled && $0.value.phase != .ended }.keys.sorted()
        streams.removeAll()
        for id in open { emit(.streamFailed(HTTP2StreamID(id), error)) }
    }

    internal func emit(_ event: HTTP2Event) {
        delegate?.http2Connection(self, didReceive: event)
    }

    /// A connection error nghttp2 handled itself: the library code when it
    /// names a kind of ours, else the GOAWAY code it sent.
    internal func error(forLibraryCode code: Int32?, goAwayCode: HTTP2ErrorCode?, message: String?) -> HTTP2Error {
        if let code, code != NGHTTP2_ERR_PROTO.rawValue, code != NGHTTP2_ERR_CALLBACK_FAILURE.rawValue {
            return error(forLibraryCode: code, message: message)
        }
        switch goAwayCode {
        case .compressionError?: return HTTP2Error(.compressionError, errorCode: .compressionError, detail: message)
        case .flowControlError?: return HTTP2Error(.flowControlError, errorCode: .flowControlError, detail: message)
        case let other?: return HTTP2Error(.protocolError, errorCode: other, detail: message)
        case nil: return error(forLibraryCode: code ?? NGHTTP2_ERR_PROTO.rawValue, message: message)
        }
    }

    /// nghttp2's error codes as our kinds.
    internal func error(forLibraryCode code: Int32, message: String?) -> HTTP2Error {
        switch code {
        case NGHTTP2_ERR_HEADER_COMP.rawValue:
            HTTP2Error(.compressionError, errorCode: .compressionError, detail: message)
        case NGHTTP2_ERR_FLOW_CONTROL.rawValue:
            HTTP2Error(.flowControlError, errorCode: .flowControlError, detail: message)
        case NGHTTP2_ERR_FLOODED.rawValue:
            HTTP2Error(.ackFlood, errorCode: .enhanceYourCalm, detail: message)
        case NGHTTP2_ERR_TOO_MANY_SETTINGS.rawValue:
            HTTP2Error(.settingsFlood, errorCode: .enhanceYourCalm, detail: message)
        case NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue:
            HTTP2Error(.continuationFlood, errorCode: .enhanceYourCalm, detail: message)
        default:
            HTTP2Error(.protocolError, errorCode: .protocolError,
                       detail: message ?? nghttp2.message(for: code))
        }
    }

    /// `duration` in nanoseconds, saturating; negative is 0.
    internal static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, overflow2) = whole.addingReportingOverflow(UInt64(max(attoseconds, 0) / 1_000_000_000))
        return overflow || overflow2 ? .max : sum
    }
}
