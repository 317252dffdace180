// One request's exchange as a pure state machine: its state, and one
// method per event, each returning what the owner does. Around it, as
// HTTPExchangeStateMachine*: .State.swift (phase, response and upload
// states), .Actions.swift (what an event asks of the owner) and
// +Transitions.swift (the upload's steps and the messages of impossible
// transitions).

/// One request's exchange, from the task's start to its end, as a pure
/// state machine: it owns no socket, no timer and no subscriber; every
/// event returns what the owner (the session engine) does.
///
/// What it decides: when the request enters the pool and when it leaves
/// it; whether the response's body is delivered or discarded (a redirect
/// being followed); when reading pauses for want of demand, what is held
/// meanwhile (the part the subscriber refused, the bytes not parsed yet)
/// and what resumes; a streamed request body's chunks, their length
/// against `Content-Length`, its progress and its end; whether the
/// connection may carry another exchange when the response ended; and a
/// redirect or a retry starting the next exchange of the same task.
///
/// What it leaves to others: the connection it runs on (the
/// ``ConnectionPoolStateMachine`` owns that link), the deadlines
/// (``RequestTimeoutStateMachine``), the redirect policy
/// (``RedirectStateMachine``), the bytes' grammar (``HTTPResponseParser``).
///
/// ## Phases
///
/// - `idle`: made, not started (the start may still be on its way).
/// - `waitingForConnection`: handed to the pool (queued, connecting, or
///   waiting for a retry's or a redirect's connection).
/// - `exchanging`: the request is being written and the response read,
///   on one connection (HTTP/1.1) or one stream (HTTP/2).
/// - `finished`: delivered, failed or cancelled. Every later event but
///   ``cancel()``, ``start()`` and ``resume()`` (which may race with the
///   end, coming from the subscriber's thread) is a violation.
///
/// Within `exchanging`, the response is `awaitingHead`, `delivering` or
/// `discarding` (a redirect's body), reading may be paused, and a
/// streamed body is `notStarted`, `streaming` or `complete`.
///
/// ## Driven by an HTTP/1.1 connection or an HTTP/2 stream
///
/// The events name what happened to the exchange, not to a socket:
/// ``executed()`` when the request head goes out (a connection was
/// leased, or a stream opened), ``responseBytesReceived()``,
/// ``responseHead(_:)``, ``responseEnded(keepAlive:hasTrailingBytes:hasPendingWrites:)``,
/// ``partRefused(_:unparsed:)`` and ``resume()`` for demand. An HTTP/2
/// stream reports the same events; its "pause" withholds the stream's
/// WINDOW_UPDATE instead of stopping a socket's reads
/// (docs/http-protocol-core.md, "The exchange").
///
/// ```swift
/// var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
/// exchange.start()                        // .issue: hand the request to the pool
/// exchange.executed()                     // .writeRequest(startsBody: false)
/// exchange.responseHead(.deliver)         // .deliver
/// exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false)
/// // .deliver(reusable: true)
/// ```
///
/// Threading: a value type; the owner keeps it on its loop thread.
public struct HTTPExchangeStateMachine: Sendable {
    /// Where the task is; see the type's documentation.
    public internal(set) var phase = Phase.idle
    /// The current response's state (meaningful while `exchanging`).
    public internal(set) var response = Response.awaitingHead
    /// Reading is stopped until the subscriber asks for more.
    public internal(set) var isPaused = false
    /// The streamed request body's state.
    public internal(set) var upload = Upload.notStarted
    /// Whether the current request streams its body (a 303 redirect drops
    /// it).
    public internal(set) var streamsBody: Bool
    /// The streamed body's announced length (`Content-Length`), or nil
    /// for chunked transfer coding.
    public let streamedBodyLength: Int?
    /// Streamed body bytes handed to the connection, this exchange.
    public internal(set) var bodyBytesWritten = 0
    /// Streamed body bytes whose writes completed, this exchange.
    public internal(set) var bodyBytesCompleted = 0
    /// A chunk was asked of the body's publisher and has not come.
    public internal(set) var isAwaitingBodyChunk = false
    /// The pool was told that this exchange's first response byte came.
    public internal(set) var hasReportedResponseBytes = false
    /// The request's unacknowledged bytes at the last look (upload
    /// progress that no write completion reported).
    public internal(set) var lastUnacknowledgedOutput = 0
    /// While paused: the part the subscriber had no demand for.
    public internal(set) var heldPart: HTTPResponsePart?
    /// While paused: response bytes read and not parsed yet (at most the
    /// rest of one read). Its capacity is kept across pauses.
    public internal(set) var unparsed: [UInt8] = []

    /// An exchange for a request without a streamed body
    /// (`streamsBody: false`), or with one of `streamedBodyLength` bytes
    /// (nil: chunked).
    ///
    /// ```swift
    /// let exchange = HTTPExchangeStateMachine(streamedBodyLength: 1024, streamsBody: true)
    /// ```
    public init(streamedBodyLength: Int?, streamsBody: Bool) {
        self.streamedBodyLength = streamedBodyLength
        self.streamsBody = streamsBody
    }

    /// Whether the task started and has not ended.
    public var isRunning: Bool {
        phase == .waitingForConnection || phase == .exchanging
    }

    /// Whether the current response's body is dropped (a redirect being
    /// followed).
    public var isDiscardingBody: Bool { response == .discarding }

    // MARK: Task

    /// The subscriber's first demand reached the loop.
    ///
    /// - Returns: `.issue` from `idle` (check the request and hand it to
    ///   the pool); `.none` otherwise (a start that lost the race with a
    ///   cancel, or came twice).
    public mutating func start() -> StartAction {
        guard phase == .idle else { return .none }
        phase = .waitingForConnection
        return .issue
    }

    /// The subscriber cancelled.
    ///
    /// - Returns: `.leavePool` while the task is in the pool (remove it,
    ///   stop its deadlines, end its body stream); `.none` before the start
    ///   and after the end. Idempotent.
    public mutating func cancel() -> CancelAction {
        switch phase {
        case .idle:
            phase = .finished
            return .none
        case .finished:
            return .none
        case .waitingForConnection, .exchanging:
            endExchange()
            unparsed = []
            phase = .finished
            return .leavePool
        }
    }

    /// The task ended (delivered or failed), for whatever reason the
    /// owner found: everything held is let go. From any phase but `idle`;
    /// twice is a violation (one outcome per task).
    public mutating func finished() {
        guard phase != .idle, phase != .finished else {
            violation("finished: a task ends once, after its start, but it is \(describe())")
        }
        endExchange()
        unparsed = []
        phase = .finished
    }

    // MARK: Exchange

    /// The pool leased a connection (or an HTTP/2 stream opened): the
    /// request is written now.
    ///
    /// - Returns: `.writeRequest(startsBody:)`; `startsBody` says to
    ///   subscribe to the body's publisher and ask for its first chunk
    ///   (``bodyChunkRequested()`` follows).
    public mutating func executed() -> ExecuteAction {
        guard phase == .waitingForConnection else {
            violation("executed: a request is executed while it waits for a connection, but it is \(describe())")
        }
        phase = .exchanging
        response = .awaitingHead
        isPaused = false
        hasReportedResponseBytes = false
        bodyBytesWritten = 0
        bodyBytesCompleted = 0
        // The action asks for the first chunk.
        isAwaitingBodyChunk = streamsBody
        upload = streamsBody ? .streaming : .notStarted
        return .writeRequest(startsBody: streamsBody)
    }

    /// The request went out; `unacknowledged` of its bytes are not
    /// acknowledged yet (the upload-progress baseline that
    /// ``uploadProgressObserved(unacknowledged:)`` compares with).
    ///
    /// ```swift
    /// exchange.requestWritten(unacknowledged: head.count)
    /// ```
    public mutating func requestWritten(unacknowledged: Int) {
        guard phase == .exchanging else {
            violation("requestWritten: a request is written while exchanging, but it is \(describe())")
        }
        lastUnacknowledgedOutput = unacknowledged
    }

    /// Response bytes arrived.
    ///
    /// - Returns: `.reportFirstBytes` the first time this exchange (tell
    ///   the pool: a stale connection can no longer be retried), `.none`
    ///   after.
    public mutating func responseBytesReceived() -> ReceiveAction {
        guard phase == .exchanging else {
            violation("responseBytesReceived: bytes are received while exchanging, but it is \(describe())")
        }
        if hasReportedResponseBytes { return .none }
        hasReportedResponseBytes = true
        return .reportFirstBytes
    }

    /// The response's head arrived; `decision` is the redirect policy's.
    ///
    /// - Returns: `.deliver` (hand the head to the subscriber, keep the
    ///   body) or `.discardBody` (a redirect: drop the body, follow at the
    ///   end).
    public mutating func responseHead(_ decision: HeadDecision) -> HeadAction {
        guard phase == .exchanging, response == .awaitingHead else {
            violation("responseHead: one head per exchange, while exchanging, but it is \(describe())")
        }
        switch decision {
        case .deliver:
            response = .delivering
            return .deliver
        case .follow(let keepsBody):
            response = .discarding
            if !keepsBody { streamsBody = false }
            return .discardBody
        }
    }

    /// The response ended (the parser said so). `keepAlive` is the
    /// parser's verdict; `hasTrailingBytes` says bytes followed the
    /// response in the same read, `hasPendingWrites` that the request is
    /// still being written: either leaves the connection unusable, and so
    /// does a streamed body cut short by the response.
    ///
    /// - Returns: `.deliver(reusable:)` (the task ends: give the
    ///   connection back and hand the outcome over) or
    ///   `.follow(reusable:)` (give it back and issue the redirect's
    ///   request: the task waits for a connection again).
    public mutating func responseEnded(keepAlive: Bool, hasTrailingBytes: Bool, hasPendingWrites: Bool) -> EndAction {
        guard phase == .exchanging, response != .awaitingHead else {
            violation("responseEnded: a response ends after its head, while exchanging, but it is \(describe())")
        }
        let uploadDone = upload != .streaming
        let reusable = keepAlive && !hasTrailingBytes && !hasPendingWrites && uploadDone
        if response == .discarding {
            endExchange()
            phase = .waitingForConnection
            return .follow(reusable: reusable)
        }
        endExchange()
        unparsed = []
        phase = .finished
        return .deliver(reusable: reusable)
    }

    /// The connection went stale before any response byte and the pool
    /// retries the request on a fresh one: this exchange is forgotten and
    /// the task waits for `executed` again.
    public mutating func retried() {
        guard phase == .exchanging else {
            violation("retried: only an exchange in progress is retried, but it is \(describe())")
        }
        endExchange()
        phase = .waitingForConnection
    }

    // MARK: Demand

    /// The subscriber had no demand for `part` (a streaming task): it is
    /// held, with the rest of the read (`unparsed`), and reading pauses.
    ///
    /// - Returns: `.pause`: stop reading (HTTP/2: withhold the stream's
    ///   WINDOW_UPDATE) and suspend the idle timeout (the subscriber is
    ///   slow, not the server).
    public mutating func partRefused(_ part: HTTPResponsePart, unparsed rest: UnsafeRawBufferPointer) -> PauseAction {
        guard phase == .exchanging, !isPaused else {
            violation("partRefused: a part is refused while exchanging and reading, but it is \(describe())")
        }
        heldPart = part
        unparsed.append(contentsOf: rest)
        isPaused = true
        return .pause
    }

    /// A read was processed, the exchange goes on, and the subscriber has
    /// no demand left: reading pauses with nothing held.
    public mutating func demandExhausted() -> PauseAction {
        guard phase == .exchanging, !isPaused else {
            violation("demandExhausted: reading pauses while exchanging and reading, but it is \(describe())")
        }
        isPaused = true
        return .pause
    }

    /// Demand came back.
    ///
    /// - Returns: `.resume(heldPart:)` when paused: restart the idle
    ///   timeout, offer the held part again (``partRefused(_:unparsed:)``
    ///   if it is refused once more), then parse the held bytes
    ///   (``takeUnparsed()``), then read on; `.none` otherwise (not
    ///   paused, or the task is not exchanging any more).
    public mutating func resume() -> ResumeAction {
        guard phase == .exchanging, isPaused else { return .none }
        isPaused = false
        let part = heldPart
        heldPart = nil
        return .resume(heldPart: part)
    }

    /// Hands over the bytes held unparsed, for the parser; the buffer
    /// comes back with ``recycle(_:)``. A pause while they are parsed
    /// holds the rest again.
    public mutating func takeUnparsed() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &unparsed)
        return bytes
    }

    /// Gives back the buffer ``takeUnparsed()`` handed out, emptied, so the next
    /// pause reuses its capacity; ignored when the machine holds bytes
    /// again.
    public mutating func recycle(_ buffer: inout [UInt8]) {
        guard unparsed.isEmpty, phase == .exchanging else { return }
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &unparsed)
    }

    /// Bytes held while paused: the held part's body and the unparsed
    /// ones.
    public var heldByteCount: Int {
        unparsed.count + (heldPart?.bytes?.count ?? 0)
    }
}
