import CLibUV
import FoundationEssentials
import Synchronization
import UVCombineCore

extension UVTCP {
    /// A publisher that connects to `host` and `port`, sends `request`, and
    /// publishes the reply: every byte until the server closes the
    /// connection, or the first `limit` bytes.
    ///
    /// - Parameters:
    ///   - host: A name (resolved on the loop) or a numeric IPv4 or IPv6
    ///     address, as for ``connect(host:port:on:options:completion:)``.
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
    /// - Failures are ``UVTCPError``s: host not found, connection failed,
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
            subscriber.receive(subscription: TCPFetchSubscription(publisher: self, downstream: subscriber))
        }
    }
}

/// The loop side of one fetch: connect, write, collect, deliver.
/// Non-generic; the subscriber is reached through stored closures.
@usableFromInline
internal class TCPFetchSubscriptionBase: TCPSubscriptionBase, UVTCPConnectionHandler, Subscription,
    CustomStringConvertible
{
    internal enum Phase {
        /// Waiting for the first demand.
        case idle
        /// Connecting, writing or reading (on the loop thread).
        case running
        /// Delivered, failed or cancelled.
        case terminal
    }

    internal let publisher: UVTCP.FetchPublisher
    internal let phase = Mutex(Phase.idle)
    @usableFromInline internal let deliver: (TCPFetchSubscriptionBase, Result<Data, UVTCPError>) -> Void
    @usableFromInline internal let release: (TCPFetchSubscriptionBase) -> Void

    // MARK: Loop thread only

    internal var attempt: UVTCPConnectAttempt?
    internal var connection: UVTCPConnection?
    internal var reply = Data()

    @usableFromInline
    internal init(publisher: UVTCP.FetchPublisher,
                  deliver: @escaping (TCPFetchSubscriptionBase, Result<Data, UVTCPError>) -> Void,
                  release: @escaping (TCPFetchSubscriptionBase) -> Void) {
        self.publisher = publisher
        self.deliver = deliver
        self.release = release
        super.init(loop: publisher.loop)
    }

    @usableFromInline internal var description: String { "FetchPublisher" }

    // MARK: Subscription

    @usableFromInline
    internal final func request(_ demand: Subscribers.Demand) {
        if demand == .none { violation("Subscription.request(.none): demand must not be zero") }
        let start = phase.withLock { phase -> Bool in
            guard phase == .idle else { return false }
            phase = .running
            return true
        }
        if start { onLoop { self.start() } }
    }

    @usableFromInline
    internal final func cancel() {
        let wasRunning = withGate { () -> Bool? in
            let previous = phase.withLock { phase -> Phase in
                defer { phase = .terminal }
                return phase
            }
            guard previous != .terminal else { return nil }
            release(self)
            return previous == .running
        }
        if wasRunning == true { onLoop { self.stopIO() } }
    }

    // MARK: Steps (loop thread)

    private func start() {
        guard phase.withLock({ $0 == .running }) else { return }
        attempt = UVTCP.connect(host: publisher.host, port: publisher.port, on: loop,
                                options: publisher.options) { [self] result in
            attempt = nil
            switch result {
            case .success(let connection):
                connected(connection)
            case .failure(let error):
                finish(.failure(error))
            }
        }
    }

    private func connected(_ connection: UVTCPConnection) {
        guard phase.withLock({ $0 == .running }) else {
            connection.close()
            return
        }
        self.connection = connection
        connection.handler = self
        if !publisher.request.isEmpty { connection.write(publisher.request) }
        if publisher.limit == 0 {
            finish(.success(reply))
            return
        }
        connection.startReading()
    }

    /// Cancels the connect or closes the socket. Loop thread.
    private func stopIO() {
        attempt?.cancel()
        attempt = nil
        connection?.close()
        connection = nil
    }

    private func finish(_ result: Result<Data, UVTCPError>) {
        stopIO()
        withGate {
            let wasRunning = phase.withLock { phase -> Bool in
                defer { phase = .terminal }
                return phase == .running
            }
            if wasRunning { deliver(self, result) }
        }
        reply = Data()
    }

    // MARK: UVTCPConnectionHandler (loop thread)

    @usableFromInline
    internal final func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        let room = publisher.limit - reply.count
        reply.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(room)))
        if reply.count >= publisher.limit { finish(.success(reply)) }
    }

    @usableFromInline
    internal final func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        if let error {
            finish(.failure(error))
        } else {
            finish(.success(reply))
        }
    }
}

/// The subscription for one concrete subscriber type.
@usableFromInline
internal final class TCPFetchSubscription<Downstream: Subscriber>: TCPFetchSubscriptionBase
    where Downstream.Input == Data, Downstream.Failure == UVTCPError
{
    /// The subscriber, until the result or a cancel; only touched under
    /// the delivery gate.
    @usableFromInline internal var downstream: Downstream?

    @inlinable
    internal init(publisher: UVTCP.FetchPublisher, downstream: Downstream) {
        self.downstream = downstream
        super.init(publisher: publisher, deliver: { base, result in
            let me = unsafeDowncast(base, to: TCPFetchSubscription<Downstream>.self)
            guard let downstream = me.downstream else { return }
            me.downstream = nil
            switch result {
            case .success(let data):
                _ = downstream.receive(data)
                downstream.receive(completion: .finished)
            case .failure(let error):
                downstream.receive(completion: .failure(error))
            }
        }, release: { base in
            let me = unsafeDowncast(base, to: TCPFetchSubscription<Downstream>.self)
            let downstream = me.downstream
            me.downstream = nil
            _ = downstream
        })
    }
}
