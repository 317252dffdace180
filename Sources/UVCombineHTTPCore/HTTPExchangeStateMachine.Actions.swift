// What the exchange machine asks of its owner: one action type per event
// that decides something.

extension HTTPExchangeStateMachine {
    /// What ``start()`` asks.
    ///
    /// ```swift
    /// if exchange.start() == .issue { issue(task) }
    /// ```
    public enum StartAction: Equatable, Sendable {
        /// Nothing: the task was cancelled first, or started already.
        case none
        /// Check the request and hand it to the pool.
        case issue
    }

    /// What ``cancel()`` asks.
    ///
    /// ```swift
    /// if exchange.cancel() == .leavePool { pool.cancelRequest(id, now: now) }
    /// ```
    public enum CancelAction: Equatable, Sendable {
        /// Nothing: not started, or ended already.
        case none
        /// Take the request out of the pool (and off its connection),
        /// stop its deadlines, cancel its body stream.
        case leavePool
    }

    /// What ``executed()`` asks.
    ///
    /// ```swift
    /// case .writeRequest(let startsBody): write(head); if startsBody { subscribeToBody() }
    /// ```
    public enum ExecuteAction: Equatable, Sendable {
        /// Write the request (its head, or head and body); with
        /// `startsBody`, subscribe to the streamed body's publisher and
        /// ask for a chunk.
        case writeRequest(startsBody: Bool)
    }

    /// What ``responseBytesReceived()`` asks.
    public enum ReceiveAction: Equatable, Sendable {
        /// Nothing.
        case none
        /// Tell the pool the first response byte came (no retry now).
        case reportFirstBytes
    }

    /// What ``responseHead(_:)`` asks.
    public enum HeadAction: Equatable, Sendable {
        /// Hand the head over (a streaming task) or keep it (a data task).
        case deliver
        /// Drop this response's body; follow the redirect at its end.
        case discardBody
    }

    /// What ``responseEnded(keepAlive:hasTrailingBytes:hasPendingWrites:)`` asks.
    ///
    /// ```swift
    /// switch exchange.responseEnded(keepAlive: k, hasTrailingBytes: t, hasPendingWrites: w) {
    /// case .deliver(let reusable): pool.requestFinished(id, keepAlive: reusable); deliver()
    /// case .follow(let reusable): pool.requestFinished(id, keepAlive: reusable); issue(redirect)
    /// }
    /// ```
    public enum EndAction: Equatable, Sendable {
        /// The task is done: give the connection back (kept alive when
        /// `reusable`) and hand the outcome over.
        case deliver(reusable: Bool)
        /// Give the connection back and issue the redirect's request.
        case follow(reusable: Bool)
    }

    /// What a pause asks.
    public enum PauseAction: Equatable, Sendable {
        /// Stop reading (HTTP/2: withhold WINDOW_UPDATE) and suspend the
        /// idle timeout.
        case pause
    }

    /// What ``resume()`` asks.
    ///
    /// ```swift
    /// case .resume(let part): offer(part); var bytes = exchange.takeUnparsed(); parse(bytes); exchange.recycle(&bytes)
    /// ```
    public enum ResumeAction: Sendable {
        /// Nothing to resume.
        case none
        /// Restart the idle timeout, offer `heldPart` (if any) again, then
        /// parse the held bytes (``takeUnparsed()``), then read on.
        case resume(heldPart: HTTPResponsePart?)
    }

    /// What a streamed body's chunk asks (``bodyChunkArrived(count:hasPendingWrites:)``).
    ///
    /// ```swift
    /// switch exchange.bodyChunkArrived(count: chunk.count, hasPendingWrites: io.hasPendingWrites) {
    /// case .write(let chunked): write(chunk, framed: chunked)
    /// case .requestChunk: stream.requestChunk()
    /// case .none: break
    /// case .fail(let error): failExchange(error)
    /// }
    /// ```
    public enum BodyChunkAction: Equatable, Sendable {
        /// Nothing (an empty chunk while writes are in flight: their
        /// completion asks for the next).
        case none
        /// Write the chunk, in chunked framing when `chunked`.
        case write(chunked: Bool)
        /// Ask the publisher for the next chunk now (an empty chunk with
        /// nothing in flight).
        case requestChunk
        /// The body broke its `Content-Length`: fail the exchange (its
        /// connection is closed: the server saw part of a request).
        case fail(UVURLError)

        /// Equal cases with equal values; errors must agree on code and
        /// detail.
        public static func == (lhs: BodyChunkAction, rhs: BodyChunkAction) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none), (.requestChunk, .requestChunk): true
            case (.write(let a), .write(let b)): a == b
            case (.fail(let a), .fail(let b)): a == b && a.detail == b.detail
            default: false
            }
        }
    }

    /// What the end of a streamed body asks (``bodyFinished()``).
    public enum BodyEndAction: Equatable, Sendable {
        /// Nothing more to write (`Content-Length` framing).
        case none
        /// Write the last chunk (`0\r\n\r\n`).
        case writeLastChunk
        /// The body ended short of its `Content-Length`: fail the exchange.
        case fail(UVURLError)

        /// Equal cases with equal values; errors must agree on code and
        /// detail.
        public static func == (lhs: BodyEndAction, rhs: BodyEndAction) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none), (.writeLastChunk, .writeLastChunk): true
            case (.fail(let a), .fail(let b)): a == b && a.detail == b.detail
            default: false
            }
        }
    }

    /// What completed writes ask (``writesCompleted()``).
    ///
    /// ```swift
    /// let action = exchange.writesCompleted()
    /// if let sent = action.progress { report(sent) }
    /// if action.requestsChunk { stream.requestChunk() }
    /// ```
    public struct WritesCompletedAction: Equatable, Sendable {
        /// Body bytes sent so far, when that changed: report progress.
        public var progress: Int?
        /// Ask the publisher for the next chunk.
        public var requestsChunk: Bool

        /// An action.
        public init(progress: Int? = nil, requestsChunk: Bool = false) {
            self.progress = progress
            self.requestsChunk = requestsChunk
        }
    }
}
