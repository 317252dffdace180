import HTTPTypes
import UVCombineHTTPCore

// A task entering and leaving the engine: admission (the request head
// checked, the connection key chosen, the task handed to the pool),
// cancellation, and the end that hands the outcome to the subscriber.
extension SessionEngine {
    // MARK: Tasks: admission, cancellation, outcome

    package func start(_ task: SessionTask) {
        guard task.exchange.start() == .issue else { return }
        if case .failure(let error) = task.spec.target {
            finish(task, .failure(error))
            return
        }
        // Per-request deadlines (RequestOptions) override the session's.
        let machine = task.spec.options.isDefault
            ? RequestTimeoutStateMachine(timeouts: timeouts, nanoseconds: timeoutNanoseconds, now: now)
            : RequestTimeoutStateMachine(timeouts: timeouts.overridden(by: task.spec.options), now: now)
        if let deadline = machine.armedDeadline {
            deadlines.schedule(task, at: deadline.uptimeNanoseconds)
        }
        task.timeouts = machine
        metricsTaskStarted(task)
        // The redirect machine is made at the first redirect response
        // (`redirectDecision`): most requests never need one.
        issue(task, redirectedTo: nil)
    }

    /// Checks the current request and hands it to the pool: to
    /// `target` after a redirect, to the spec's target when it is nil.
    package func issue(_ task: SessionTask, redirectedTo target: HTTPRequestTarget?) {
        if let target { task.target = target }
        if task.metrics != nil { metricsIssued(task, redirected: target != nil) }
        if let storage = configuration.httpCookieStorage { applyCookies(to: task, from: storage) }
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
        let key: ConnectionKey
        do throws(UVURLError) {
            key = try connectionKey(for: task)
        } catch {
            fail(task, error)
            return
        }
        let id = tasks.insert(task)
        run(pool.executeRequest(id, key: key, method: task.request.method,
                                closesConnection: task.closesConnection, now: now))
    }

    /// Appends the task's request head: framed for its body (a whole
    /// `Data`, or a streamed body with or without a length).
    package func appendHead(of task: SessionTask, to buffer: inout [UInt8]) throws(UVURLError) -> HTTPRequestWriter.Result {
        if task.exchange.streamsBody {
            let framing: HTTPRequestWriter.BodyFraming = task.spec.streamedBodyLength.map { .length($0) } ?? .chunked
            return try HTTPRequestWriter.appendHead(of: task.request, framing: framing, to: &buffer)
        }
        return try HTTPRequestWriter.appendHead(of: task.request, bodyLength: task.body?.count ?? 0, to: &buffer)
    }

    package func cancel(_ task: SessionTask) {
        guard task.exchange.cancel() == .leavePool else { return }
        stopTimeouts(task)
        let id = task.requestID
        if tasks.removeValue(forKey: id) != nil {
            detach(task)
            run(pool.cancelRequest(id, now: now))
        }
        release(task)
        if task.metrics != nil { metricsTaskCancelled(task) }
    }

    /// Ends a task: its exchange machine learns it, then ``complete(_:_:)``.
    /// The pool must already have forgotten it.
    package func finish(_ task: SessionTask, _ outcome: TaskOutcome) {
        task.exchange.finished()
        complete(task, outcome)
    }

    /// Stops the task's deadlines and hands the outcome to its subscriber,
    /// once its exchange machine says it is finished (a response's end
    /// says so itself).
    package func complete(_ task: SessionTask, _ outcome: TaskOutcome) {
        stopTimeouts(task)
        release(task)
        if task.metrics != nil { metricsTaskEnded(task, outcome) }
        task.withGate { task.deliverOutcome(task, outcome) }
    }

    package func fail(_ task: SessionTask, _ error: UVURLError) {
        finish(task, .failure(error))
    }

    private func release(_ task: SessionTask) {
        endBodyStream(of: task, cancellingUpstream: true)
        // Held parts and bytes went with the exchange machine's end. Only
        // redirects set a step.
        if let redirects = task.redirects { redirects.step = nil }
        if let decoder = task.decoder {
            task.decoder = nil
            spareDecoder = decoder
        }
    }

    /// Ends the task's use of its connection (`known`, or the one the
    /// pool leased to it), before the pool forgets the lease: reads stop
    /// going into its body buffer, the connection's mirror of the lease is
    /// cleared, and a body still streaming is cancelled (the exchange is
    /// over).
    package func detach(_ task: SessionTask, from known: SessionConnection? = nil) {
        endBodyStream(of: task, cancellingUpstream: true)
        guard let connection = known ?? connection(of: task) else { return }
        if detachHTTP2(task, from: connection) { return }
        if connection.hasReadTarget {
            connection.hasReadTarget = false
            connection.io?.setReadTarget(nil)
        }
        if connection.task === task { connection.task = nil }
    }
}
