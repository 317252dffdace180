import UVCombineHTTPCore

// Streamed request bodies: the body publisher subscribed behind the
// request head, one chunk asked for at a time as the writes complete,
// framed for Content-Length or chunked transfer coding, and its end or
// failure.
extension SessionEngine {
    // MARK: Streamed request bodies

    /// The head was written: subscribes to the body publisher for this
    /// exchange and asks for the first chunk (written behind the head), as
    /// the exchange machine's `.writeRequest(startsBody: true)` says.
    package func startBody(of task: SessionTask) {
        guard let source = task.spec.streamedBody else { return }
        let stream = source.makeStream(self)
        stream.task = task
        task.bodyStream = stream
        // Chunks sent synchronously (a `Just`, a sequence) arrive as
        // operations deferred to the end of this turn.
        stream.subscribeUpstream()
        stream.requestChunk()
    }

    /// Forgets the task's body stream; cancels its subscription unless
    /// the publisher completed.
    package func endBodyStream(of task: SessionTask, cancellingUpstream: Bool) {
        guard let stream = task.bodyStream else { return }
        task.bodyStream = nil
        stream.task = nil
        if cancellingUpstream { stream.cancelUpstream() }
    }

    /// The task's stream, when `stream` is still its current one and the
    /// exchange is on a connection.
    private func bodyTarget(of stream: BodyStream) -> (SessionTask, SessionConnection, any HTTPConnectionIO)? {
        guard let task = stream.task, task.bodyStream === stream, task.exchange.phase == .exchanging,
              let connection = connection(of: task), let io = connection.io else { return nil }
        return (task, connection, io)
    }

    package func bodyChunk(_ stream: BodyStream, _ chunk: any RequestBodyChunk) {
        if http2BodyChunk(stream, chunk) { return }
        guard let (task, connection, io) = bodyTarget(of: stream) else { return }
        let chunked: Bool
        switch task.exchange.bodyChunkArrived(count: chunk.count, hasPendingWrites: io.hasPendingWrites) {
        case .none:
            // Empty, with writes in flight: their completion asks again.
            return
        case .requestChunk:
            // Empty, with nothing in flight: ask again now.
            bodyWritesCompleted(task)
            return
        case .fail(let error):
            bodyFailed(task, error)
            return
        case .write(let isChunked):
            chunked = isChunked
        }
        var bytes: [UInt8]
        if chunk.count <= Self.reusedBodyBufferLimit {
            // One buffer per connection: unique again once its write
            // completed, which is when the next chunk is asked for.
            bytes = connection.bodyWriteBuffer
            connection.bodyWriteBuffer = []
            bytes.removeAll(keepingCapacity: true)
        } else {
            // A huge chunk gets an array of its own, so the connection
            // does not keep its capacity.
            bytes = []
            bytes.reserveCapacity(chunk.count + 24)
        }
        if chunked {
            chunk.withUnsafeBytes { HTTPRequestWriter.appendChunk($0, to: &bytes) }
        } else {
            chunk.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
        peakUploadBytesInFlight = max(peakUploadBytesInFlight,
                                      task.exchange.bodyBytesWritten - task.exchange.bodyBytesCompleted)
        if let wireObserver { bytes.withUnsafeBytes { wireObserver.sessionWillWrite($0) } }
        if task.metrics != nil { metricsBodySent(task, bytes: bytes.count) }
        io.write(bytes)
        if chunk.count <= Self.reusedBodyBufferLimit { connection.bodyWriteBuffer = bytes }
    }

    /// Chunks up to this size are copied into the connection's reused
    /// body buffer.
    private static let reusedBodyBufferLimit = 1 << 20

    /// The end of a chunked body, shared by every request (written as
    /// it is: no copy).
    private static let lastChunk: [UInt8] = {
        var bytes: [UInt8] = []
        HTTPRequestWriter.appendLastChunk(to: &bytes)
        return bytes
    }()

    package func bodyEnded(_ stream: BodyStream, _ error: UVURLError?) {
        if http2BodyEnded(stream, error) { return }
        guard let (task, _, io) = bodyTarget(of: stream) else { return }
        if let error {
            bodyFailed(task, error)
            return
        }
        switch task.exchange.bodyFinished() {
        case .fail(let error):
            bodyFailed(task, error)
        case .none:
            endBodyStream(of: task, cancellingUpstream: false)
        case .writeLastChunk:
            endBodyStream(of: task, cancellingUpstream: false)
            let last = Self.lastChunk
            if let wireObserver { last.withUnsafeBytes { wireObserver.sessionWillWrite($0) } }
            io.write(last)
        }
    }

    /// Everything written was taken by the kernel: progress, and the next
    /// chunk, as the exchange machine says.
    package func bodyWritesCompleted(_ task: SessionTask) {
        let action = task.exchange.writesCompleted()
        if let sent = action.progress, let progress = task.spec.streamedBody?.progress {
            progress(UVURLSession.UploadProgress(bytesSent: Int64(sent),
                                                 totalBytesExpectedToSend: task.spec.streamedBodyLength.map { Int64($0) }))
        }
        if action.requestsChunk, let stream = task.bodyStream { stream.requestChunk() }
    }

    /// The body publisher failed or broke its length: the exchange fails
    /// and its connection is closed (the server saw part of a request).
    private func bodyFailed(_ task: SessionTask, _ error: UVURLError) {
        endBodyStream(of: task, cancellingUpstream: true)
        requestFailed(task, error)
    }
}
