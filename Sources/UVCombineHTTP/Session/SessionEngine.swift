import Foundation
import HTTPTypes
import UVCombineCore
import UVCombineLoop

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
/// Threading: loop thread only, except ``submit(_:)``, which may be called
/// from any thread and hops to the loop.
package final class SessionEngine: HTTPTimerHandler, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only on the loop
    // thread; other threads reach the engine only through `submit`, which
    // schedules onto the loop.

    /// A task-level entry into the engine.
    internal enum Operation {
        case start(SessionTask)
        case cancel(SessionTask)
        case resume(SessionTask)
        /// A streamed request body's publisher sent a chunk.
        case bodyChunk(BodyStream, Data)
        /// A streamed request body's publisher finished (nil) or failed.
        case bodyEnded(BodyStream, UVURLError?)
        case shutdown
    }

    internal let loop: UVLoop
    internal let configuration: UVURLSession.Configuration
    internal let transport: any HTTPTransport
    private let timeouts: RequestTimeouts
    private let parserConfiguration: HTTPResponseParser.Configuration
    /// Whether a proxy is configured at all (no routing work otherwise).
    private let routesThroughProxies: Bool

    // MARK: Loop thread only
    //
    // `@exclusivity(unchecked)` here, in SessionTask's and
    // SessionConnection's loop-thread fields and in DeadlineEntry: these are
    // touched on the loop thread only, one turn at a time (re-entrant calls
    // are deferred to the turn's end), so no two accesses overlap, and the
    // run-time exclusivity checks cost about 6,600 instructions per request
    // (about 80 checks; callgrind, issue 17) for nothing.

    @exclusivity(unchecked) private var pool: ConnectionPoolStateMachine
    @exclusivity(unchecked) private var tasks: [ConnectionPoolStateMachine.RequestID: SessionTask] = [:]
    @exclusivity(unchecked) private var connections: [ConnectionPoolStateMachine.ConnectionID: SessionConnection] = [:]
    @exclusivity(unchecked) private var deadlines = DeadlineHeap()
    /// The deadline the transport timer is armed for.
    @exclusivity(unchecked) private var armedDeadline: UInt64?
    @exclusivity(unchecked) private var nextRequestNumber = 1
    /// Request heads are validated here before a task enters the pool.
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    @exclusivity(unchecked) private var isInTurn = false
    /// Operations that arrived during a turn, run at its end.
    @exclusivity(unchecked) private var deferred: [Operation] = []
    @exclusivity(unchecked) private var isShutDown = false
    /// Sees the bytes on the wire (`uvcombine fetch -v`); nil costs one
    /// check per read and per request. Loop thread.
    package var wireObserver: (any SessionWireObserver)?
    /// Where decoded response bytes land before they are appended to a
    /// data task's body or copied into a streaming part: one buffer for
    /// all tasks (the loop thread runs one decode at a time), allocated
    /// with the first compressed response.
    private var decodeBuffer: UnsafeMutableRawBufferPointer?
    /// ``decodeBuffer``'s size: a streaming part of decoded bytes is at
    /// most this long.
    internal static let decodeBufferSize = 64 * 1024
    /// A decoder a finished task left, reset for the next compressed
    /// response (its zlib state and window are kept).
    private var spareDecoder: ContentDecoder?

    internal init(loop: UVLoop, configuration: UVURLSession.Configuration, transport: any HTTPTransport) {
        self.loop = loop
        self.configuration = configuration
        self.transport = transport
        timeouts = configuration.timeouts
        parserConfiguration = configuration.parser
        routesThroughProxies = configuration.proxy.isActive
        pool = ConnectionPoolStateMachine(configuration: configuration.pool)
        transport.timerHandler = self
    }

    deinit {
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
            total + task.stash.count + (task.pendingPart?.data?.count ?? 0) + (task.decoder?.pendingInput.count ?? 0)
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
    package private(set) var peakUploadBytesInFlight = 0
    /// Connections reading their socket. Loop thread.
    package var readingConnectionCount: Int {
        connections.values.reduce(0) { $0 + ($1.isReading ? 1 : 0) }
    }

    // MARK: Entry points

    /// Runs `operation` on the loop: at once when called on the loop
    /// thread (after the current turn, if one is running), otherwise
    /// scheduled. Any thread.
    internal func submit(_ operation: Operation) {
        if loop.isInLoop {
            perform(operation)
        } else {
            let box = UncheckedSendable(operation)
            loop.schedule { [self] in perform(box.value) }
        }
    }

    private func perform(_ operation: Operation) {
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

    private func beginTurn() {
        if isInTurn { violation("SessionEngine: a transport called back synchronously (turns do not nest)") }
        isInTurn = true
    }

    private func endTurn() {
        var index = 0
        while index < deferred.count {
            run(deferred[index])
            index += 1
        }
        if index > 0 { deferred.removeAll(keepingCapacity: true) }
        isInTurn = false
        syncTimer()
    }

    private var now: HTTPDeadline { transport.now }

    // MARK: Tasks

    private func start(_ task: SessionTask) {
        guard case .notStarted = task.progress else { return }
        task.progress = .running
        let target: HTTPRequestTarget
        switch task.spec.target {
        case .success(let checked): target = checked
        case .failure(let error):
            finish(task, .failure(error))
            return
        }
        // Per-request deadlines (RequestOptions) override the session's.
        let machine = RequestTimeoutStateMachine(
            timeouts: task.spec.options.isDefault ? timeouts : timeouts.overridden(by: task.spec.options), now: now)
        if let deadline = machine.armedDeadline {
            deadlines.schedule(task, at: deadline.uptimeNanoseconds)
        }
        task.timeouts = machine
        // The redirect machine is made at the first redirect response
        // (`redirectDecision`): most requests never need one.
        issue(task, to: target)
    }

    /// Checks the current request for `target` and hands it to the pool.
    private func issue(_ task: SessionTask, to target: HTTPRequestTarget) {
        task.target = target
        if task.usesPreparedHead, let prepared = task.spec.preparedHead {
            // Checked when the publisher was made.
            task.closesConnection = prepared.closesConnection
        } else {
            scratch.removeAll(keepingCapacity: true)
            do throws(UVURLError) {
                let result = try appendHead(of: task, to: &scratch)
                task.closesConnection = result.closesConnection
            } catch {
                fail(task, error)
                return
            }
        }
        if isShutDown {
            fail(task, UVURLError(.resourceUnavailable, detail: "the session was shut down"))
            return
        }
        var key = target.key
        if let path = configuration.unixSocketPath { key.socketPath = path }
        // Routed for every target, so a redirect to another origin is
        // routed afresh (its own scheme, its own no-proxy match).
        if routesThroughProxies && key.socketPath == nil {
            do throws(UVURLError) {
                if let proxy = try configuration.proxy.proxy(for: target) {
                    key = ConnectionKey(target: target, proxy: proxy)
                }
            } catch {
                fail(task, error)
                return
            }
        }
        let id = ConnectionPoolStateMachine.RequestID(nextRequestNumber)
        nextRequestNumber += 1
        task.requestID = id
        tasks[id] = task
        run(pool.executeRequest(id, key: key, method: task.request.method,
                                closesConnection: task.closesConnection, now: now))
    }

    /// Appends the task's request head: framed for its body (a whole
    /// `Data`, or a streamed body with or without a length).
    private func appendHead(of task: SessionTask, to buffer: inout [UInt8]) throws(UVURLError) -> HTTPRequestWriter.Result {
        if task.streamsBody {
            let framing: HTTPRequestWriter.BodyFraming = task.spec.streamedBodyLength.map { .length($0) } ?? .chunked
            return try HTTPRequestWriter.appendHead(of: task.request, framing: framing, to: &buffer)
        }
        return try HTTPRequestWriter.appendHead(of: task.request, bodyLength: task.body?.count ?? 0, to: &buffer)
    }

    private func cancel(_ task: SessionTask) {
        switch task.progress {
        case .notStarted:
            task.progress = .done
            return
        case .done:
            return
        case .running:
            break
        }
        task.progress = .done
        stopTimeouts(task)
        let id = task.requestID
        if tasks.removeValue(forKey: id) != nil {
            detach(task)
            run(pool.cancelRequest(id, now: now))
        }
        release(task)
    }

    /// Demand came back for a paused streaming task.
    private func resume(_ task: SessionTask) {
        guard case .running = task.progress, task.isPaused, let connection = task.connection else { return }
        task.isPaused = false
        applyTimeout(task, task.timeouts?.exchangeStarted(now: now) ?? .none)
        if let part = task.pendingPart {
            task.pendingPart = nil
            switch task.offerPart(task, part) {
            case .delivered: break
            case .noDemand:
                task.pendingPart = part
                pause(task, on: connection)
                return
            case .cancelled:
                return
            }
        }
        // Decoded output the subscriber had no demand for comes before
        // any byte the parser has not seen.
        if let decoder = task.decoder, decoder.needsDrain {
            decoder.needsDrain = false
            var pending: [UInt8] = []
            swap(&pending, &decoder.pendingInput)
            let stopped = pending.withUnsafeBytes { bytes in
                decode(bytes, with: decoder, for: task, on: connection, rest: UnsafeRawBufferPointer(start: nil, count: 0))
            }
            if decoder.pendingInput.isEmpty {
                pending.removeAll(keepingCapacity: true)
                decoder.pendingInput = pending
            }
            if stopped { return }
        }
        // The parser is asked again even with nothing stashed: the part
        // just delivered may have been the response's last, and only the
        // parser can say that the response ended (issue 17: a small
        // response on a keep-alive connection, read .max(1) at a time,
        // never finished because the parser was never asked again).
        var stash: [UInt8] = []
        swap(&stash, &task.stash)
        let finished = stash.withUnsafeBytes { bytes in
            process(bytes, for: task, on: connection)
        }
        // Give the buffer back (it is reused by the next pause).
        if task.stash.isEmpty, case .running = task.progress {
            stash.removeAll(keepingCapacity: true)
            task.stash = stash
        }
        if finished { return }
        guard !task.isPaused, case .running = task.progress else { return }
        afterInput(for: task, on: connection)
    }

    /// Ends a task: stops its deadlines and hands the outcome to its
    /// subscriber. The pool must already have forgotten it.
    private func finish(_ task: SessionTask, _ outcome: TaskOutcome) {
        task.progress = .done
        stopTimeouts(task)
        release(task)
        task.withGate { task.deliverOutcome(task, outcome) }
    }

    private func fail(_ task: SessionTask, _ error: UVURLError) {
        finish(task, .failure(error))
    }

    private func release(_ task: SessionTask) {
        endBodyStream(of: task, cancellingUpstream: true)
        task.connection = nil
        task.pendingPart = nil
        task.stash = []
        task.redirectStep = nil
        if let decoder = task.decoder {
            task.decoder = nil
            spareDecoder = decoder
        }
    }

    /// Points the connection's next reads at the rest of a data task's
    /// body buffer while a body of known length arrives (no decoder, no
    /// redirect): the kernel then copies the body into its place. Cleared
    /// by ``detach(_:)`` and when the connection closes, before the buffer
    /// can move or go.
    private func targetReads(of connection: SessionConnection, for task: SessionTask) {
        guard !task.isStreaming, task.decoder == nil, task.redirectStep == nil,
              let remaining = connection.parser.remainingFixedBodyLength, remaining > 1,
              // All but the last byte: the read that ends the body then
              // goes to the connection's buffer and comes up short of it,
              // as before. A target read that ends the body exactly fills
              // its buffer, and libuv, reading on while reads fill their
              // buffers, would read the next response (already asked for
              // by the subscriber) before the next request's write
              // callback ran, which makes the connection look busy and
              // lose its keep-alive (seen in the soak test).
              let room = task.data.room(for: remaining - 1) else {
            if connection.hasReadTarget {
                connection.hasReadTarget = false
                connection.io?.setReadTarget(nil)
            }
            return
        }
        connection.hasReadTarget = true
        connection.io?.setReadTarget(room)
    }

    /// Unlinks a task and its connection; a body still streaming is
    /// cancelled (the exchange is over).
    private func detach(_ task: SessionTask) {
        endBodyStream(of: task, cancellingUpstream: true)
        if let connection = task.connection, connection.hasReadTarget {
            connection.hasReadTarget = false
            connection.io?.setReadTarget(nil)
        }
        if let connection = task.connection, connection.task === task {
            connection.task = nil
        }
        task.connection = nil
    }

    private func stopTimeouts(_ task: SessionTask) {
        if task.timeouts != nil {
            _ = task.timeouts!.finished()
        }
        deadlines.remove(task)
    }

    private func applyTimeout(_ task: SessionTask, _ action: RequestTimeoutStateMachine.Action) {
        switch action {
        case .none: break
        case .arm(let deadline): deadlines.schedule(task, at: deadline.uptimeNanoseconds)
        case .cancel: deadlines.remove(task)
        case .fail(let error): requestFailed(task, error)
        }
    }

    /// The current exchange failed; the pool decides between failing and
    /// retrying the task.
    private func requestFailed(_ task: SessionTask, _ error: UVURLError) {
        guard tasks[task.requestID] === task else { return }
        run(pool.requestFailed(task.requestID, error: error, now: now))
    }

    // MARK: Pool actions

    private func run(_ action: ConnectionPoolStateMachine.Action) {
        run(action.connection)
        run(action.request)
    }

    private func run(_ action: ConnectionPoolStateMachine.ConnectionAction) {
        switch action {
        case .none:
            break
        case .create(let id, let key, let deadline):
            createConnection(id, key: key, deadline: deadline)
        case .scheduleIdleTimeout(let id, let deadline):
            let connection = connections[id]!
            deadlines.schedule(connection, at: deadline.uptimeNanoseconds)
            connection.io?.setKeepsLoopAlive(false)
            // Reading detects a server closing the idle connection.
            connection.startReading()
        case .cancelIdleTimeout(let id):
            let connection = connections[id]!
            deadlines.remove(connection)
            connection.io?.setKeepsLoopAlive(true)
        case .close(let id):
            closeConnection(id)
        case .closeAndCreate(let close, let create, let key, let deadline):
            closeConnection(close)
            createConnection(create, key: key, deadline: deadline)
        }
    }

    private func run(_ action: ConnectionPoolStateMachine.RequestAction) {
        switch action {
        case .none:
            break
        case .execute(let id, let connectionID):
            execute(tasks[id]!, on: connections[connectionID]!)
        case .fail(let id, let error):
            guard let task = tasks.removeValue(forKey: id) else { return }
            detach(task)
            fail(task, error)
        case .retry(let id, on: .newConnection):
            // The stale connection is closed (the connection action ran
            // first); the task waits for `execute` on the fresh one.
            let task = tasks[id]!
            detach(task)
            task.resetExchange()
            task.timeouts?.exchangeEnded()
        }
    }

    private func createConnection(_ id: ConnectionPoolStateMachine.ConnectionID, key: ConnectionKey, deadline: HTTPDeadline) {
        let connection = SessionConnection(id: id, key: key, engine: self, parser: parserConfiguration)
        connections[id] = connection
        deadlines.schedule(connection, at: deadline.uptimeNanoseconds)
        connection.io = transport.connect(to: key, handler: connection)
    }

    private func closeConnection(_ id: ConnectionPoolStateMachine.ConnectionID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        deadlines.remove(connection)
        if let task = connection.task {
            connection.task = nil
            if task.connection === connection { task.connection = nil }
        }
        connection.isClosed = true
        connection.isReading = false
        if connection.hasReadTarget {
            connection.hasReadTarget = false
            connection.io?.setReadTarget(nil)
        }
        connection.io?.close()
        connection.io = nil
    }

    /// Writes the task's request on an established connection.
    private func execute(_ task: SessionTask, on connection: SessionConnection) {
        connection.task = task
        task.connection = connection
        task.reportedResponseBytes = false
        let prepared = task.usesPreparedHead ? task.spec.preparedHead : nil
        connection.writeBuffer.removeAll(keepingCapacity: true)
        let result: HTTPRequestWriter.Result
        do throws(UVURLError) {
            if let prepared {
                result = HTTPRequestWriter.Result(closesConnection: prepared.closesConnection,
                                                  byteCount: prepared.bytes.count)
            } else if let body = task.body, !body.isEmpty {
                result = try HTTPRequestWriter.append(task.request, body: body, to: &connection.writeBuffer)
            } else if task.streamsBody {
                result = try appendHead(of: task, to: &connection.writeBuffer)
            } else {
                result = try HTTPRequestWriter.appendHead(
                    of: task.request, bodyLength: 0, to: &connection.writeBuffer)
            }
        } catch {
            // Nothing was written: the connection goes back to the pool.
            tasks.removeValue(forKey: task.requestID)
            detach(task)
            run(pool.cancelRequest(task.requestID, now: now))
            fail(task, error)
            return
        }
        pool.requestWriteStarted(task.requestID)
        if task.timeouts != nil {
            applyTimeout(task, task.timeouts!.exchangeStarted(now: now))
        }
        connection.parser.expectResponse(to: task.request.method, requestClosesConnection: result.closesConnection)
        var bytes = prepared?.bytes ?? connection.writeBuffer
        if connection.key.isForwardProxied {
            if let prepared { connection.writeBuffer = prepared.bytes }
            ProxyRequestHead.rewrite(&connection.writeBuffer, for: task.request, target: task.target, on: connection.key)
            bytes = connection.writeBuffer
        }
        if let wireObserver { bytes.withUnsafeBytes { wireObserver.sessionWillWrite($0) } }
        connection.io?.write(bytes)
        // The upload-progress baseline (noteUploadProgress). A request
        // under 64 KiB is taken by the kernel at once (the connection is
        // idle between exchanges), so its unacknowledged bytes are its
        // size or fewer: that size stands in for the `ioctl`, which would
        // cost a system call per request. Only larger requests, the ones
        // whose upload can make progress worth noticing, ask the socket.
        if result.byteCount < 64 * 1024 {
            task.lastUnacknowledgedOutput = result.byteCount
        } else {
            task.lastUnacknowledgedOutput = connection.io?.unacknowledgedOutputByteCount ?? 0
        }
        connection.startReading()
        if task.streamsBody { startBody(of: task) }
    }

    // MARK: Transport events

    internal func connectionDidConnect(_ connection: SessionConnection) {
        beginTurn()
        if !connection.isClosed {
            wireObserver?.sessionDidConnect()
            connection.isEstablished = true
            deadlines.remove(connection)
            connection.startReading()
            run(pool.connectionEstablished(connection.id, now: now))
        }
        endTurn()
    }

    internal func connectionDidFailToConnect(_ connection: SessionConnection, error: UVURLError) {
        beginTurn()
        if !connection.isClosed {
            run(pool.connectionFailed(connection.id, error: error, now: now))
        }
        endTurn()
    }

    internal func connectionDidRead(_ connection: SessionConnection, bytes: UnsafeRawBufferPointer) {
        beginTurn()
        if !connection.isClosed && !bytes.isEmpty {
            wireObserver?.sessionDidRead(bytes)
            if let task = connection.task {
                if !process(bytes, for: task, on: connection), case .running = task.progress, task.connection === connection {
                    afterInput(for: task, on: connection)
                    targetReads(of: connection, for: task)
                }
            } else {
                // Bytes on an idle connection: nothing was asked, so the
                // connection cannot be trusted any more.
                run(pool.connectionClosed(connection.id, now: now))
            }
        }
        endTurn()
    }

    /// Request bytes were taken by the kernel: the exchange is alive, so
    /// the idle timeout measures from now (a stall in either direction
    /// still times out). Only moves a stored instant, as reading does.
    internal func connectionDidWrite(_ connection: SessionConnection) {
        guard !connection.isClosed, let task = connection.task, task.connection === connection else { return }
        if task.timeouts != nil { task.timeouts!.activity(now: now) }
        // A streamed body asks for its next chunk once everything written
        // was taken by the kernel.
        guard task.streamsBody, connection.io?.hasPendingWrites == false else { return }
        beginTurn()
        bodyWritesCompleted(task)
        endTurn()
    }

    /// `isAuthenticated` is false for a TLS stream that ended without
    /// `close_notify`: it cannot end a close-delimited body.
    internal func connectionDidReachEndOfStream(_ connection: SessionConnection, isAuthenticated: Bool) {
        beginTurn()
        if !connection.isClosed {
            if let task = connection.task {
                do throws(UVURLError) {
                    if case .end = try connection.parser.endOfInput(isAuthenticated: isAuthenticated) {
                        responseEnded(task, on: connection, reusable: false)
                    }
                } catch {
                    requestFailed(task, error)
                }
            } else if connection.isEstablished {
                run(pool.connectionClosed(connection.id, now: now))
            }
        }
        endTurn()
    }

    internal func connectionDidFail(_ connection: SessionConnection, error: UVURLError) {
        beginTurn()
        if !connection.isClosed {
            if let task = connection.task {
                requestFailed(task, error)
            } else if connection.isEstablished {
                run(pool.connectionClosed(connection.id, now: now))
            } else {
                run(pool.connectionFailed(connection.id, error: error, now: now))
            }
        }
        endTurn()
    }

    package func timerFired() {
        beginTurn()
        armedDeadline = nil
        let instant = now
        while let entry = deadlines.popDue(now: instant.uptimeNanoseconds) {
            if let task = entry as? SessionTask {
                guard case .running = task.progress, task.timeouts != nil else { continue }
                noteUploadProgress(task, now: instant)
                applyTimeout(task, task.timeouts!.timerFired(now: instant))
            } else if let connection = entry as? SessionConnection, !connection.isClosed {
                if connection.isEstablished {
                    run(pool.idleTimeoutFired(connection.id, now: instant))
                } else {
                    run(pool.connectTimeoutFired(connection.id, now: instant))
                }
            }
        }
        endTurn()
    }

    /// Counts an upload's progress that no write completion reported: a
    /// write completes when the kernel took the bytes, and the kernel's
    /// send buffer (megabytes, on loopback) then drains as slowly as the
    /// server reads. When the unacknowledged output changed since the
    /// last look and bytes still wait (or a large amount, 64 KiB or more,
    /// went), an upload is moving: activity now. A small request that the
    /// server acknowledged late is no upload: its progress is older than
    /// this firing and does not count, so its stall times out on time.
    /// A stall that starts mid-upload is seen one idle period late at
    /// most. One `ioctl` per firing, none per request.
    private func noteUploadProgress(_ task: SessionTask, now instant: HTTPDeadline) {
        guard let connection = task.connection, let io = connection.io else { return }
        let unacknowledged = io.unacknowledgedOutputByteCount
        let previous = task.lastUnacknowledgedOutput
        task.lastUnacknowledgedOutput = unacknowledged
        guard unacknowledged != previous else { return }
        if unacknowledged > 0 || previous - unacknowledged >= 64 * 1024 {
            task.timeouts!.activity(now: instant)
        }
    }

    private func syncTimer() {
        guard let earliest = deadlines.earliest?.heapDeadline else { return }
        if let armed = armedDeadline, armed <= earliest { return }
        armedDeadline = earliest
        transport.armTimer(at: HTTPDeadline(uptimeNanoseconds: earliest))
    }

    // MARK: Responses

    /// Feeds received bytes to the connection's parser and acts on the
    /// events. Returns true when the task's exchange ended (finished,
    /// failed, redirected) or the task paused or was cancelled: the caller
    /// must not touch the connection on the task's behalf any more.
    private func process(_ input: UnsafeRawBufferPointer, for task: SessionTask, on connection: SessionConnection) -> Bool {
        if !task.reportedResponseBytes {
            task.reportedResponseBytes = true
            pool.responseBytesReceived(task.requestID)
        }
        task.timeouts?.activity(now: now)
        var rest = input
        while true {
            let event: HTTPResponseParser.Event
            let consumed: Int
            do throws(UVURLError) {
                (event, consumed) = try connection.parser.next(rest)
            } catch {
                requestFailed(task, error)
                return true
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
            switch event {
            case .head(let response):
                switch redirectDecision(for: task, response: response) {
                case .deliver:
                    if configuration.decompressesResponses, connection.parser.hasContentEncoding,
                       let coding = ContentDecoder.coding(of: response) {
                        if let decoder = spareDecoder {
                            spareDecoder = nil
                            decoder.reset(coding: coding)
                            task.decoder = decoder
                        } else {
                            task.decoder = ContentDecoder(coding: coding)
                        }
                    }
                    if task.isStreaming {
                        if offer(.head(response), for: task, on: connection, rest: rest) { return true }
                    } else {
                        task.response = response
                        if let length = connection.parser.announcedBodyLength { task.data.reserve(length) }
                    }
                case .follow(let step):
                    task.redirectStep = step
                case .fail(let error):
                    requestFailed(task, error)
                    return true
                }
            case .body(let slice):
                guard task.redirectStep == nil else { continue }
                if let decoder = task.decoder {
                    if decode(slice, with: decoder, for: task, on: connection, rest: rest) { return true }
                } else if task.isStreaming {
                    if offer(.body(Data(bytes: slice.baseAddress!, count: slice.count)), for: task, on: connection, rest: rest) { return true }
                } else {
                    task.data.append(slice)
                }
            case .end(let keepAlive):
                // Bytes after the response, or a request still being
                // written: the connection cannot carry another exchange.
                // A streamed body cut short by the response is too.
                let reusable = keepAlive && rest.isEmpty && connection.io?.hasPendingWrites == false
                    && (!task.streamsBody || task.isBodyComplete)
                responseEnded(task, on: connection, reusable: reusable)
                return true
            case .needMoreData:
                return false
            }
        }
    }

    /// Decodes a run of encoded body bytes and delivers what comes out: a
    /// data task appends it to its body, a streaming task gets it in parts
    /// of at most ``decodeBufferSize`` bytes, each taking one unit of
    /// demand. Returns true when processing must stop: the stream is
    /// corrupt or the decoded body too long (the task failed), the
    /// subscriber has no demand (paused: the undecoded rest of `encoded`
    /// stays with the decoder, `rest` goes to the stash), or it cancelled.
    private func decode(_ encoded: UnsafeRawBufferPointer, with decoder: ContentDecoder, for task: SessionTask,
                        on connection: SessionConnection, rest: UnsafeRawBufferPointer) -> Bool {
        let output = decodeBuffer ?? {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.decodeBufferSize, alignment: 16)
            decodeBuffer = buffer
            return buffer
        }()
        var input = encoded
        while true {
            let count: Int
            do throws(UVURLError) {
                count = try decoder.decode(&input, into: output)
            } catch {
                requestFailed(task, error)
                return true
            }
            if count > 0 {
                task.decodedLength += count
                if let maximum = configuration.maximumResponseBodyLength, task.decodedLength > maximum {
                    requestFailed(task, UVURLError(.dataLengthExceedsMaximum,
                                                   detail: "decoded body exceeds the maximum of \(maximum) bytes"))
                    return true
                }
                if task.isStreaming {
                    let part = UVURLSession.ResponsePart.body(Data(bytes: output.baseAddress!, count: count))
                    if offer(part, for: task, on: connection, rest: rest) {
                        if task.isPaused {
                            decoder.pendingInput.append(contentsOf: input)
                            decoder.needsDrain = true
                        }
                        return true
                    }
                } else {
                    task.data.append(UnsafeRawBufferPointer(start: output.baseAddress!, count: count))
                }
            }
            if input.isEmpty && count < output.count { return false }
        }
    }

    /// What the redirect policy says of `response`. A response that is no
    /// redirect is delivered without asking; at the first redirect the
    /// task's machine is made from its target and method, which are still
    /// the original ones then (only following a redirect changes them).
    private func redirectDecision(for task: SessionTask, response: HTTPResponse) -> RedirectStateMachine.Decision {
        switch response.status.code {
        case 301, 302, 303, 307, 308:
            break
        default:
            if task.redirects == nil { return .deliver }
        }
        if task.redirects == nil {
            task.redirects = RedirectStateMachine(policy: configuration.redirectPolicy, target: task.target!,
                                                  method: task.request.method)
        }
        return task.redirects!.decide(response: response, request: task.request)
    }

    /// Offers a streaming part. Returns true when processing must stop
    /// (paused without demand, or cancelled).
    private func offer(_ part: UVURLSession.ResponsePart, for task: SessionTask, on connection: SessionConnection,
                       rest: UnsafeRawBufferPointer) -> Bool {
        switch task.offerPart(task, part) {
        case .delivered:
            return false
        case .noDemand:
            task.pendingPart = part
            task.stash.append(contentsOf: rest)
            pause(task, on: connection)
            return true
        case .cancelled:
            return true
        }
    }

    /// A read chunk was processed without ending the exchange: a streaming
    /// task without demand stops reading.
    private func afterInput(for task: SessionTask, on connection: SessionConnection) {
        if task.isStreaming && task.pauseIfNoDemand() {
            pause(task, on: connection)
        } else {
            connection.startReading()
        }
    }

    private func pause(_ task: SessionTask, on connection: SessionConnection) {
        task.isPaused = true
        connection.stopReading()
        // The subscriber is slow, not the server: only the total timeout
        // runs while paused.
        task.timeouts?.exchangeEnded()
    }

    /// The response ended: the connection goes back to the pool (or is
    /// closed), then the task follows its redirect or delivers.
    private func responseEnded(_ task: SessionTask, on connection: SessionConnection, reusable: Bool) {
        if let decoder = task.decoder {
            do throws(UVURLError) {
                try decoder.finish()
            } catch {
                // The connection is closed: its exchange failed.
                requestFailed(task, error)
                return
            }
        }
        let id = task.requestID
        tasks.removeValue(forKey: id)
        detach(task)
        let action = pool.requestFinished(id, keepAlive: reusable, now: now)
        if let step = task.redirectStep {
            task.timeouts?.exchangeEnded()
            run(action)
            task.resetExchange()
            task.request = step.request
            task.usesPreparedHead = false
            if !step.keepsBody {
                task.body = nil
                task.streamsBody = false
            }
            issue(task, to: step.target)
            return
        }
        run(action)
        if task.isStreaming {
            finish(task, .finished)
        } else {
            let response = task.response!
            let data = task.data.take()
            task.response = nil
            finish(task, .value(data, response))
        }
    }

    // MARK: Streamed request bodies

    /// The head was written: subscribes to the body publisher for this
    /// exchange and asks for the first chunk (written behind the head).
    private func startBody(of task: SessionTask) {
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
    private func endBodyStream(of task: SessionTask, cancellingUpstream: Bool) {
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

    private func bodyChunk(_ stream: BodyStream, _ chunk: Data) {
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

    private func bodyEnded(_ stream: BodyStream, _ error: UVURLError?) {
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
    private func bodyWritesCompleted(_ task: SessionTask) {
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

    // MARK: Shutdown

    private func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        let actions = pool.shutdown(now: now)
        for id in actions.closedConnections { closeConnection(id) }
        for id in actions.failedRequests {
            guard let task = tasks.removeValue(forKey: id) else { continue }
            detach(task)
            fail(task, actions.error)
        }
        deadlines.removeAll()
        armedDeadline = nil
        transport.disarmTimer()
        transport.shutdown()
    }
}
