import CLibUV
import Synchronization
import UVCombineCore

/// What one TCP fetch does: the parameters of `UVTCP.FetchPublisher`
/// (UVCombineLoopFoundation), which documents them, handed to the
/// subscription that runs here.
///
/// ```swift
/// let parameters = TCPFetchParameters(host: "127.0.0.1", port: 7, request: [1], limit: .max,
///                                     loop: loop, options: UVTCP.Options())
/// ```
@usableFromInline
package struct TCPFetchParameters: Sendable {
    /// The host to connect to.
    package let host: String
    /// The port to connect to.
    package let port: Int
    /// The bytes sent once connected.
    package let request: [UInt8]
    /// The most bytes collected (not negative).
    package let limit: Int
    /// The loop that runs the exchange.
    package let loop: UVLoop
    /// Connect timeout and buffer sizes.
    package let options: UVTCP.Options

    /// The parameters of one fetch; a negative `limit` counts as 0.
    @usableFromInline
    package init(host: String, port: Int, request: [UInt8], limit: Int, loop: UVLoop, options: UVTCP.Options) {
        self.host = host
        self.port = port
        self.request = request
        self.limit = Swift.max(limit, 0)
        self.loop = loop
        self.options = options
    }
}

extension UVTCP {
    /// Gives `subscriber` the subscription of one fetch: the subscription
    /// behind `UVTCP.FetchPublisher` (UVCombineLoopFoundation), whose
    /// documentation gives the rules. The exchange starts at the first
    /// demand. Any thread.
    ///
    /// ```swift
    /// UVTCP.subscribeFetch(parameters, subscriber) // S.Input == Data
    /// ```
    @inlinable
    package static func subscribeFetch<S: Subscriber>(_ parameters: TCPFetchParameters, _ subscriber: S)
        where S.Input: TCPByteChunk, S.Failure == UVTCPError
    {
        subscriber.receive(subscription: TCPFetchSubscription(parameters: parameters, downstream: subscriber))
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

    internal let parameters: TCPFetchParameters
    internal let phase = Mutex(Phase.idle)
    @usableFromInline internal let deliver: (TCPFetchSubscriptionBase, Result<[UInt8], UVTCPError>) -> Void
    @usableFromInline internal let release: (TCPFetchSubscriptionBase) -> Void

    // MARK: Loop thread only

    internal var attempt: UVTCPConnectAttempt?
    internal var connection: UVTCPConnection?
    internal var reply: [UInt8] = []

    @usableFromInline
    internal init(parameters: TCPFetchParameters,
                  deliver: @escaping (TCPFetchSubscriptionBase, Result<[UInt8], UVTCPError>) -> Void,
                  release: @escaping (TCPFetchSubscriptionBase) -> Void) {
        self.parameters = parameters
        self.deliver = deliver
        self.release = release
        super.init(loop: parameters.loop)
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
        attempt = UVTCP.connect(host: parameters.host, port: parameters.port, on: loop,
                                options: parameters.options) { [self] result in
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
        if !parameters.request.isEmpty { connection.write(parameters.request) }
        if parameters.limit == 0 {
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

    private func finish(_ result: Result<[UInt8], UVTCPError>) {
        stopIO()
        withGate {
            let wasRunning = phase.withLock { phase -> Bool in
                defer { phase = .terminal }
                return phase == .running
            }
            if wasRunning { deliver(self, result) }
        }
        reply = []
    }

    // MARK: UVTCPConnectionHandler (loop thread)

    @usableFromInline
    internal final func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        let room = parameters.limit - reply.count
        reply.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(room)))
        if reply.count >= parameters.limit { finish(.success(reply)) }
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
    where Downstream.Input: TCPByteChunk, Downstream.Failure == UVTCPError
{
    /// The subscriber, until the result or a cancel; only touched under
    /// the delivery gate.
    @usableFromInline internal var downstream: Downstream?

    @inlinable
    internal init(parameters: TCPFetchParameters, downstream: Downstream) {
        self.downstream = downstream
        super.init(parameters: parameters, deliver: { base, result in
            let me = unsafeDowncast(base, to: TCPFetchSubscription<Downstream>.self)
            guard let downstream = me.downstream else { return }
            me.downstream = nil
            switch result {
            case .success(let bytes):
                // One copy of the reply into the subscriber's type: the
                // price of collecting it here, where no Foundation type is
                // named.
                _ = downstream.receive(bytes.withUnsafeBytes { Downstream.Input(tcpBytes: $0) })
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
