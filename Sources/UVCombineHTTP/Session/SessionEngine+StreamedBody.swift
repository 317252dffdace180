import FoundationEssentials
import UVCombineHTTPCore

// Streamed request bodies: the body publisher subscribed behind the
// request head, one chunk asked for at a time as the writes complete,
// framed for Content-Length or chunked transfer coding, and its end or
// failure.
extension SessionEngine {
    // MARK: Streamed request bodies

    /// The head was written: subscribes to the body publisher for this
    /// exchange and asks for the first chunk (written behind the head).
    internal func startBody(of task: SessionTask) {
        guard let source = task.spec.streamedBody else { return }
        task.bodyBytesWritten = 0
        task.bodyBytesCompleted = 0
        task.isBodyComplete = false
        task.isAwaitingBodyChunk = true
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
    internal func endBodyStream(of task: SessionTask, cancellingUpstream: Bool) {
        guard let stream = task.bodyStream else { return }
        task.bodyStream = nil
        task.isAwaitingBodyChunk = false
        stream.task = nil
        if cancellingUpstream { stream.cancelUpstream() }
    }

    /// The task's stream, when `stream` is still its current one and the
    /// exchange is on a connection.
    private func bodyTarget(of stream: BodyStream) -> (SessionTask, SessionConnection, any HTTPConnectionIO)? {
        guard let task = stream.task, task.bodyStream === stream, case .running = task.progress,
              let connection = task.connection, let io = connection.io else { return nil }
        return (task, connection, io)
    }

    internal func bodyChunk(_ stream: BodyStream, _ chunk: Data) {
        guard let (task, connection, io) = bodyTarget(of: stream) else { return }
        task.isAwaitingBodyChunk = false
        if chunk.isEmpty {
            // Nothing to write: ask again now, or when the writes in
            // flight complete.
            if !io.hasPendingWrites { bodyWritesCompleted(task) }
            return
        }
        if let length = task.spec.streamedBodyLength, task.bodyBytesWritten + chunk.count > length {
            bodyFailed(task, UVURLError(
                .requestBodyLengthMismatch,
                detail: "the body publisher sent \(task.bodyBytesWritten + chunk.count) bytes or more, past the Content-Length of \(length)"))
            return
        }
        let chunked = task.spec.streamedBodyLength == nil
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
            HTTPRequestWriter.appendChunk(chunk, to: &bytes)
        } else {
            chunk.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
        task.bodyBytesWritten += chunk.count
        peakUploadBytesInFlight = max(peakUploadBytesInFlight, task.bodyBytesWritten - task.bodyBytesCompleted)
        if let wireObserver { bytes.withUnsafeBytes { wireObserver.sessionWillWrite($0) } }
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

    internal func bodyEnded(_ stream: BodyStream, _ error: UVURLError?) {
        guard let (task, _, io) = bodyTarget(of: stream) else { return }
        if let error {
            bodyFailed(task, error)
            return
        }
        if let length = task.spec.streamedBodyLength, task.bodyBytesWritten != length {
            bodyFailed(task, UVURLError(
                .requestBodyLengthMismatch,
                detail: "the body publisher finished after \(task.bodyBytesWritten) of the \(length) bytes of its Content-Length"))
            return
        }
        endBodyStream(of: task, cancellingUpstream: false)
        task.isBodyComplete = true
        if task.spec.streamedBodyLength == nil {
            let last = Self.lastChunk
            if let wireObserver { last.withUnsafeBytes { wireObserver.sessionWillWrite($0) } }
            io.write(last)
        }
    }

    /// Everything written was taken by the kernel: progress, and the next
    /// chunk is asked for.
    internal func bodyWritesCompleted(_ task: SessionTask) {
        reportBodyProgress(of: task)
        guard let stream = task.bodyStream, !task.isAwaitingBodyChunk else { return }
        task.isAwaitingBodyChunk = true
        stream.requestChunk()
    }

    /// Reports the body bytes written so far as sent, when that changed.
    /// Only when nothing is pending.
    private func reportBodyProgress(of task: SessionTask) {
        guard task.bodyBytesCompleted != task.bodyBytesWritten else { return }
        task.bodyBytesCompleted = task.bodyBytesWritten
        guard let progress = task.spec.streamedBody?.progress else { return }
        progress(UVURLSession.UploadProgress(bytesSent: Int64(task.bodyBytesCompleted),
                                             totalBytesExpectedToSend: task.spec.streamedBodyLength.map { Int64($0) }))
    }

    /// The body publisher failed or broke its length: the exchange fails
    /// and its connection is closed (the server saw part of a request).
    private func bodyFailed(_ task: SessionTask, _ error: UVURLError) {
        endBodyStream(of: task, cancellingUpstream: true)
        requestFailed(task, error)
    }
}
