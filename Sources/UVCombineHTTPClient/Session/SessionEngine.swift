import HTTPTypes
import UVCombineCore
import UVCombineLoop
import UVCombineHTTPCore

/// The loop-side half of a ``UVURLSession``: it owns the pool state machine,
/// the connections, the running tasks and the session's one timer, feeds
/// every transport event to the state machines and runs the actions they
/// return (docs/http-protocol-core.md, "One data task, step by step").
///
/// ## Turns
///
/// Every entry (a transport event, the timer, a task starting, being
/// cancelled, or resuming after backpressure) runs as one *turn*. A
/// subscriber that reacts to a delivery by starting, cancelling or
/// resuming a task of this session (`retry`, `catch`, `cancel()` inside
/// `receiveValue`) re-enters the engine on the loop thread; such calls are
/// queued and run when the current turn ends, so no handler ever sees the
/// engine's state half-changed. After each turn the session timer is
/// armed for the earliest deadline, if that is earlier than the one armed.
///
/// ## Deadlines
///
/// Tasks (idle read and total timeouts) and connections (connect and idle
/// timeouts) wait in one ``DeadlineHeap``. The transport timer is armed
/// lazily: a removed deadline leaves it armed, and the firing then finds
/// nothing due and re-arms for the earliest deadline. A request that
/// finishes before its timeouts costs no timer call at all.
///
/// ## Where the parts are
///
/// This file holds the engine's state and its turns; extensions in
/// `SessionEngine+*.swift` hold one concern each: `Tasks` (admission,
/// cancellation, outcome), `PoolDriver` (running the pool state machine's
/// actions), `TransportEvents`, `Deadlines`, `Responses`, `Backpressure`
/// (streaming tasks without demand), `Routing` (proxies and redirects) and
/// `StreamedBody` (request bodies from a publisher).
///
/// Threading: loop thread only, except ``submit(_:)``, which may be called
/// from any thread and hops to the loop.
package final class SessionEngine: HTTPTimerHandler, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only on the loop
    // thread; other threads reach the engine only through `submit`, which
    // schedules onto the loop.

    /// A task-level entry into the engine.
    package enum Operation {
        case start(SessionTask)
        case cancel(SessionTask)
        case resume(SessionTask)
        /// A streamed request body's publisher sent a chunk.
        case bodyChunk(BodyStream, any RequestBodyChunk)
        /// A streamed request body's publisher finished (nil) or failed.
        case bodyEnded(BodyStream, UVURLError?)
        case shutdown
    }

    package let loop: UVLoop
    package let configuration: UVURLSession.Configuration
    package let transport: any HTTPTransport
    package let timeouts: RequestTimeouts
    /// ``timeouts`` in nanoseconds, for tasks without options of their own.
    package let timeoutNanoseconds: RequestTimeouts.Nanoseconds
    package let parserConfiguration: HTTPResponseParser.Configuration
    /// Whether a proxy is configured at all (no routing work otherwise).
    package let routesThroughProxies: Bool
    /// The traits' metrics and tracer (SessionObservers; empty without them).
    package let observers: SessionObservers

    // MARK: Loop thread only
    //
    // `@exclusivity(unchecked)` here, in SessionTask's and
    // SessionConnection's loop-thread fields and in DeadlineEntry: these are
    // touched on the loop thread only, one turn at a time (re-entrant calls
    // are deferred to the turn's end), so no two accesses overlap, and the
    // run-time exclusivity checks cost about 6,600 instructions per request
    // (about 80 checks; callgrind, issue 17) for nothing.
    //
    // Internal rather than private only so that the engine's extensions
    // in the other SessionEngine+ files reach them; nothing outside the
    // engine touches them.

    @exclusivity(unchecked) package var pool: ConnectionPoolStateMachine
    /// The running tasks, by the request IDs the table gives them
    /// (SessionTaskTable.swift).
    @exclusivity(unchecked) package var tasks = SessionTaskTable()
    @exclusivity(unchecked) package var connections: [ConnectionPoolStateMachine.ConnectionID: SessionConnection] = [:]
    @exclusivity(unchecked) package var deadlines = DeadlineHeap()
    /// The deadline the transport timer is armed for.
    @exclusivity(unchecked) package var armedDeadline: UInt64?
    /// Request heads are validated here before a task enters the pool.
    @exclusivity(unchecked) package var scratch: [UInt8] = []
    @exclusivity(unchecked) private var isInTurn = false
    /// Operations that arrived during a turn, run at its end.
    @exclusivity(unchecked) private var deferred: [Operation] = []
    /// HTTP/2 connections with output queued during the turn, written at
    /// its end (one write per connection and turn).
    @exclusivity(unchecked) private var pendingHTTP2Flushes: [HTTP2SessionConnection] = []
    @exclusivity(unchecked) package var isShutDown = false
    /// Sees the bytes on the wire (`uvcombine fetch -v`); nil costs one
    /// check per read and per request. Loop thread.
    @exclusivity(unchecked) package var wireObserver: (any SessionWireObserver)?
    /// Where decoded response bytes land before they are appended to a
    /// data task's body or copied into a streaming part: one buffer for
    /// all tasks (the loop thread runs one decode at a time), allocated
    /// with the first compressed response.
    @exclusivity(unchecked) package var decodeBuffer: UnsafeMutableRawBufferPointer?
    /// ``decodeBuffer``'s size: a streaming part of decoded bytes is at
    /// most this long.
    package static let decodeBufferSize = 64 * 1024
    /// A decoder a finished task left, reset for the next compressed
    /// response (its zlib state and window are kept).
    @exclusivity(unchecked) package var spareDecoder: ContentDecoder?

    package init(loop: UVLoop, configuration: UVURLSession.Configuration, transport: any HTTPTransport) {
        self.loop = loop
        self.configuration = configuration
        self.transport = transport
        timeouts = configuration.timeouts
        timeoutNanoseconds = RequestTimeouts.Nanoseconds(configuration.timeouts)
        parserConfiguration = configuration.parser
        routesThroughProxies = configuration.proxy.isActive
        observers = SessionObservers(configuration: configuration)
        pool = ConnectionPoolStateMachine(configuration: configuration.pool)
        transport.timerHandler = self
    }

    deinit {
        // The transport holds this engine unowned (HTTPTransport.timerHandler).
        transport.timerHandler = nil
        decodeBuffer?.deallocate()
    }

    // MARK: Introspection (tests)

    /// Connections in any state. Loop thread.
    package var connectionCount: Int { connections.count }
    /// Tasks in the pool. Loop thread.
    package var runningTaskCount: Int { tasks.count }
    /// Scheduled deadlines. Loop thread.
    package var deadlineCount: Int { deadlines.count }
    /// Response bytes held for paused streaming tasks (parts waiting for
    /// demand, unparsed bytes and encoded bytes not decoded yet), over all
    /// tasks. Loop thread.
    package var heldResponseByteCount: Int {
        tasks.values.reduce(0) { total, task in
            total + task.exchange.heldByteCount + (task.decoder?.pendingInput.count ?? 0)
        }
    }
    /// Response bytes held below the session, not yet delivered (TLS
    /// records waiting for demand), over all connections. Loop thread.
    package var transportBufferedByteCount: Int {
        connections.values.reduce(0) { $0 + ($1.io?.bufferedInputByteCount ?? 0) }
    }
    /// The most streamed-body bytes any task had handed to its connection
    /// without the write having completed, since the session started:
    /// with demand driven by write completions, one chunk (plus its
    /// framing) at most. Loop thread.
    @exclusivity(unchecked) package var peakUploadBytesInFlight = 0
    /// Connections reading their socket. Loop thread.
    package var readingConnectionCount: Int {
        connections.values.reduce(0) { $0 + ($1.isReading ? 1 : 0) }
    }

    // MARK: Entry points

    /// Runs `operation` on the loop: at once when called on the loop
    /// thread (after the current turn, if one is running), otherwise
    /// scheduled. Any thread.
    package func submit(_ operation: Operation) {
        if loop.isInLoop {
            perform(operation)
        } else {
            let box = UncheckedSendable(operation)
            loop.schedule { [self] in perform(box.value) }
        }
    }

    private func perform(_ operation: Operation) {
        assertInLoop()
        if isInTurn {
            deferred.append(operation)
            return
        }
        beginTurn()
        run(operation)
        endTurn()
    }

    private func run(_ operation: Operation) {
        switch operation {
        case .start(let task): start(task)
        case .cancel(let task): cancel(task)
        case .resume(let task): resume(task)
        case .bodyChunk(let stream, let chunk): bodyChunk(stream, chunk)
        case .bodyEnded(let stream, let error): bodyEnded(stream, error)
        case .shutdown: shutdown()
        }
    }

    /// Every transport event and the timer start a turn here: the debug
    /// build checks the thread once for all of them.
    package func beginTurn() {
        assertInLoop()
        if isInTurn { violation("SessionEngine: a transport called back synchronously (turns do not nest)") }
        isInTurn = true
    }

    package func endTurn() {
        var index = 0
        while true {
            while index < deferred.count {
                run(deferred[index])
                index += 1
            }
            // A flush may start more (a streamed upload asks for its next
            // chunk), so both lists are drained until neither grows.
            guard !pendingHTTP2Flushes.isEmpty else { break }
            flushHTTP2Connections()
        }
        // Usually one operation (the next request started from a
        // completion): `removeLast` is far cheaper than `removeAll`'s
        // generic range replacement (about 190 instructions).
        if index == 1 {
            deferred.removeLast()
        } else if index > 1 {
            deferred.removeAll(keepingCapacity: true)
        }
        isInTurn = false
        syncTimer()
    }

    /// An HTTP/2 connection's flush during a turn: queued for the turn's
    /// end (true), where one write carries everything the turn produced
    /// for it; false outside a turn (the caller writes now).
    package func deferHTTP2Flush(_ owner: HTTP2SessionConnection) -> Bool {
        guard isInTurn else { return false }
        if !owner.isFlushPending {
            owner.isFlushPending = true
            pendingHTTP2Flushes.append(owner)
        }
        return true
    }

    /// Writes the output of the connections queued in this turn, in the
    /// order they were queued (a flush may queue more: they follow).
    private func flushHTTP2Connections() {
        var index = 0
        while index < pendingHTTP2Flushes.count {
            let owner = pendingHTTP2Flushes[index]
            index += 1
            if owner.isFlushPending { owner.flushNow() }
        }
        pendingHTTP2Flushes.removeAll(keepingCapacity: true)
    }

    package var now: HTTPDeadline { transport.now }

    /// Debug builds trap when an entry point runs off the loop's thread, as
    /// NIO's `assertInEventLoop`: the engine's state is unguarded, so such
    /// a call is a data race. `assert` is compiled out of release builds
    /// (`-O`), which therefore pay nothing.
    @inline(__always)
    package func assertInLoop(_ function: StaticString = #function) {
        assert(loop.isInLoop, "SessionEngine.\(function) runs on its loop's thread only")
    }
}
