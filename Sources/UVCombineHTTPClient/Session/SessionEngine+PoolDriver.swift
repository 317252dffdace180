import HTTPTypes
import UVCombineHTTPCore

// The driver of ConnectionPoolStateMachine: the engine asks the pure state
// machine what to do and runs the actions it returns here (connections
// created and closed, requests written, failed or retried), so that every
// side effect of a pool decision is in this one file
// (docs/http-protocol-core.md).
extension SessionEngine {
    // MARK: Pool driver: the state machine's actions

    /// The current exchange failed; the pool decides between failing and
    /// retrying the task.
    package func requestFailed(_ task: SessionTask, _ error: UVURLError) {
        guard tasks[task.requestID] === task else { return }
        // HTTP/2: the stream is reset while the pool still names it.
        if let connection = connection(of: task), connection.http2 != nil { _ = detachHTTP2(task, from: connection) }
        run(pool.requestFailed(task.requestID, error: error, now: now))
    }

    /// The connection carrying `task`'s exchange, by the pool's link (its
    /// one owner); nil while the task waits, or once it left the pool.
    package func connection(of task: SessionTask) -> SessionConnection? {
        guard let id = pool.connection(leasedTo: task.requestID) else { return nil }
        return connections[id]
    }

    /// The task whose exchange `connection` carries; nil while it
    /// connects or idles, or once the task was detached. The connection's
    /// mirror of the pool's lease, checked against the pool in debug
    /// builds.
    package func task(on connection: SessionConnection) -> SessionTask? {
        assert(connection.task.map { pool.request(leasing: connection.id) == $0.requestID } ?? true,
               "SessionConnection.task disagrees with the pool's lease of \(connection.id)")
        return connection.task
    }

    package func run(_ action: ConnectionPoolStateMachine.Action) {
        run(action.connection)
        run(action.request)
    }

    package func run(_ action: ConnectionPoolStateMachine.ConnectionAction) {
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

    package func run(_ action: ConnectionPoolStateMachine.RequestAction) {
        switch action {
        case .none:
            break
        case .execute(let id, let connectionID):
            execute(tasks[id]!, on: connections[connectionID]!)
        case .fail(let id, let error):
            guard let task = tasks.removeValue(forKey: id) else { return }
            detach(task)
            fail(task, error)
        case .retry(let id, on: _):
            // The stale connection is closed (the connection action ran
            // first); the task waits for `execute` on the fresh one.
            let task = tasks[id]!
            detach(task)
            task.exchange.retried()
            task.resetExchange()
            task.timeouts?.exchangeEnded()
            if task.metrics != nil { metricsRetried(task) }
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
        logConnectionClosed(connection)
        observeConnectionClosed(connection)
        deadlines.remove(connection)
        if let http2 = connection.http2 {
            deadlines.remove(http2)
            // What this turn queued (a GOAWAY, RST_STREAM) goes out first.
            if http2.isFlushPending { http2.flushNow() }
        }
        connection.task = nil
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
        if executeHTTP2(task, on: connection) { return }
        connection.task = task
        guard case .writeRequest(let startsBody) = task.exchange.executed() else { return }
        let prepared = task.usesPreparedHead ? task.spec.preparedHead : nil
        connection.writeBuffer.removeAll(keepingCapacity: true)
        let result: HTTPRequestWriter.Result
        do throws(UVURLError) {
            if let prepared {
                result = HTTPRequestWriter.Result(closesConnection: prepared.closesConnection,
                                                  byteCount: prepared.bytes.count)
            } else if let body = task.body, !body.isEmpty {
                result = try HTTPRequestWriter.append(task.request, body: body, to: &connection.writeBuffer)
            } else if startsBody {
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
        if connection.isForwardProxied {
            if let prepared { connection.writeBuffer = prepared.bytes }
            ProxyRequestHead.rewrite(&connection.writeBuffer, for: task.request, target: task.currentTarget, on: connection.key)
            bytes = connection.writeBuffer
        }
        if let wireObserver { bytes.withUnsafeBytes { wireObserver.sessionWillWrite($0) } }
        connection.exchangeCount &+= 1
        if task.metrics != nil {
            metricsRequestStarted(task, on: connection, written: bytes.count,
                                  bodyBytes: startsBody || prepared != nil ? 0 : task.body?.count ?? 0)
        }
        connection.io?.write(bytes)
        // The upload-progress baseline (noteUploadProgress). A request
        // under 64 KiB is taken by the kernel at once (the connection is
        // idle between exchanges), so its unacknowledged bytes are its
        // size or fewer: that size stands in for the `ioctl`, which would
        // cost a system call per request. Only larger requests, the ones
        // whose upload can make progress worth noticing, ask the socket.
        task.exchange.requestWritten(unacknowledged: result.byteCount < 64 * 1024
            ? result.byteCount : connection.io?.unacknowledgedOutputByteCount ?? 0)
        connection.startReading()
        if startsBody { startBody(of: task) }
    }

    package func shutdown() {
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
