import UVCombineHTTP2
import UVCombineHTTPCore

/// The HTTP/2 side of one ``SessionConnection`` (issue 33): the I/O-free
/// ``HTTP2ClientConnection`` (nghttp2) that frames its bytes, the task
/// each open stream carries, and the output written after every call.
///
/// Made when the connection comes up speaking HTTP/2 (ALPN `h2`, or
/// prior knowledge on cleartext); the ``SessionConnection`` then forwards
/// its transport events here instead of to the HTTP/1.1 path. The codec
/// reports to this object (its delegate), which hands every event to the
/// engine (`SessionEngine+HTTP2.swift`). The pool owns which requests run
/// on the connection; ``streams`` is the engine's way from a stream id to
/// its task and back, set when a stream opens and cleared when it ends,
/// fails or is reset.
///
/// Threading: loop thread only.
package final class HTTP2SessionConnection: DeadlineEntry, HTTP2ConnectionDelegate {
    /// The codec: bytes in, bytes out, events to this object.
    package let codec: HTTP2ClientConnection
    /// The socket's owner.
    package unowned let connection: SessionConnection
    private unowned let engine: SessionEngine
    /// Open streams by id: the task and what waits for its subscriber.
    @exclusivity(unchecked) package var streams: [Int32: HTTP2SessionStream] = [:]
    /// Stream ids by the pool's request id.
    @exclusivity(unchecked) package var streamIDs: [ConnectionPoolStateMachine.RequestID: Int32] = [:]
    /// Inside `codec.receive`: output waits until it returns (the codec
    /// cannot produce output from inside its own callbacks).
    @exclusivity(unchecked) package var isReceiving = false
    /// Opening several streams at once: one write for all their HEADERS.
    @exclusivity(unchecked) package var isBatching = false
    /// The buffer the next flush fills: two buffers in turn, since the
    /// transport keeps the array it was given (a reference) until the
    /// kernel took the bytes (its write callback, in the loop's next
    /// iteration): the one written last is ``writtenOutput``, this one was
    /// written the time before and is normally free again, so its storage
    /// is reused. Should the transport still hold it, `removeAll` copies
    /// on write (fresh storage): never wrong, only slower.
    @exclusivity(unchecked) private var output: [UInt8] = []
    /// The buffer written last (the transport may still hold it).
    @exclusivity(unchecked) private var writtenOutput: [UInt8] = []
    /// Queued on the engine's list of connections to flush at the end of
    /// the turn (``SessionEngine/deferHTTP2Flush(_:)``).
    @exclusivity(unchecked) package var isFlushPending = false
    /// PING keep-alive (``UVURLSession/Configuration/http2PingInterval``),
    /// on the session's deadline heap with this object as its entry; nil
    /// when off.
    @exclusivity(unchecked) package var keepAlive: HTTP2KeepAliveStateMachine?
    /// PINGs acknowledged (tests).
    @exclusivity(unchecked) package var pingsAcknowledged = 0

    package init(codec: HTTP2ClientConnection, connection: SessionConnection, engine: SessionEngine) {
        self.codec = codec
        self.connection = connection
        self.engine = engine
        super.init()
    }

    /// Writes what the codec has to send, unless inside `receive` or a
    /// batch (their end flushes). Inside an engine turn the write waits
    /// for the turn's end (``SessionEngine/endTurn()``): everything the
    /// turn queued (the HEADERS of the requests its completions started,
    /// WINDOW_UPDATEs) goes out in one write.
    package func flush() {
        guard !isReceiving, !isBatching, connection.io != nil else { return }
        if engine.deferHTTP2Flush(self) { return }
        flushNow()
    }

    /// Writes what the codec has to send now (the turn's end, or a close
    /// that must not lose a queued GOAWAY or RST_STREAM).
    package func flushNow() {
        isFlushPending = false
        guard !isReceiving, let io = connection.io else { return }
        output.removeAll(keepingCapacity: true)
        guard codec.produceOutput(into: &output) > 0, connection.io != nil else { return }
        io.write(output)
        swap(&output, &writtenOutput)
    }

    /// Records a stream opened for `task`.
    package func add(_ id: HTTP2StreamID, for task: SessionTask) {
        streams[id.rawValue] = HTTP2SessionStream(task: task)
        streamIDs[task.requestID] = id.rawValue
    }

    /// Forgets a stream (ended, failed or reset); its id, if it was known.
    @discardableResult
    package func remove(_ request: ConnectionPoolStateMachine.RequestID) -> HTTP2StreamID? {
        guard let id = streamIDs.removeValue(forKey: request) else { return nil }
        streams[id] = nil
        return HTTP2StreamID(id)
    }

    // MARK: HTTP2ConnectionDelegate

    package func http2Connection(_ connection: HTTP2ClientConnection, didReceive event: HTTP2Event) {
        engine.http2Event(event, on: self)
    }
}

/// One open stream of an ``HTTP2SessionConnection``.
package struct HTTP2SessionStream {
    /// The task whose exchange the stream carries.
    package let task: SessionTask
    /// Body bytes that came while the subscriber had no demand (at most
    /// the stream's window: they are not consumed, so no WINDOW_UPDATE
    /// lets more come).
    package var held: [UInt8] = []
    /// END_STREAM came while bytes were held: the response ends once they
    /// are delivered.
    package var endPending = false
}
