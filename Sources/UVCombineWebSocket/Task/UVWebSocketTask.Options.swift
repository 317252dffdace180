extension UVWebSocketTask {
    /// How a task frames, compresses and times its connection.
    ///
    /// ```swift
    /// var options = UVWebSocketTask.Options()
    /// options.maximumFrameSize = 16 * 1024
    /// options.compression = nil // offer no permessage-deflate
    /// let task = session.webSocketTask(with: url, options: options)
    /// ```
    ///
    /// Threading: a value type; `Sendable`.
    public struct Options: Sendable, Hashable {
        /// Outgoing messages longer than this are sent as fragments of
        /// this size (default 64 KiB).
        public var maximumFrameSize = 64 * 1024
        /// The permessage-deflate offer (default: offered with context
        /// takeover both ways), or nil to send none.
        public var compression: PerMessageDeflate.Offer? = PerMessageDeflate.Offer()
        /// How long connecting and the opening handshake may take (default 30 s).
        public var openingHandshakeTimeout: Duration = .seconds(30)
        /// How long the task waits for the server's close frame (and the
        /// end of the connection) after sending its own (default 10 s).
        public var closeTimeout: Duration = .seconds(10)

        /// The defaults.
        ///
        /// ```swift
        /// let options = UVWebSocketTask.Options()
        /// ```
        public init() {}
    }
}
