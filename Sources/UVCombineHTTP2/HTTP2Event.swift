import HTTPTypes

/// What happened on an ``HTTP2ClientConnection``, delivered to its
/// ``HTTP2ConnectionDelegate`` while the owner calls into the connection
/// (``HTTP2ClientConnection/receive(_:now:)``,
/// ``HTTP2ClientConnection/produceOutput(into:)``, ...).
///
/// Per stream, in order: any number of ``informationalHead(_:_:)``, one
/// ``head(_:_:)``, ``data(_:_:)`` chunks, at most one ``trailers(_:_:)``,
/// then exactly one of ``end(_:)`` or ``streamFailed(_:_:)``, unless the
/// owner cancelled the stream (then nothing more). ``uploadWanted(_:)``
/// may come any time the stream's upload is running.
///
/// Threading: `data`'s buffer points into the bytes being received and is
/// valid only during the delegate call: copy what you keep. Not Sendable.
///
/// ```swift
/// func http2Connection(_ connection: HTTP2ClientConnection, didReceive event: HTTP2Event) {
///     switch event {
///     case .head(let id, let response): print(id, response.status.code) // Prints: "1 200"
///     case .data(let id, let bytes): body.append(contentsOf: bytes); connection.consume(bytes.count, on: id)
///     default: break
///     }
/// }
/// ```
public enum HTTP2Event {
    /// The server's SETTINGS arrived (first, and on every change): the
    /// pool's stream limit per connection is `maxConcurrentStreams`.
    case settingsReceived(HTTP2PeerSettings)
    /// Our PING came back after `roundTripNanoseconds` (measured with the
    /// `now` the owner passed to ``HTTP2ClientConnection/sendPing(now:)``
    /// and ``HTTP2ClientConnection/receive(_:now:)``).
    case pingAcknowledged(roundTripNanoseconds: UInt64)
    /// The server sent GOAWAY. Streams above `lastStreamID` follow as
    /// ``streamFailed(_:_:)`` with a retryable ``HTTP2Error/Kind/refusedStream``;
    /// those at or below it run to completion (`errorCode` `NO_ERROR`) or
    /// fail when the connection ends. No new stream may be opened.
    case goAwayReceived(lastStreamID: HTTP2StreamID, errorCode: HTTP2ErrorCode, debugData: String)
    /// The connection failed (a hostile-peer limit, a protocol or
    /// compression error, a lost connection). Every open stream follows
    /// with ``streamFailed(_:_:)``. Write what ``HTTP2ClientConnection/produceOutput(into:)``
    /// still gives (the GOAWAY), then close the socket.
    case connectionFailed(HTTP2Error)
    /// A 1xx response head (`100 Continue`, `103 Early Hints`, ...).
    case informationalHead(HTTP2StreamID, HTTPResponse)
    /// The final response head.
    case head(HTTP2StreamID, HTTPResponse)
    /// A chunk of the response body. Valid only during the call. It counts
    /// against the stream's window until the owner passes its size to
    /// ``HTTP2ClientConnection/consume(_:on:)``.
    case data(HTTP2StreamID, UnsafeRawBufferPointer)
    /// The response's trailer fields.
    case trailers(HTTP2StreamID, HTTPFields)
    /// The response ended (END_STREAM): the exchange is complete.
    case end(HTTP2StreamID)
    /// The stream failed; ``HTTP2Error/isRetryable`` says whether the
    /// request may be sent again on another connection.
    case streamFailed(HTTP2StreamID, HTTP2Error)
    /// A streamed upload sent everything it was given: append the next
    /// chunk (``HTTP2ClientConnection/appendUpload(_:to:)``) or finish it.
    case uploadWanted(HTTP2StreamID)
}

/// Receives an ``HTTP2ClientConnection``'s events.
///
/// Threading: called on the thread that called into the connection, from
/// inside that call. The delegate may call the connection's methods
/// (``HTTP2ClientConnection/consume(_:on:)``, ``HTTP2ClientConnection/cancelStream(_:)``,
/// ``HTTP2ClientConnection/openStream(_:body:)``, ...) except `receive`
/// and `produceOutput` (they trap when re-entered).
///
/// ```swift
/// final class Recorder: HTTP2ConnectionDelegate {
///     var heads: [HTTPResponse] = []
///     func http2Connection(_ connection: HTTP2ClientConnection, didReceive event: HTTP2Event) {
///         if case .head(_, let head) = event { heads.append(head) }
///     }
/// }
/// ```
public protocol HTTP2ConnectionDelegate: AnyObject {
    /// One event; see ``HTTP2Event`` for the order.
    func http2Connection(_ connection: HTTP2ClientConnection, didReceive event: HTTP2Event)
}
