#if Logging
import HTTPTypes
import Logging
import Synchronization
import UVCombineHTTPCore

// The session's swift-log output (package trait `Logging`, off by
// default): a task's lifecycle at `debug`, its finer steps at `trace`,
// each line with the task's `request-id` as metadata. Called only from the
// metrics collection points (SessionEngine+Metrics.swift) and the pool's
// connection close, so the engine's hot path is untouched: a task gets a
// recorder (and so reaches the collection points) only when metrics are
// wanted or the logger's level is `debug` or lower, checked once at the
// task's start. With the level above `debug`, a task costs the one level
// check and nothing is allocated.

/// The next task's request id: process-wide, so ids from several sessions
/// never collide in one log. Any thread.
private let nextRequestID = Atomic<UInt64>(1)

extension SessionEngine {
    /// The session's logger when its level lets the lifecycle through
    /// (`debug` or `trace`); nil otherwise. Loop thread.
    @inline(__always)
    package var lifecycleLogger: Logger? {
        guard let logger = configuration.logger, logger.logLevel <= .debug else { return nil }
        return logger
    }

    /// Whether tasks start with a recorder for the logger's sake.
    @inline(__always)
    package var logsTasks: Bool { lifecycleLogger != nil }

    /// A fresh request id for a task that logs.
    package func makeRequestID() -> UInt64 {
        nextRequestID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The metadata of a task's line: its request id, and `extra`.
    private func metadata(_ recorder: TaskMetricsRecorder, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var metadata = extra
        metadata["request-id"] = "\(recorder.requestID)"
        return metadata
    }

    /// A request was issued (the task's first, a redirect's, a retry's).
    package func logIssued(_ task: SessionTask, _ recorder: TaskMetricsRecorder, retried: Bool) {
        guard let logger = lifecycleLogger else { return }
        let request = task.request
        logger.debug("request started", metadata: metadata(recorder, [
            "method": "\(request.method.rawValue)",
            "url": "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")",
            "redirect": "\(recorder.redirectCount)",
            "retry": "\(retried)",
        ]))
    }

    /// The request is being written on `connection`, fresh or reused.
    package func logConnection(_ task: SessionTask, _ recorder: TaskMetricsRecorder, _ connection: SessionConnection,
                               reused: Bool, establishment: ConnectionEstablishment) {
        guard let logger = lifecycleLogger else { return }
        var extra: Logger.Metadata = ["connection": "\(connection.id)"]
        if let remote = establishment.remoteAddress { extra["remote"] = "\(remote.host):\(remote.port)" }
        if let local = establishment.localAddress { extra["local"] = "\(local.host):\(local.port)" }
        if reused {
            extra["exchange"] = "\(connection.exchangeCount)"
            logger.debug("connection reused", metadata: metadata(recorder, extra))
        } else {
            logger.debug("connection opened", metadata: metadata(recorder, extra))
        }
    }

    /// A step below the lifecycle (request written, response started,
    /// bytes received, response ended): `trace`.
    package func logStep(_ recorder: TaskMetricsRecorder, _ message: @autoclosure () -> Logger.Message,
                         _ extra: @autoclosure () -> Logger.Metadata = [:]) {
        guard let logger = lifecycleLogger, logger.logLevel <= .trace else { return }
        logger.trace(message(), metadata: metadata(recorder, extra()))
    }

    /// The response head arrived.
    package func logResponseHead(_ recorder: TaskMetricsRecorder, _ response: HTTPResponse) {
        guard let logger = lifecycleLogger else { return }
        logger.debug("response head", metadata: metadata(recorder, [
            "status": "\(response.status.code)",
        ]))
    }

    /// The task ended: completed, failed (with its error) or cancelled.
    package func logTaskEnded(_ recorder: TaskMetricsRecorder, _ outcome: TaskOutcome) {
        guard let logger = lifecycleLogger else { return }
        let elapsed = now.uptimeNanoseconds &- recorder.taskStart
        switch outcome {
        case .failure(let error) where error.code == .cancelled:
            logger.debug("request cancelled", metadata: metadata(recorder, ["elapsed-ns": "\(elapsed)"]))
        case .failure(let error):
            logger.debug("request failed", metadata: metadata(recorder, [
                "error": "\(error)",
                "code": "\(error.code)",
                "elapsed-ns": "\(elapsed)",
            ]))
        case .value, .finished:
            logger.debug("request completed", metadata: metadata(recorder, [
                "status": "\(recorder.finished.last?.response?.status.code ?? 0)",
                "elapsed-ns": "\(elapsed)",
            ]))
        }
    }

    /// The pool closed `connection`; the request id of the task it was
    /// serving, if any.
    package func logConnectionClosed(_ connection: SessionConnection) {
        guard let logger = lifecycleLogger else { return }
        var extra: Logger.Metadata = [
            "connection": "\(connection.id)",
            "exchanges": "\(connection.exchangeCount)",
        ]
        if let recorder = connection.task?.metrics { extra["request-id"] = "\(recorder.requestID)" }
        logger.debug("connection closed", metadata: extra)
    }
}
#else
extension SessionEngine {
    // The collection points call these only for a task with a recorder;
    // without the trait they compile to nothing.
    /// Without the `Logging` trait no task logs.
    @inline(__always)
    package var logsTasks: Bool { false }

    /// Without the `Logging` trait: nothing.
    @inline(__always)
    package func logConnectionClosed(_ connection: SessionConnection) {}
}
#endif
