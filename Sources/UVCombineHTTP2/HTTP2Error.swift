import HTTPTypes
import UVCombineHTTPCore

/// Why an HTTP/2 stream or connection failed: a kind, the HTTP/2 error
/// code sent or received when there is one, and a detail naming the rule
/// (nghttp2's message, or the limit that was passed).
///
/// Connection-level kinds (every hostile-peer limit, protocol and
/// compression errors, a lost connection) end the whole connection: the
/// ``HTTP2ClientConnection`` reports ``HTTP2Event/connectionFailed(_:)``,
/// fails each open stream with the same error, queues a GOAWAY where it
/// still can, and wants to be closed. Stream-level kinds
/// (``Kind/streamReset``, ``Kind/refusedStream``) end one stream only.
///
/// ``isRetryable`` says the server did not process the request (RFC 9113,
/// section 8.7: `REFUSED_STREAM`, or a stream above a GOAWAY's last stream
/// id), so the engine may send it again on another connection.
/// ``urlError`` is what a data task fails with.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let error = HTTP2Error(.headerListTooLarge, detail: "70000 bytes, limit 65536")
/// print(error.urlError.code) // Prints: "badServerResponse"
/// ```
public struct HTTP2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was.
    ///
    /// ```swift
    /// if error.kind == .refusedStream { retry(request) }
    /// ```
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The peer broke RFC 9113 (a frame in the wrong state, a bad
        /// SETTINGS value, invalid response fields, ...). Connection error
        /// unless a stream error (then only that stream ends).
        case protocolError
        /// HPACK failed: a bad encoding, or a dynamic table size update
        /// above our SETTINGS_HEADER_TABLE_SIZE. Connection error.
        case compressionError
        /// The peer sent more DATA than our window allowed.
        case flowControlError
        /// A response's header list (or trailers) exceeded
        /// ``HTTP2Configuration/maxHeaderListSize`` (RFC 7541 size: name +
        /// value + 32 per field). Connection error: HPACK state cannot be
        /// skipped safely.
        case headerListTooLarge
        /// More CONTINUATION frames after one HEADERS than
        /// ``HTTP2Configuration/maxContinuations`` (CVE-2024-28182).
        case continuationFlood
        /// More RST_STREAM frames from the peer within the window than
        /// ``HTTP2Configuration/maxPeerResets`` allows.
        case resetFlood
        /// More PING frames from the peer within the window than
        /// ``HTTP2Configuration/maxPeerPings`` allows.
        case pingFlood
        /// More SETTINGS frames within the window than
        /// ``HTTP2Configuration/maxPeerSettingsFrames``, or more entries in
        /// one than ``HTTP2Configuration/maxSettingsEntries``.
        case settingsFlood
        /// More PING and SETTINGS acknowledgements queued (we were not
        /// writing) than ``HTTP2Configuration/maxOutboundAcks``.
        case ackFlood
        /// The stream was reset (RST_STREAM) by the peer, or by us for a
        /// stream error the peer caused; ``HTTP2Error/errorCode`` says why.
        case streamReset
        /// The peer refused the stream before processing it
        /// (`REFUSED_STREAM`, or the stream was above a GOAWAY's last
        /// stream id). Retryable.
        case refusedStream
        /// The peer sent GOAWAY with an error code; streams at or below its
        /// last stream id that were still open fail with this.
        case goAway
        /// The connection ended (end of input, a socket error) with the
        /// stream still open.
        case connectionLost
        /// A keep-alive PING was not acknowledged in time.
        case pingTimeout
        /// The request cannot be sent as HTTP/2: a pseudo-header missing,
        /// a field HTTP/2 forbids, no stream id left, or libnghttp2 cannot
        /// be loaded (`NGHTTP2Library`; the detail is `"cannot load
        /// libnghttp2: "` and the loader's reason).
        case invalidRequest
        /// The connection cannot open streams: GOAWAY was sent or
        /// received, or the connection failed.
        case connectionClosing

        /// The kind in words.
        public var description: String {
            switch self {
            case .protocolError: "protocol error"
            case .compressionError: "header compression error"
            case .flowControlError: "flow-control error"
            case .headerListTooLarge: "response header list too large"
            case .continuationFlood: "too many CONTINUATION frames"
            case .resetFlood: "too many RST_STREAM frames from the peer"
            case .pingFlood: "too many PING frames from the peer"
            case .settingsFlood: "too many SETTINGS from the peer"
            case .ackFlood: "too many acknowledgements queued"
            case .streamReset: "stream reset"
            case .refusedStream: "stream refused"
            case .goAway: "connection shut down by GOAWAY"
            case .connectionLost: "connection lost"
            case .pingTimeout: "keep-alive PING not acknowledged"
            case .invalidRequest: "invalid HTTP/2 request"
            case .connectionClosing: "connection closing"
            }
        }
    }

    /// What kind of failure it was.
    public let kind: Kind
    /// The HTTP/2 error code received (RST_STREAM, GOAWAY) or sent
    /// (our GOAWAY for a connection error), when there is one.
    public let errorCode: HTTP2ErrorCode?
    /// Precisely what went wrong, when there is more to say.
    public let detail: String?

    /// Creates an error.
    ///
    /// ```swift
    /// let reset = HTTP2Error(.streamReset, errorCode: .cancel)
    /// print(reset) // Prints: "stream reset [CANCEL (0x8)]"
    /// ```
    public init(_ kind: Kind, errorCode: HTTP2ErrorCode? = nil, detail: String? = nil) {
        self.kind = kind
        self.errorCode = errorCode
        self.detail = detail
    }

    /// Whether the peer did not process the request, so it may be sent
    /// again on another connection (RFC 9113, section 8.7).
    public var isRetryable: Bool { kind == .refusedStream }

    /// The data task's error: peer misbehaviour is `.badServerResponse`
    /// (the detail says which rule), a reset, GOAWAY or lost connection is
    /// `.networkConnectionLost`, a PING timeout `.timedOut` (idle read),
    /// a request HTTP/2 cannot carry `.invalidRequest`.
    ///
    /// ```swift
    /// print(HTTP2Error(.refusedStream).urlError.code) // Prints: "networkConnectionLost"
    /// ```
    public var urlError: UVURLError {
        switch kind {
        case .protocolError, .compressionError, .flowControlError, .headerListTooLarge, .continuationFlood,
             .resetFlood, .pingFlood, .settingsFlood, .ackFlood:
            UVURLError(.badServerResponse, detail: "HTTP/2: " + description)
        case .streamReset, .refusedStream, .goAway, .connectionLost, .connectionClosing:
            UVURLError(.networkConnectionLost, detail: "HTTP/2: " + description)
        case .pingTimeout:
            UVURLError(.timedOut, detail: "HTTP/2: " + description, timeoutKind: .idleRead)
        case .invalidRequest:
            UVURLError(.invalidRequest, detail: "HTTP/2: " + description)
        }
    }

    /// Errors are equal when their kinds and HTTP/2 codes are (the detail
    /// is for people), as `UVURLError` compares codes only.
    public static func == (lhs: HTTP2Error, rhs: HTTP2Error) -> Bool {
        lhs.kind == rhs.kind && lhs.errorCode == rhs.errorCode
    }

    /// Hashes the kind and the code, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(errorCode)
    }

    /// The kind, then the detail in parentheses and the code in brackets.
    public var description: String {
        var text = kind.description
        if let detail { text += " (\(detail))" }
        if let errorCode { text += " [\(errorCode)]" }
        return text
    }
}
