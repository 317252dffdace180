extension HTTPResponseParser {
    /// Limits that protect the client from a hostile or broken server.
    ///
    /// ```swift
    /// var configuration = HTTPResponseParser.Configuration()
    /// configuration.maximumBodyLength = 10 * 1024 * 1024
    /// var parser = HTTPResponseParser(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// The most bytes a head (status line, field lines and the final
        /// CRLF) may take; also the limit for a chunked trailer section.
        /// Default 64 KiB.
        public var maximumHeaderBytes: Int = 64 * 1024
        /// The most field lines a head (or trailer section) may have.
        /// Default 100.
        public var maximumHeaderCount: Int = 100
        /// The longest status line, without its CRLF. Default 8 KiB.
        public var maximumStatusLineLength: Int = 8 * 1024
        /// The longest chunk-size line (size and extensions), without its
        /// CRLF. Default 4 KiB.
        public var maximumChunkLineLength: Int = 4 * 1024
        /// The largest body accepted, or `nil` for no limit. A larger body
        /// fails with `.dataLengthExceedsMaximum` as soon as it is known
        /// to be too large (at the head for `Content-Length`).
        public var maximumBodyLength: Int? = nil

        /// The defaults above.
        ///
        /// ```swift
        /// var configuration = HTTPResponseParser.Configuration()
        /// configuration.maximumBodyLength = 10 * 1024 * 1024
        /// ```
        public init() {}
    }
}
