import HTTPTypes
import UVCombineHTTPCore

// Task metrics (UVURLSessionTaskMetrics): the engine's collection points,
// one function per event of a task's life, each called from the place
// in the engine where the event happens. A task collects only when
// someone will receive its metrics (`wantsMetrics`); otherwise each point
// costs one nil check of `task.metrics`. Collection reads the monotonic
// clock (`now`, `uv_hrtime`) and counts; it never allocates past the
// task's recorder and its transactions.
//
// These are also the hooks for observers behind package traits: the
// `Logging` trait's lines come from here (SessionEngine+Logging.swift),
// the `Metrics` and `Tracing` traits' instruments and spans too
// (SessionEngine+Observers.swift);
// they see the same events in the same places, so adding one means
// calling it from here, not touching the engine's hot path again.
extension SessionEngine {
    // MARK: Metrics: collection points

    /// Running tasks that collect metrics. Loop thread; for tests.
    package var tasksCollectingMetrics: Int {
        tasks.values.reduce(0) { $0 + ($1.metrics == nil ? 0 : 1) }
    }

    /// Whether anyone will receive `task`'s metrics: the session's
    /// handler or the request's.
    @inline(__always)
    package func wantsMetrics(for task: SessionTask) -> Bool {
        configuration.taskMetricsHandler != nil || task.spec.options.metricsHandler != nil
    }

    /// The task started (before its first request is issued). It gets a
    /// recorder when someone wants its metrics, or when the session's
    /// logger (trait `Logging`) lets `debug` through
    /// (SessionEngine+Logging.swift): one level check, nothing allocated
    /// otherwise.
    package func metricsTaskStarted(_ task: SessionTask) {
        let logs = logsTasks
        guard logs || observers.observesTasks || wantsMetrics(for: task) else { return }
        let recorder = TaskMetricsRecorder(taskStart: now.uptimeNanoseconds)
        #if Logging
        if logs { recorder.requestID = makeRequestID() }
        #endif
        task.metrics = recorder
        observeTaskStarted(task, recorder)
    }

    /// A request is issued: the task's first, or a redirect's
    /// (`redirected`). A transaction begins.
    package func metricsIssued(_ task: SessionTask, redirected: Bool) {
        guard let recorder = task.metrics else { return }
        if redirected { recorder.redirectCount += 1 }
        recorder.begin(task.request, at: now.uptimeNanoseconds)
        observeIssued(task, recorder)
        #if Logging
        logIssued(task, recorder, retried: false)
        #endif
    }

    /// The pool retries the request on a fresh connection: the failed
    /// transaction ends, a new one begins.
    package func metricsRetried(_ task: SessionTask) {
        guard let recorder = task.metrics else { return }
        recorder.begin(task.request, at: now.uptimeNanoseconds)
        #if Logging
        logIssued(task, recorder, retried: true)
        #endif
    }

    /// The request is being written on `connection` (its
    /// `exchangeCount`-th exchange): `written` bytes, of which `bodyBytes`
    /// are body.
    package func metricsRequestStarted(_ task: SessionTask, on connection: SessionConnection, written: Int, bodyBytes: Int) {
        guard let recorder = task.metrics, var transaction = recorder.current else { return }
        transaction.requestStart = TaskMetricsRecorder.instant(now.uptimeNanoseconds)
        transaction.request = task.request
        transaction.countOfRequestHeaderBytesSent = max(written - bodyBytes, 0)
        transaction.countOfRequestBodyBytesSent = bodyBytes
        // ALPN names: "h2" on a connection speaking HTTP/2 (by ALPN or
        // prior knowledge), "http/1.1" otherwise.
        transaction.networkProtocolName = connection.http2 != nil ? "h2" : "http/1.1"
        let establishment: ConnectionEstablishment
        if let known = connection.establishment {
            establishment = known
        } else {
            // Once per connection: the addresses cost a system call each.
            establishment = connection.io?.establishment ?? ConnectionEstablishment()
            connection.establishment = establishment
        }
        transaction.isReusedConnection = connection.exchangeCount > 1
        if !transaction.isReusedConnection {
            transaction.domainLookupStart = TaskMetricsRecorder.instant(establishment.domainLookupStart)
            transaction.domainLookupEnd = TaskMetricsRecorder.instant(establishment.domainLookupEnd)
            transaction.connectStart = TaskMetricsRecorder.instant(establishment.connectStart)
            transaction.connectEnd = TaskMetricsRecorder.instant(establishment.connectEnd)
            transaction.secureConnectionStart = TaskMetricsRecorder.instant(establishment.secureConnectionStart)
            transaction.secureConnectionEnd = TaskMetricsRecorder.instant(establishment.secureConnectionEnd)
        }
        transaction.isProxyConnection = establishment.isProxyConnection
        transaction.localAddress = establishment.localAddress?.host
        transaction.localPort = establishment.localAddress?.port
        transaction.remoteAddress = establishment.remoteAddress?.host
        transaction.remotePort = establishment.remoteAddress?.port
        recorder.current = transaction
        observeRequestStarted(task, recorder, on: connection)
        #if Logging
        logConnection(task, recorder, connection, reused: transaction.isReusedConnection, establishment: establishment)
        logStep(recorder, "request head written", ["bytes": "\(written)"])
        #endif
    }

    /// More of a streamed request body was handed to the connection.
    package func metricsBodySent(_ task: SessionTask, bytes: Int) {
        guard let recorder = task.metrics else { return }
        recorder.current?.countOfRequestBodyBytesSent += bytes
        #if Logging
        logStep(recorder, "request body sent", ["bytes": "\(bytes)"])
        #endif
    }

    /// A write of the request completed (the last one is its end).
    package func metricsRequestWritten(_ task: SessionTask) {
        guard let recorder = task.metrics else { return }
        recorder.current?.requestEnd = TaskMetricsRecorder.instant(now.uptimeNanoseconds)
        #if Logging
        logStep(recorder, "request write completed")
        #endif
    }

    /// Response bytes arrived for the task.
    @inline(__always)
    package func metricsReceived(_ task: SessionTask, bytes: Int) {
        guard let recorder = task.metrics else { return }
        recorder.receivedBytes += bytes
        #if Logging
        logStep(recorder, "received", ["bytes": "\(bytes)"])
        #endif
    }

    /// The response's first bytes arrived.
    package func metricsResponseStarted(_ task: SessionTask) {
        guard let recorder = task.metrics else { return }
        recorder.current?.responseStart = TaskMetricsRecorder.instant(now.uptimeNanoseconds)
        #if Logging
        logStep(recorder, "response started")
        #endif
    }

    /// The response head was parsed; `unparsed` bytes of those received
    /// follow it.
    package func metricsResponseHead(_ task: SessionTask, _ response: HTTPResponse, unparsed: Int) {
        guard let recorder = task.metrics else { return }
        recorder.current?.response = response
        recorder.headBytes = max(recorder.receivedBytes - unparsed, 0)
        observeResponseHead(recorder, response)
        #if Logging
        logResponseHead(recorder, response)
        #endif
    }

    /// The response ended.
    package func metricsResponseEnded(_ task: SessionTask) {
        guard let recorder = task.metrics else { return }
        recorder.current?.responseEnd = TaskMetricsRecorder.instant(now.uptimeNanoseconds)
        recorder.close()
        #if Logging
        logStep(recorder, "response ended", ["body-bytes": "\(recorder.finished.last?.countOfResponseBodyBytesReceived ?? 0)"])
        #endif
    }

    /// The subscriber cancelled the task: its recorder ends for the
    /// observers (a span ends with `error.type` `cancelled`, the task
    /// leaves the in-flight count); the metrics handlers, which a
    /// cancelled task never called, still are not.
    package func metricsTaskCancelled(_ task: SessionTask) {
        guard let recorder = task.metrics else { return }
        task.metrics = nil
        let outcome = TaskOutcome.failure(UVURLError(.cancelled, detail: "the task was cancelled"))
        #if Logging
        logTaskEnded(recorder, outcome)
        #endif
        recorder.close()
        observeTaskEnded(task, recorder, outcome)
    }

    /// The task ends with `outcome`: its metrics go to the handlers,
    /// before the outcome goes to the subscriber.
    package func metricsTaskEnded(_ task: SessionTask, _ outcome: TaskOutcome) {
        guard let recorder = task.metrics else { return }
        task.metrics = nil
        #if Logging
        logTaskEnded(recorder, outcome)
        #endif
        recorder.close()
        observeTaskEnded(task, recorder, outcome)
        guard wantsMetrics(for: task) else { return }
        let metrics = recorder.metrics(endingAt: now.uptimeNanoseconds)
        configuration.taskMetricsHandler?.didFinishCollecting(metrics)
        task.spec.options.metricsHandler?.didFinishCollecting(metrics)
    }
}
