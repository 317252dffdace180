import FoundationEssentials
import HTTPTypes
import Synchronization
import UVCombineHTTPCore

extension UVURLSession {
    /// Sends `request` with `body` and returns the whole response body,
    /// its head and the task's `UVURLSessionTaskMetrics`: what
    /// ``data(for:body:options:)`` returns, plus what the task cost
    /// (URLSession's delegate `urlSession(_:task:didFinishCollecting:)`
    /// for one async call). A `RequestOptions/metricsHandler` in
    /// `options` still runs; the session's handler too.
    ///
    /// Any task; see ``data(for:body:options:)`` for isolation,
    /// cancellation and errors (a failed task throws, and its metrics go
    /// to the handlers only).
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/")
    /// let (data, response, metrics) = try await session.dataAndMetrics(for: request)
    /// let first = metrics.transactionMetrics[0]
    /// print(response.status, data.count, first.remoteAddress ?? "-", first.isReusedConnection)
    /// ```
    public nonisolated(nonsending) func dataAndMetrics(
        for request: HTTPRequest, body: Data? = nil, options: RequestOptions = RequestOptions()
    ) async throws -> (Data, HTTPResponse, UVURLSessionTaskMetrics) {
        let collected = Mutex<UVURLSessionTaskMetrics?>(nil)
        let previous = options.metricsHandler
        var options = options
        options.metricsHandler = MetricsHandler { metrics in
            collected.withLock { $0 = metrics }
            previous?.didFinishCollecting(metrics)
        }
        let (data, response) = try await data(for: request, body: body, options: options)
        // The handler ran on the loop thread before the outcome was
        // delivered, so the metrics are here.
        guard let metrics = collected.withLock({ $0 }) else {
            preconditionFailure("UVURLSession.dataAndMetrics: the session delivers metrics before the outcome")
        }
        return (data, response, metrics)
    }
}
