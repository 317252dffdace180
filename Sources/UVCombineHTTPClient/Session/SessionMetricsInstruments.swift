#if Metrics
import CoreMetrics
import UVCombineHTTPCore

/// The session's swift-metrics instruments (package trait `Metrics`, off by
/// default), named after OpenTelemetry's HTTP client semantic conventions
/// where one fits (docs/observability.md has the table):
///
/// | label | kind | dimensions |
/// | --- | --- | --- |
/// | `http.client.requests` | Counter | none: tasks started |
/// | `http.client.request.failures` | Counter | `error.type`: the ``UVURLError/Code`` name |
/// | `http.client.active_requests` | Meter | none: tasks running |
/// | `http.client.open_connections` | Meter | `http.connection.state`: `active` or `idle` |
/// | `http.client.request.body.size` | Recorder | none: body bytes sent per task |
/// | `http.client.response.body.size` | Recorder | none: body bytes received per task |
/// | `http.client.request.duration` | Timer | `http.request.method`, `server.address`, `server.port`, and `http.response.status_code` or `error.type` |
///
/// The fixed-dimension instruments are made once, with the session; the
/// duration timers and failure counters once per distinct set of
/// dimensions, then reused (a dictionary lookup per task).
///
/// Threading: made with the session on any thread; used on its loop
/// thread only.
package final class SessionMetricsInstruments {
    /// Where the instruments come from.
    package let factory: any MetricsFactory
    /// `http.client.requests`.
    package let requests: Counter
    /// `http.client.active_requests`.
    package let activeRequests: Meter
    /// `http.client.open_connections`, `http.connection.state=active`.
    package let activeConnections: Meter
    /// `http.client.open_connections`, `http.connection.state=idle`.
    package let idleConnections: Meter
    /// `http.client.request.body.size`.
    package let requestBodySize: Recorder
    /// `http.client.response.body.size`.
    package let responseBodySize: Recorder
    /// `http.client.request.duration`, by dimensions.
    private var durations: [DurationKey: Timer] = [:]
    /// `http.client.request.failures`, by error code.
    private var failures: [Int: Counter] = [:]

    /// A duration timer's dimensions.
    private struct DurationKey: Hashable {
        let method: String
        let host: String
        let port: Int
        /// The response's status code, or 0 for a failure.
        let status: Int
        /// The failure's code, or 0 for a response.
        let errorCode: Int
    }

    /// The instruments from `factory`; nil when `factory` is swift-metrics'
    /// `NOOPMetricsHandler` (nothing bootstrapped): nothing to record.
    package init?(factory: any MetricsFactory) {
        if factory is NOOPMetricsHandler { return nil }
        self.factory = factory
        requests = Counter(label: "http.client.requests", factory: factory)
        activeRequests = Meter(label: "http.client.active_requests", factory: factory)
        activeConnections = Meter(label: "http.client.open_connections",
                                  dimensions: [("http.connection.state", "active")], factory: factory)
        idleConnections = Meter(label: "http.client.open_connections",
                                dimensions: [("http.connection.state", "idle")], factory: factory)
        requestBodySize = Recorder(label: "http.client.request.body.size", factory: factory)
        responseBodySize = Recorder(label: "http.client.response.body.size", factory: factory)
    }

    /// The duration timer for a task that ended with `status` (a response)
    /// or `error`.
    package func duration(method: String, host: String, port: Int, status: Int?, error: UVURLError.Code?) -> Timer {
        let key = DurationKey(method: method, host: host, port: port, status: status ?? 0, errorCode: error?.rawValue ?? 0)
        if let timer = durations[key] { return timer }
        var dimensions = [("http.request.method", method), ("server.address", host), ("server.port", "\(port)")]
        if let status { dimensions.append(("http.response.status_code", "\(status)")) }
        if let error { dimensions.append(("error.type", error.description)) }
        let timer = Timer(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
        durations[key] = timer
        return timer
    }

    /// The failure counter for `code`.
    package func failures(_ code: UVURLError.Code) -> Counter {
        if let counter = failures[code.rawValue] { return counter }
        let counter = Counter(label: "http.client.request.failures", dimensions: [("error.type", code.description)],
                              factory: factory)
        failures[code.rawValue] = counter
        return counter
    }
}
#endif
