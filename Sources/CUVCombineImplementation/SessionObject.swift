import CUVCombine
import UVCombineHTTPClient
import UVCombineHTTPCore

/// The object behind a `uvc_session_t *`: a ``UVURLSession`` on the loop's
/// ``UVLoop``, and the loop object (whose phase says whether new fetches
/// are accepted), and whether its fetches collect task metrics
/// (`collect_metrics`). Immutable; any thread.
internal final class SessionObject: OpaqueObject, Sendable {
    internal let loop: LoopObject
    internal let session: UVURLSession
    internal let collectsMetrics: Bool

    internal init(loop: LoopObject, configuration: UVURLSession.Configuration, collectsMetrics: Bool) {
        self.loop = loop
        session = UVURLSession(loop: loop.loop, configuration: configuration)
        self.collectsMetrics = collectsMetrics
    }
}

/// `uvc_session_options_t` and ``UVURLSession/Configuration``, both ways.
internal enum SessionOptions {
    /// The defaults: the configuration's.
    internal static var defaults: uvc_session_options_t {
        let configuration = UVURLSession.Configuration()
        return uvc_session_options_t(
            size: MemoryLayout<uvc_session_options_t>.size,
            max_connections_per_host: UInt32(configuration.maximumConnectionsPerHost),
            max_redirects: configuration.redirectPolicy.followsRedirects
                ? UInt32(configuration.redirectPolicy.maximumRedirects) : 0,
            connect_timeout_ns: nanoseconds(configuration.connectTimeout),
            connection_idle_timeout_ns: nanoseconds(configuration.connectionIdleTimeout),
            idle_read_timeout_ns: configuration.idleReadTimeout.map(nanoseconds) ?? 0,
            total_timeout_ns: configuration.totalTimeout.map(nanoseconds) ?? 0,
            max_response_header_bytes: UInt64(configuration.maximumResponseHeaderBytes),
            max_response_body_bytes: configuration.maximumResponseBodyLength.map { UInt64($0) } ?? 0,
            tls_ca_file: nil,
            tls_verification_disabled_insecure: 0,
            collect_metrics: 0,
            http_version: 0
        )
    }

    /// The configuration `options` describe, or nil when one is out of
    /// range (`UV_EINVAL`; uvc_session_new lists the rules).
    internal static func configuration(_ options: uvc_session_options_t) -> UVURLSession.Configuration? {
        let limit = UInt64(Int64.max)
        guard options.max_connections_per_host > 0,
              options.connect_timeout_ns > 0, options.connect_timeout_ns <= limit,
              options.connection_idle_timeout_ns > 0, options.connection_idle_timeout_ns <= limit,
              options.idle_read_timeout_ns <= limit, options.total_timeout_ns <= limit,
              options.max_response_header_bytes > 0, options.max_response_header_bytes <= limit,
              options.max_response_body_bytes <= limit,
              let httpVersion = httpVersion(options.http_version)
        else { return nil }
        var configuration = UVURLSession.Configuration()
        configuration.maximumConnectionsPerHost = Int(options.max_connections_per_host)
        if options.max_redirects == 0 {
            configuration.redirectPolicy = .none
        } else {
            configuration.redirectPolicy.maximumRedirects = Int(options.max_redirects)
        }
        configuration.connectTimeout = duration(options.connect_timeout_ns)
        configuration.connectionIdleTimeout = duration(options.connection_idle_timeout_ns)
        configuration.idleReadTimeout = options.idle_read_timeout_ns == 0 ? nil : duration(options.idle_read_timeout_ns)
        configuration.totalTimeout = options.total_timeout_ns == 0 ? nil : duration(options.total_timeout_ns)
        configuration.maximumResponseHeaderBytes = Int(options.max_response_header_bytes)
        configuration.maximumResponseBodyLength =
            options.max_response_body_bytes == 0 ? nil : Int(options.max_response_body_bytes)
        if let caFile = options.tls_ca_file {
            configuration.tls.trustRoots = .pemFile(String(cString: caFile))
        }
        if options.tls_verification_disabled_insecure != 0 {
            configuration.tls.certificateVerification = .disabledInsecure
        }
        configuration.httpVersion = httpVersion
        return configuration
    }

    /// `http_version` (`UVC_HTTP_VERSION_*`) as the session's preference,
    /// nil for any other value.
    private static func httpVersion(_ value: Int32) -> HTTPVersionPreference? {
        switch value {
        case UVC_HTTP_VERSION_AUTOMATIC: .automatic
        case UVC_HTTP_VERSION_1_1: .http1_1
        case UVC_HTTP_VERSION_2_PRIOR_KNOWLEDGE: .http2PriorKnowledge
        default: nil
        }
    }

    private static func duration(_ nanoseconds: UInt64) -> Duration {
        .nanoseconds(Int64(nanoseconds))
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
