import HTTPTypes
import UVCombineLoop
#if Tracing
import Tracing
#endif

/// A task's metrics while it runs: the finished transactions, the one in
/// progress and its byte counts. Made at the task's start only when
/// someone will receive the metrics (``SessionEngine/wantsMetrics(for:)``),
/// so a task without costs one nil check per collection point.
///
/// Threading: the task's loop thread.
package final class TaskMetricsRecorder {
    package let taskStart: UInt64
    package var finished: [UVURLSessionTaskTransactionMetrics] = []
    package var current: UVURLSessionTaskTransactionMetrics?
    package var redirectCount = 0
    /// Response bytes read in the current transaction, head included.
    package var receivedBytes = 0
    /// The current response head's bytes (known at its end).
    package var headBytes = 0
    /// The task's id in log lines (trait `Logging`); 0 when it does not log.
    package var requestID: UInt64 = 0
    #if Tracing
    /// The task's span while it runs (trait `Tracing`; SessionEngine+Observers.swift).
    package var span: (any Span)?
    #endif

    package init(taskStart: UInt64) {
        self.taskStart = taskStart
        // Most tasks have one transaction.
        finished.reserveCapacity(1)
    }

    /// Opens a transaction for `request` at `now`, closing the current
    /// one first if it is open.
    package func begin(_ request: HTTPRequest, at now: UInt64) {
        close()
        var transaction = UVURLSessionTaskTransactionMetrics(request: request)
        transaction.fetchStart = Self.instant(now)
        current = transaction
        receivedBytes = 0
        headBytes = 0
    }

    /// Closes the current transaction (its byte counts settled).
    package func close() {
        guard var transaction = current else { return }
        if transaction.responseStart != nil {
            transaction.countOfResponseHeaderBytesReceived = headBytes
            transaction.countOfResponseBodyBytesReceived = max(receivedBytes - headBytes, 0)
        }
        finished.append(transaction)
        current = nil
    }

    /// The task's metrics, once it ended at `now`.
    package func metrics(endingAt now: UInt64) -> UVURLSessionTaskMetrics {
        close()
        return UVURLSessionTaskMetrics(transactionMetrics: finished,
                                       taskInterval: Self.time(taskStart)...Self.time(max(now, taskStart)),
                                       redirectCount: redirectCount)
    }

    /// `nanoseconds` as an instant; nil for 0 (a step that did not happen).
    @inline(__always)
    package static func instant(_ nanoseconds: UInt64) -> UVLoop.SchedulerTimeType? {
        nanoseconds == 0 ? nil : UVLoop.SchedulerTimeType(uptimeNanoseconds: nanoseconds)
    }

    package static func time(_ nanoseconds: UInt64) -> UVLoop.SchedulerTimeType {
        UVLoop.SchedulerTimeType(uptimeNanoseconds: nanoseconds)
    }
}
