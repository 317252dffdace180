import HTTPTypes
import UVCombineHTTPCore

extension UVURLSession {
    /// Settings carried by one request that override the session's
    /// ``Configuration``: today its deadlines, as `URLRequest.timeoutInterval`
    /// overrides `URLSessionConfiguration.timeoutIntervalForRequest`.
    ///
    /// `HTTPRequest` (swift-http-types) has no room for a timeout, so the
    /// options travel beside it: pass them to
    /// ``UVURLSession/dataTaskPublisher(for:body:options:)``,
    /// ``UVURLSession/bytesPublisher(for:body:options:)`` or the async API
    /// (``UVURLSession/data(for:body:options:)`` and its siblings). A field
    /// left `nil` takes the session's value; the default options change
    /// nothing.
    ///
    /// | here | URLRequest / URLSessionConfiguration | when `nil` |
    /// | --- | --- | --- |
    /// | ``idleReadTimeout`` | `timeoutInterval` | ``Configuration/idleReadTimeout`` |
    /// | ``totalTimeout`` | (the session's `timeoutIntervalForResource` only) | ``Configuration/totalTimeout`` |
    /// | ``httpVersion`` | (`assumesHTTP3Capable` is the nearest) | ``Configuration/httpVersion`` |
    ///
    /// Each is in force for the whole task, redirects and retries
    /// included, and fails it exactly as the session's would:
    /// `.timedOut` with ``UVURLError/timeoutKind`` `.idleRead` or `.total`.
    /// The connect timeout stays the session's (a connection may serve
    /// many requests). A timeout cannot be switched off per request when
    /// the session has one; give a very long duration
    /// (`.seconds(Int64.max)` means never: deadlines saturate).
    ///
    /// ```swift
    /// var options = UVURLSession.RequestOptions()
    /// options.totalTimeout = .seconds(2)      // this request: 2 s in all
    /// options.idleReadTimeout = .milliseconds(500)
    /// let (data, response) = try await session.data(for: request, options: options)
    /// ```
    ///
    /// Threading: a value type; `Sendable`.
    public struct RequestOptions: Sendable, Equatable, Hashable, CustomStringConvertible {
        /// The longest the exchange may go without progress (see
        /// ``Configuration/idleReadTimeout``), or `nil` for the session's.
        public var idleReadTimeout: Duration?
        /// The longest the task may take in all, redirects and retries
        /// included, or `nil` for the session's
        /// ``Configuration/totalTimeout``.
        public var totalTimeout: Duration?
        /// Receives this task's ``UVURLSessionTaskMetrics`` when it ends,
        /// on the loop thread, before its outcome reaches the subscriber
        /// (after the session's ``Configuration/taskMetricsHandler``).
        /// Nil: the session's handler only. Overrides no setting, so it
        /// leaves ``isDefault`` alone.
        ///
        /// ```swift
        /// options.metricsHandler = UVURLSession.MetricsHandler { print($0) }
        /// ```
        public var metricsHandler: MetricsHandler?
        /// The credential this request answers a server's `401` with, in
        /// place of the session's ``Configuration/credential``. Overrides
        /// no deadline (``isDefault`` is unchanged).
        ///
        /// ```swift
        /// options.credential = UVURLSession.Credential(username: "bob", password: "pw", schemes: .digest)
        /// ```
        public var credential: Credential?
        /// The HTTP version this request may use, or `nil` for the
        /// session's ``Configuration/httpVersion``. Redirects keep it.
        ///
        /// ```swift
        /// var options = UVURLSession.RequestOptions()
        /// options.httpVersion = .http1_1 // curl --http1.1
        /// ```
        public var httpVersion: HTTPVersionPreference?

        /// Options that override the given deadlines; the defaults
        /// override nothing.
        ///
        /// ```swift
        /// let quick = UVURLSession.RequestOptions(totalTimeout: .seconds(1))
        /// ```
        public init(idleReadTimeout: Duration? = nil, totalTimeout: Duration? = nil,
                    metricsHandler: MetricsHandler? = nil) {
            self.idleReadTimeout = idleReadTimeout
            self.totalTimeout = totalTimeout
            self.metricsHandler = metricsHandler
        }

        /// Whether these options override a deadline or the HTTP version
        /// (a metrics handler or a credential is not an override).
        public var isDefault: Bool { idleReadTimeout == nil && totalTimeout == nil && httpVersion == nil }

        /// The set overrides, e.g. `RequestOptions(totalTimeout: 2.0 seconds)`.
        public var description: String {
            var parts: [String] = []
            if let idleReadTimeout { parts.append("idleReadTimeout: \(idleReadTimeout)") }
            if let totalTimeout { parts.append("totalTimeout: \(totalTimeout)") }
            if metricsHandler != nil { parts.append("metricsHandler") }
            if let credential { parts.append("credential: \(credential)") }
            if let httpVersion { parts.append("httpVersion: \(httpVersion)") }
            return "RequestOptions(\(parts.joined(separator: ", ")))"
        }
    }
}

extension RequestTimeouts {
    /// These timeouts with the ones `options` sets in their place: a
    /// session's timeouts under one request's overrides.
    ///
    /// ```swift
    /// var session = RequestTimeouts()          // idle 60 s, total 7 days
    /// let task = session.overridden(by: .init(totalTimeout: .seconds(5)))
    /// // task.idleRead == .seconds(60), task.total == .seconds(5)
    /// ```
    public func overridden(by options: UVURLSession.RequestOptions) -> RequestTimeouts {
        var timeouts = self
        if let idleRead = options.idleReadTimeout { timeouts.idleRead = idleRead }
        if let total = options.totalTimeout { timeouts.total = total }
        return timeouts
    }
}
