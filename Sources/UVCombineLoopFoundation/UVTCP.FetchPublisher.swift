import FoundationEssentials
import UVCombineCore
import UVCombineLoop

extension UVTCP {
    /// A publisher that connects to `host` and `port`, sends `request`, and
    /// publishes the reply: every byte until the server closes the
    /// connection, or the first `limit` bytes.
    ///
    /// - Parameters:
    ///   - host: A name (resolved on the loop) or a numeric IPv4 or IPv6
    ///     address, as for ``/UVCombineLoop/UVTCP/connect(host:port:on:options:completion:)``.
    ///   - port: The port, `1...65535`.
    ///   - request: The bytes to send once connected (may be empty).
    ///   - limit: The most bytes to collect; reaching it closes the
    ///     connection and publishes what arrived. Unlimited by default.
    ///   - loop: The loop that runs the exchange and delivers the result.
    ///   - options: Connect timeout, buffer sizes.
    ///
    /// See ``FetchPublisher`` for the semantics. Any thread.
    ///
    /// ```swift
    /// UVTCP.fetch(host: "127.0.0.1", port: 7, send: Array("ping".utf8), limit: 4, on: loop)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print(String(decoding: $0, as: UTF8.self)) })
    ///     .store(in: &cancellables)
    /// loop.run() // Prints: "ping" then "finished"
    /// ```
    public static func fetch(host: String, port: Int, send request: [UInt8], limit: Int = .max, on loop: UVLoop,
                             options: Options = Options()) -> FetchPublisher {
        FetchPublisher(host: host, port: port, request: request, limit: limit, loop: loop, options: options)
    }

    /// Connects, sends a request, and publishes the reply as one `Data`,
    /// then finishes: a one-shot TCP exchange (a whois or echo query, a raw
    /// HTTP/1.0 request, a test of a server's bytes).
    ///
    /// Semantics, as a data task's:
    /// - Nothing happens until the first demand; then it connects, writes
    ///   the request and reads until the server closes the connection (end
    ///   of file) or `limit` bytes arrived (then it closes the connection
    ///   itself). The value is what arrived, at most `limit` bytes.
    /// - Failures are ``/UVCombineLoop/UVTCPError``s: host not found, connection failed,
    ///   timed out, connection lost (a reset before the end).
    /// - `cancel()` cancels the connect or closes the socket (on the loop
    ///   thread: inside the call, so the peer sees the end of file at once)
    ///   and sends nothing more.
    /// - Each subscription is a new exchange, so `retry` works.
    ///
    /// Threading: subscribe, request and cancel from any thread; the value
    /// and the completion arrive on the loop thread. Once `cancel()`
    /// returned, nothing reaches the subscriber.
    ///
    /// ```swift
    /// let reply = UVTCP.fetch(host: "localhost", port: 8080,
    ///                         send: Array("GET / HTTP/1.0\r\n\r\n".utf8), on: loop)
    /// ```
    public struct FetchPublisher: Publisher {
        /// The reply.
        public typealias Output = Data
        /// Why the exchange failed.
        public typealias Failure = UVTCPError

        /// The host to connect to.
        public let host: String
        /// The port to connect to.
        public let port: Int
        /// The bytes sent once connected.
        public let request: [UInt8]
        /// The most bytes collected.
        public let limit: Int
        /// The loop that runs the exchange.
        public let loop: UVLoop
        /// Connect timeout and buffer sizes.
        public let options: Options

        /// A fetch publisher; see ``UVTCP/fetch(host:port:send:limit:on:options:)``.
        public init(host: String, port: Int, request: [UInt8], limit: Int, loop: UVLoop, options: Options) {
            self.host = host
            self.port = port
            self.request = request
            self.limit = Swift.max(limit, 0)
            self.loop = loop
            self.options = options
        }

        /// Attaches `subscriber`; the exchange starts at its first demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == UVTCPError {
            UVTCP.subscribeFetch(TCPFetchParameters(host: host, port: port, request: request, limit: limit,
                                                    loop: loop, options: options), subscriber)
        }
    }
}
