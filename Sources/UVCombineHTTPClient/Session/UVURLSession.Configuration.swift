import UVCombineHTTPCore
import UVCombineHTTPCookies
#if Logging
import Logging
#endif
#if Metrics
import CoreMetrics
#endif
#if Tracing
import Tracing
#endif

extension UVURLSession {
    /// A session's limits, timeouts, redirect policy and TLS settings, in
    /// the spirit of `URLSessionConfiguration`.
    ///
    /// | here | URLSessionConfiguration | default |
    /// | --- | --- | --- |
    /// | ``maximumConnectionsPerHost`` | `httpMaximumConnectionsPerHost` | 6 |
    /// | ``connectTimeout`` | (none) | 10 s |
    /// | ``connectionAttemptDelay`` | (none) | 250 ms (Happy Eyeballs) |
    /// | ``connectionIdleTimeout`` | (none) | 60 s |
    /// | ``idleReadTimeout`` | `timeoutIntervalForRequest` | 60 s |
    /// | ``totalTimeout`` | `timeoutIntervalForResource` | 7 days |
    /// | ``redirectPolicy`` | (a delegate's job) | follow up to 5, never https → http |
    /// | ``maximumResponseHeaderBytes`` | (none) | 64 KiB |
    /// | ``maximumResponseHeaderCount`` | (none) | 100 |
    /// | ``maximumResponseStatusLineLength`` | (none) | 8 KiB |
    /// | ``maximumResponseBodyLength`` | (none) | no limit |
    /// | ``tls`` | (a delegate's job) | system trust roots, full verification, TLS 1.2+ |
    /// | ``decompressesResponses`` | (always on) | on: `Accept-Encoding: gzip, deflate` |
    /// | ``unixSocketPath`` | (none) | nil: TCP |
    /// | ``proxy`` | `connectionProxyDictionary` (and the environment) | none: direct |
    ///
    /// Each limit fails the one task that exceeds it with a typed
    /// ``UVURLError``: `.timedOut` with ``UVURLError/timeoutKind`` `.connect`,
    /// `.idleRead` or `.total`; `.badServerResponse` for a head over the
    /// limits; `.dataLengthExceedsMaximum` for a body over its limit;
    /// `.httpTooManyRedirects`. TLS failures have codes of their own
    /// (`.secureConnectionFailed`, `.serverCertificateHasBadDate`, ...;
    /// ``TLSConfiguration``); a compressed body that does not decode fails
    /// with `.cannotDecodeContentData`.
    ///
    /// ```swift
    /// var configuration = UVURLSession.Configuration()
    /// configuration.maximumConnectionsPerHost = 2
    /// configuration.idleReadTimeout = .seconds(5)
    /// configuration.redirectPolicy = .none
    /// let session = UVURLSession(loop: loop, configuration: configuration)
    /// ```
    ///
    /// Threading: a value type; `Sendable`.
    public struct Configuration: Sendable, Equatable {
        /// Connections per (scheme, host, port) at most; requests beyond it
        /// wait in a first-in, first-out queue. Default 6.
        public var maximumConnectionsPerHost: Int = 6
        /// How long name resolution, TCP connect and, for `https`, the TLS
        /// handshake may take. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// Happy Eyeballs (RFC 8305): when a host name has several
        /// addresses, how long a connect to one runs alone before the next
        /// address is tried beside it (the first to connect wins). Default
        /// 250 ms, as RFC 8305 recommends; see
        /// `UVTCP.Options.connectionAttemptDelay` in UVCombineLoop.
        public var connectionAttemptDelay: Duration = .milliseconds(250)
        /// How long an unused keep-alive connection stays open. Default 60 s.
        public var connectionIdleTimeout: Duration = .seconds(60)
        /// The longest an exchange may go without progress once its request
        /// is being written: no response byte received and no request byte
        /// taken by the kernel (so an upload slower than this lives while
        /// its bytes flow; a stall in either direction times out); `nil`
        /// for none. Default 60 s.
        public var idleReadTimeout: Duration? = .seconds(60)
        /// The longest a task may take in all, redirects and retries
        /// included; `nil` for none. Default 7 days.
        public var totalTimeout: Duration? = .seconds(7 * 24 * 3600)
        /// Which redirects are followed. Default: up to 5, never from
        /// `https` to `http`.
        public var redirectPolicy = RedirectPolicy()
        /// The most bytes a response head may take. Default 64 KiB.
        public var maximumResponseHeaderBytes: Int = 64 * 1024
        /// The most header fields a response may have. Default 100.
        public var maximumResponseHeaderCount: Int = 100
        /// The longest response status line, without its CRLF. Default
        /// 8 KiB.
        public var maximumResponseStatusLineLength: Int = 8 * 1024
        /// The largest response body accepted, or `nil` for no limit
        /// (the default).
        public var maximumResponseBodyLength: Int? = nil
        /// How `https` connections are secured: trusted roots (the
        /// system's by default, or a PEM file like `curl --cacert`),
        /// certificate verification (on; `.disabledInsecure` only for
        /// tests, like `curl -k`) and the minimum TLS version.
        ///
        /// ```swift
        /// configuration.tls.trustRoots = .pemFile("/path/to/ca.pem")
        /// ```
        public var tls = TLSConfiguration()
        /// Whether responses may come compressed, as with `URLSession`:
        /// every request says `Accept-Encoding: gzip, deflate` (unless it
        /// carries an `Accept-Encoding` of its own, which is sent as
        /// given), and a body whose `Content-Encoding` is `gzip`
        /// (`x-gzip`) or `deflate` is decoded as it arrives, through the
        /// system zlib, whoever asked for it. Default `true`; `false`
        /// sends no `Accept-Encoding` and delivers every body as it came.
        ///
        /// The response head is delivered as the server sent it:
        /// `Content-Encoding` stays, and `Content-Length` is the length of
        /// the *encoded* body, not of the data delivered. Other codings
        /// (`br`, `zstd`) and lists of several are not decoded.
        /// ``maximumResponseBodyLength`` applies to the encoded body and to
        /// the decoded one. A corrupt or truncated stream fails the task
        /// with `.cannotDecodeContentData` and closes the connection.
        ///
        /// ```swift
        /// configuration.decompressesResponses = false // bodies as sent
        /// ```
        public var decompressesResponses = true
        /// A Unix domain socket every connection goes through instead of
        /// TCP, as `curl --unix-socket`: the URL still gives the `Host`
        /// field, the TLS server name for `https`, and the request target;
        /// only where the bytes go changes. Connections are pooled by
        /// socket path (and scheme, host and port). Default nil: TCP, or
        /// the socket an `http+unix://` URL names (its percent-encoded
        /// host, as in `http+unix://%2Fvar%2Frun%2Fapp.sock/path`).
        ///
        /// A path where nothing listens fails the task with
        /// `.cannotConnectToHost` (`UV_ENOENT` when nothing exists there,
        /// `UV_ECONNREFUSED` when no one listens); a path longer than
        /// ``/UVCombineLoop/UVPipe/maximumPathLength`` bytes with
        /// `UV_ENAMETOOLONG`.
        ///
        /// ```swift
        /// configuration.unixSocketPath = "/var/run/docker.sock"
        /// // http://localhost/v1.43/containers/json goes through the socket
        /// ```
        public var unixSocketPath: String? = nil
        /// The proxies requests go through: `http` URLs as absolute-form
        /// requests, `https` URLs through `CONNECT` tunnels, with basic
        /// authentication and a no-proxy list (``ProxyConfiguration``).
        /// Default ``ProxyConfiguration/none``: direct, whatever the
        /// environment says; ``ProxyConfiguration/environment`` reads
        /// `http_proxy`, `HTTPS_PROXY`, `NO_PROXY` and the rest with curl's
        /// rules.
        ///
        /// ```swift
        /// configuration.proxy = .environment
        /// configuration.proxy = UVURLSession.ProxyConfiguration(
        ///     https: try UVURLSession.Proxy(url: "http://user:pass@proxy:3128"), noProxy: "localhost")
        /// ```
        public var proxy = ProxyConfiguration.none
        /// Receives every task's ``UVURLSessionTaskMetrics`` when the task
        /// ends, on the loop thread, before its outcome reaches the
        /// subscriber: URLSession's delegate method
        /// `urlSession(_:task:didFinishCollecting:)`. Default nil: no
        /// metrics are collected (a request's own
        /// ``RequestOptions/metricsHandler`` still collects its own).
        ///
        /// ```swift
        /// configuration.taskMetricsHandler = UVURLSession.MetricsHandler { metrics in
        ///     print(metrics.transactionMetrics.last?.remoteAddress ?? "-")
        /// }
        /// ```
        public var taskMetricsHandler: MetricsHandler? = nil
        /// The user name and password a server's `401` is answered with
        /// (Digest or Basic, once per task; ``Credential``). Default nil:
        /// a `401` is the response. A request's
        /// ``RequestOptions/credential`` takes its place for that request.
        ///
        /// ```swift
        /// configuration.credential = UVURLSession.Credential(username: "alice", password: "secret")
        /// ```
        public var credential: Credential? = nil
        /// Where the session keeps cookies (RFC 6265, docs/cookies.md):
        /// before each request is written, the cookies for its URL go into
        /// a `Cookie` field (unless the request carries its own); each
        /// response head's `Set-Cookie` fields are stored, redirects
        /// included, each hop with its own URL. Default
        /// ``UVURLSession/sharedCookieStorage``, one store for every
        /// session with the default, as `URLSessionConfiguration.default`
        /// uses `HTTPCookieStorage.shared`; nil switches cookies off (as
        /// `httpShouldSetCookies = false` with no storage).
        ///
        /// ```swift
        /// configuration.httpCookieStorage = nil                    // no cookies
        /// configuration.httpCookieStorage = UVHTTPCookieStorage()  // this session's own
        /// ```
        public var httpCookieStorage: UVHTTPCookieStorage? {
            get { cookieStorageReference.storage }
            set { cookieStorageReference = CookieStorageReference(storage: newValue) }
        }
        /// ``httpCookieStorage``, compared by identity (the storage is a
        /// class without `Equatable`).
        private var cookieStorageReference = CookieStorageReference(storage: UVURLSession.sharedCookieStorage)
        /// Which HTTP version requests use, unless their
        /// ``RequestOptions/httpVersion`` says otherwise (issue 33,
        /// docs/http2.md). Default ``HTTPVersionPreference/automatic``:
        /// `https` offers `h2` by ALPN and uses HTTP/2 when the server
        /// chooses it, `http` is HTTP/1.1, as curl and URLSession do.
        /// ``HTTPVersionPreference/http2PriorKnowledge`` speaks HTTP/2 on
        /// cleartext from the first byte (`h2c`);
        /// ``HTTPVersionPreference/http1_1`` never offers HTTP/2.
        /// Requests through a forwarding proxy (`http` via a proxy) are
        /// HTTP/1.1.
        ///
        /// ```swift
        /// configuration.httpVersion = .http2PriorKnowledge // h2c to a local service
        /// ```
        public var httpVersion = HTTPVersionPreference.automatic
        /// HTTP/2 connections per host at most: one carries up to the
        /// server's `SETTINGS_MAX_CONCURRENT_STREAMS` requests at once, and
        /// another is opened when all are full, up to this many (then
        /// requests wait for a stream). Default 1, as curl and browsers.
        ///
        /// ```swift
        /// configuration.maximumHTTP2ConnectionsPerHost = 2
        /// ```
        public var maximumHTTP2ConnectionsPerHost = 1
        /// HTTP/2 keep-alive: when nothing arrived on a connection for this
        /// long, a PING goes out; without its acknowledgement within
        /// ``http2PingTimeout`` the connection is dead and its requests
        /// fail with `.timedOut`. Default nil: no PING (as curl); idle
        /// connections close after ``connectionIdleTimeout``.
        ///
        /// ```swift
        /// configuration.http2PingInterval = .seconds(30)
        /// ```
        public var http2PingInterval: Duration? = nil
        /// How long a keep-alive PING may wait for its acknowledgement.
        /// Default 20 s.
        public var http2PingTimeout: Duration = .seconds(20)
        #if Logging
        /// Where the session logs its tasks' lifecycle (package trait
        /// `Logging`, off by default): at `debug`, each request's start,
        /// the connection it opened or reused, its response head, its
        /// completion or failure (with the error) and each connection's
        /// close; at `trace`, the writes, reads and the response's end.
        /// Every line carries the task's `request-id` as metadata. Default
        /// nil: nothing is logged. With a level above `debug`, a task costs
        /// one level check and allocates nothing.
        ///
        /// Threading: the logger is called on the session's loop thread.
        ///
        /// ```swift
        /// var logger = Logger(label: "http")
        /// logger.logLevel = .debug
        /// configuration.logger = logger
        /// ```
        public var logger: Logger? {
            get { loggerReference.logger }
            set { loggerReference = SessionLoggerReference(logger: newValue) }
        }
        /// ``logger``, compared by label and level (a `Logger` is not
        /// `Equatable`).
        private var loggerReference = SessionLoggerReference(logger: nil)
        #endif

        #if Metrics
        /// Where the session's swift-metrics instruments come from (package
        /// trait `Metrics`, off by default): requests, failures by error
        /// code, tasks in flight, pool connections active and idle, body
        /// bytes each way and durations, named after OpenTelemetry's HTTP
        /// client conventions (`http.client.request.duration`, ...;
        /// docs/observability.md). Default nil: `MetricsSystem.factory`, as
        /// it is when the session is made; while that is still
        /// swift-metrics' no-op handler (nothing bootstrapped), nothing is
        /// recorded and a task costs one check.
        ///
        /// Threading: the instruments are made with the session and
        /// updated on its loop thread.
        ///
        /// ```swift
        /// configuration.metricsFactory = myPrometheusFactory
        /// ```
        public var metricsFactory: (any MetricsFactory)? {
            get { metricsFactoryReference.value as? any MetricsFactory }
            set { metricsFactoryReference = ObserverReference(newValue) }
        }
        /// ``metricsFactory``, compared by identity.
        private var metricsFactoryReference = ObserverReference(nil)
        #endif
        #if Tracing
        /// The tracer that gives each task a span (package trait `Tracing`,
        /// off by default): kind client, named by the method, with
        /// OpenTelemetry's HTTP client attributes (`http.request.method`,
        /// `url.full`, `server.address`, `server.port`,
        /// `http.response.status_code`, `network.protocol.version`,
        /// `error.type`), its parent the `ServiceContext.current` of the
        /// thread or task that made the task's publisher subscribe; the
        /// span's context is injected into each request with the tracer's
        /// propagation (`traceparent` for a W3C propagator). Default nil:
        /// `InstrumentationSystem.tracer`, as it is when the session is
        /// made; while that is the no-op tracer, nothing is traced and a
        /// task costs one check.
        ///
        /// Threading: spans start and end on the session's loop thread.
        ///
        /// ```swift
        /// configuration.tracer = InMemoryTracer()
        /// ```
        public var tracer: (any Tracer)? {
            get { tracerReference.value as? any Tracer }
            set { tracerReference = ObserverReference(newValue) }
        }
        /// ``tracer``, compared by identity.
        private var tracerReference = ObserverReference(nil)
        #endif

        /// The defaults above.
        public init() {}

        /// The defaults, as `URLSessionConfiguration.default` reads.
        ///
        /// ```swift
        /// let session = UVURLSession(loop: loop, configuration: .default)
        /// ```
        public static var `default`: Configuration { Configuration() }

        /// The pool's part.
        package var pool: ConnectionPoolStateMachine.Configuration {
            var pool = ConnectionPoolStateMachine.Configuration()
            pool.maximumConnectionsPerHost = maximumConnectionsPerHost
            pool.connectTimeout = connectTimeout
            pool.idleTimeout = connectionIdleTimeout
            pool.maximumMultiplexedConnectionsPerHost = maximumHTTP2ConnectionsPerHost
            return pool
        }

        /// Each task's part.
        package var timeouts: RequestTimeouts {
            var timeouts = RequestTimeouts()
            timeouts.idleRead = idleReadTimeout
            timeouts.total = totalTimeout
            return timeouts
        }

        /// The response parser's part.
        package var parser: HTTPResponseParser.Configuration {
            var parser = HTTPResponseParser.Configuration()
            parser.maximumHeaderBytes = maximumResponseHeaderBytes
            parser.maximumHeaderCount = maximumResponseHeaderCount
            parser.maximumStatusLineLength = maximumResponseStatusLineLength
            parser.maximumBodyLength = maximumResponseBodyLength
            return parser
        }
    }
}

/// A cookie storage compared by identity, for the configuration's
/// `Equatable`.
private struct CookieStorageReference: Sendable, Equatable {
    let storage: UVHTTPCookieStorage?

    static func == (left: Self, right: Self) -> Bool { left.storage === right.storage }
}

#if Logging
/// A logger compared by label and level, for the configuration's
/// `Equatable`.
private struct SessionLoggerReference: Sendable, Equatable {
    let logger: Logger?

    static func == (left: Self, right: Self) -> Bool {
        left.logger?.label == right.logger?.label && left.logger?.logLevel == right.logger?.logLevel
    }
}
#endif

#if Metrics || Tracing
/// A metrics factory or tracer compared for the configuration's
/// `Equatable`: by identity for a class, by type for a value (neither
/// protocol is `Equatable`).
private struct ObserverReference: @unchecked Sendable, Equatable {
    // @unchecked: holds a MetricsFactory (not Sendable in every
    // swift-metrics version) or a Tracer (Sendable), never mutated.
    let value: Any?

    init(_ value: Any?) { self.value = value }

    static func == (left: Self, right: Self) -> Bool {
        switch (left.value, right.value) {
        case (nil, nil): return true
        case (let l?, let r?):
            if type(of: l) != type(of: r) { return false }
            if type(of: l) is AnyClass { return (l as AnyObject) === (r as AnyObject) }
            return true
        default: return false
        }
    }
}
#endif

extension UVURLSession {
    /// The cookie storage of every session whose configuration keeps the
    /// default ``Configuration/httpCookieStorage``: URLSession's
    /// `HTTPCookieStorage.shared`. Any thread.
    ///
    /// ```swift
    /// let names = UVURLSession.sharedCookieStorage.cookies.map(\.name)
    /// ```
    public static let sharedCookieStorage = UVHTTPCookieStorage()
}
