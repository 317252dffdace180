#if Metrics
import CoreMetrics
#endif
#if Tracing
import Tracing
#endif
import HTTPTypes
import UVCombineHTTPCore

// The observers behind the `Metrics` and `Tracing` traits (SessionObservers),
// fed from the task metrics' collection points (SessionEngine+Metrics.swift)
// and the pool's connection close, as the `Logging` trait's lines are: the
// engine's hot path is untouched. A task reaches these only when it has a
// recorder, which it gets at its start when some observer is there
// (`observers.observesTasks`). Without either trait each function here is
// empty and inlined away.
extension SessionEngine {
    // MARK: Observers (traits Metrics, Tracing)

    /// The task started: counted, and its span started in the context
    /// captured when the task was made.
    @inline(__always)
    package func observeTaskStarted(_ task: SessionTask, _ recorder: TaskMetricsRecorder) {
        #if Metrics
        if let metrics = observers.metrics {
            metrics.requests.increment()
            metrics.activeRequests.increment()
        }
        #endif
        #if Tracing
        if let tracer = observers.tracer { startSpan(task, recorder, tracer) }
        #endif
    }

    /// A request of the task is issued (its first, a redirect's, a
    /// retry's): its span's context goes into the request's fields.
    @inline(__always)
    package func observeIssued(_ task: SessionTask, _ recorder: TaskMetricsRecorder) {
        #if Tracing
        if let tracer = observers.tracer, let span = recorder.span { inject(span, into: task, tracer) }
        #endif
    }

    /// The request is being written on `connection`.
    @inline(__always)
    package func observeRequestStarted(_ task: SessionTask, _ recorder: TaskMetricsRecorder,
                                       on connection: SessionConnection) {
        #if Metrics
        if let metrics = observers.metrics { countConnections(metrics) }
        #endif
        #if Tracing
        if let span = recorder.span {
            span.attributes["network.protocol.version"] = connection.http2 != nil ? "2" : "1.1"
        }
        #endif
    }

    /// The response head arrived.
    @inline(__always)
    package func observeResponseHead(_ recorder: TaskMetricsRecorder, _ response: HTTPResponse) {
        #if Tracing
        if let span = recorder.span { span.attributes["http.response.status_code"] = response.status.code }
        #endif
    }

    /// The task ended with `outcome`; `recorder`'s transactions are closed.
    @inline(__always)
    package func observeTaskEnded(_ task: SessionTask, _ recorder: TaskMetricsRecorder, _ outcome: TaskOutcome) {
        #if Metrics
        if let metrics = observers.metrics { recordTaskEnded(task, recorder, outcome, metrics) }
        #endif
        #if Tracing
        if let span = recorder.span { endSpan(span, recorder, outcome) }
        #endif
    }

    /// The pool closed `connection`.
    @inline(__always)
    package func observeConnectionClosed(_ connection: SessionConnection) {
        #if Metrics
        if let metrics = observers.metrics { countConnections(metrics) }
        #endif
    }

    #if Metrics
    /// Sets `http.client.open_connections`: a connection is idle when it
    /// is established and carries no exchange (HTTP/1.1) and no stream
    /// (HTTP/2); active otherwise (connecting included). Counted over the
    /// session's connections (a handful) at each task's start of writing,
    /// end, and each connection's close.
    private func countConnections(_ metrics: SessionMetricsInstruments) {
        var idle = 0
        for connection in connections.values where connection.isEstablished && connection.task == nil {
            if let http2 = connection.http2, !http2.streams.isEmpty { continue }
            idle += 1
        }
        metrics.idleConnections.set(idle)
        metrics.activeConnections.set(connections.count - idle)
    }

    /// The task's duration, failure, body sizes; one fewer in flight.
    private func recordTaskEnded(_ task: SessionTask, _ recorder: TaskMetricsRecorder, _ outcome: TaskOutcome,
                                 _ metrics: SessionMetricsInstruments) {
        metrics.activeRequests.decrement()
        var sent = 0
        var received = 0
        for transaction in recorder.finished {
            sent += transaction.countOfRequestBodyBytesSent
            received += transaction.countOfResponseBodyBytesReceived
        }
        metrics.requestBodySize.record(sent)
        metrics.responseBodySize.record(received)
        let target = task.currentTarget
        let elapsed = now.uptimeNanoseconds &- recorder.taskStart
        switch outcome {
        case .failure(let error):
            metrics.failures(error.code).increment()
            metrics.duration(method: task.request.method.rawValue, host: target.host, port: target.port,
                             status: nil, error: error.code).recordNanoseconds(elapsed)
        case .value, .finished:
            let status = recorder.finished.last?.response?.status.code ?? 0
            metrics.duration(method: task.request.method.rawValue, host: target.host, port: target.port,
                             status: status, error: nil).recordNanoseconds(elapsed)
        }
        countConnections(metrics)
    }
    #endif

    #if Tracing
    /// Starts the task's span (kind client, named by the method, as
    /// OpenTelemetry names HTTP client spans) with the request's
    /// attributes, in the context the task was made in.
    private func startSpan(_ task: SessionTask, _ recorder: TaskMetricsRecorder, _ tracer: any Tracer) {
        let request = task.request
        let target = task.currentTarget
        let span = tracer.startSpan(request.method.rawValue, context: task.serviceContext ?? .topLevel, ofKind: .client)
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["url.full"] = "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
            attributes["server.address"] = target.host
            attributes["server.port"] = target.port
        }
        recorder.span = span
    }

    /// Writes `span`'s context into the request's fields with the
    /// tracer's propagation (a W3C `traceparent` for an OpenTelemetry
    /// tracer), replacing what an earlier request of the task carried, so
    /// the request is serialised again instead of from its prepared head.
    private func inject(_ span: any Span, into task: SessionTask, _ tracer: any Tracer) {
        tracer.inject(span.context, into: &task.request.headerFields, using: HTTPFieldsInjector())
        task.usesPreparedHead = false
        let request = task.request
        span.attributes["url.full"] = "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
    }

    /// Ends `span`: a failure records its error, sets `error.type` to the
    /// code's name and the status to error; a response of 400 and over
    /// (OpenTelemetry: errors for a client) sets `error.type` to its code.
    private func endSpan(_ span: any Span, _ recorder: TaskMetricsRecorder, _ outcome: TaskOutcome) {
        switch outcome {
        case .failure(let error):
            span.attributes["error.type"] = error.code.description
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: error.code.description))
        case .value, .finished:
            if let status = recorder.finished.last?.response?.status.code, status >= 400 {
                span.attributes["error.type"] = "\(status)"
                span.setStatus(SpanStatus(code: .error))
            }
        }
        span.end()
        recorder.span = nil
    }
    #endif
}

#if Tracing
/// Writes a tracer's propagation values as request header fields,
/// replacing a field of the same name; a key that is not a valid field
/// name is skipped.
///
/// Threading: a value; any thread.
package struct HTTPFieldsInjector: Injector {
    package init() {}

    package func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
#endif
