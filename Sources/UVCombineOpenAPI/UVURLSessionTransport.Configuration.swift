#if OpenAPI
import UVCombineHTTP

extension UVURLSessionTransport {
    /// The session a ``UVURLSessionTransport`` sends through, and when it
    /// collects a request body rather than streaming it.
    ///
    /// Deadlines, limits, TLS, proxies, redirects and decompression are
    /// the session's own (``UVURLSession/Configuration``).
    ///
    /// Threading: a value; `Sendable`.
    ///
    /// ```swift
    /// var configuration = UVURLSessionTransport.Configuration(session: session)
    /// configuration.bufferedRequestBodyLimit = 1 << 20
    /// let client = Client(serverURL: serverURL, transport: UVURLSessionTransport(configuration: configuration))
    /// ```
    public struct Configuration: Sendable {
        /// The session requests go through; its loop runs them.
        public var session: UVURLSession

        /// The longest request body (in bytes) that is collected and sent
        /// in one write, when its length is known and it may be iterated
        /// more than once; longer or single-pass bodies are streamed.
        /// Default 64 KiB; 0 streams every non-empty body.
        ///
        /// ```swift
        /// configuration.bufferedRequestBodyLimit = 0
        /// ```
        public var bufferedRequestBodyLimit: Int

        /// A configuration for `session`, collecting request bodies up to
        /// `bufferedRequestBodyLimit` bytes.
        ///
        /// ```swift
        /// let configuration = UVURLSessionTransport.Configuration(session: UVURLSession(loop: loop))
        /// ```
        public init(session: UVURLSession, bufferedRequestBodyLimit: Int = 64 * 1024) {
            self.session = session
            self.bufferedRequestBodyLimit = bufferedRequestBodyLimit
        }
    }
}
#endif
