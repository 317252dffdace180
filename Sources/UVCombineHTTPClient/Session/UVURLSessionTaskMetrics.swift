import UVCombineLoop

/// What a task cost, request by request: Foundation's
/// `URLSessionTaskMetrics`, with instants on the loop's monotonic clock.
///
/// A session hands it over when the task ends (with a value, a failure
/// or a cancellation), before the task's outcome reaches its subscriber,
/// to the session's ``UVURLSession/Configuration/taskMetricsHandler``
/// (URLSession's `urlSession(_:task:didFinishCollecting:)`) and to the
/// request's ``UVURLSession/RequestOptions/metricsHandler``. Nothing is
/// collected for a task when neither is set.
///
/// Threading: a value type; `Sendable`. The handlers run on the
/// session's loop thread.
///
/// ```swift
/// var options = UVURLSession.RequestOptions()
/// options.metricsHandler = UVURLSession.MetricsHandler { metrics in
///     print(metrics.redirectCount, metrics.transactionMetrics.map(\.isReusedConnection))
/// }
/// session.dataTaskPublisher(for: request, options: options).sink(...)
/// ```
public struct UVURLSessionTaskMetrics: Sendable, CustomStringConvertible {
    /// One per request sent, in order (see
    /// ``UVURLSessionTaskTransactionMetrics``).
    public var transactionMetrics: [UVURLSessionTaskTransactionMetrics]
    /// From the task's start to its end (URLSession's `taskInterval`).
    public var taskInterval: ClosedRange<UVLoop.SchedulerTimeType>
    /// The redirects the session followed for the task.
    public var redirectCount: Int

    /// Metrics made of their parts.
    ///
    /// ```swift
    /// let now = loop.now
    /// let none = UVURLSessionTaskMetrics(transactionMetrics: [], taskInterval: now...now, redirectCount: 0)
    /// ```
    public init(transactionMetrics: [UVURLSessionTaskTransactionMetrics],
                taskInterval: ClosedRange<UVLoop.SchedulerTimeType>, redirectCount: Int) {
        self.transactionMetrics = transactionMetrics
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
    }

    /// e.g. `TaskMetrics(2 transactions, 1 redirect, 1500 µs)`.
    public var description: String {
        let micros = (taskInterval.upperBound.uptimeNanoseconds &- taskInterval.lowerBound.uptimeNanoseconds) / 1000
        return "TaskMetrics(\(transactionMetrics.count) transactions, \(redirectCount) redirects, \(micros) µs)"
    }
}

extension UVURLSession {
    /// Receives a task's ``UVURLSessionTaskMetrics`` when the task ends:
    /// the closure form of URLSession's delegate method
    /// `urlSession(_:task:didFinishCollecting:)`. A class, so that the
    /// configuration and request options that hold one stay `Equatable`
    /// (by identity).
    ///
    /// Threading: the closure runs on the session's loop thread, before
    /// the task's outcome is delivered; keep it short.
    ///
    /// ```swift
    /// var configuration = UVURLSession.Configuration()
    /// configuration.taskMetricsHandler = UVURLSession.MetricsHandler { metrics in print(metrics) }
    /// ```
    public final class MetricsHandler: Sendable, Hashable, CustomStringConvertible {
        /// The closure.
        public let didFinishCollecting: @Sendable (UVURLSessionTaskMetrics) -> Void

        /// A handler running `didFinishCollecting` for each task's metrics.
        ///
        /// ```swift
        /// let handler = UVURLSession.MetricsHandler { print($0.transactionMetrics.count) }
        /// ```
        public init(_ didFinishCollecting: @escaping @Sendable (UVURLSessionTaskMetrics) -> Void) {
            self.didFinishCollecting = didFinishCollecting
        }

        /// Identity.
        public static func == (lhs: MetricsHandler, rhs: MetricsHandler) -> Bool { lhs === rhs }

        /// Identity.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

        /// `MetricsHandler`.
        public var description: String { "MetricsHandler" }
    }
}
