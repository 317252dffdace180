import CLibUV
import FoundationEssentials
import Synchronization
import UVCombineCore

extension UVTCPConnection {
    /// A publisher of the bytes this connection receives, as `Data` chunks,
    /// whose demand drives the socket's reading.
    ///
    /// ```swift
    /// connection.dataPublisher()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
    ///     .store(in: &cancellables)
    /// ```
    public func dataPublisher() -> DataPublisher {
        DataPublisher(connection: self)
    }

    /// Publishes the bytes a ``UVTCPConnection`` receives as `Data` chunks,
    /// then finishes at the peer's end of file or fails with the error that
    /// broke the connection.
    ///
    /// Demand is the connection's read demand: each chunk is one read and
    /// consumes one unit; at zero demand the socket is not read, so the
    /// kernel throttles the peer (backpressure). A chunk is at most the
    /// connection's read buffer size.
    ///
    /// Cost: each chunk is copied into a new `Data`, one allocation per read
    /// for chunks over 14 bytes. Protocol code that parses bytes in place
    /// should set a ``UVTCPConnectionHandler`` instead, which reads without
    /// allocating.
    ///
    /// One reader at a time: the subscription becomes the connection's
    /// ``UVTCPConnection/handler``. A subscriber arriving while the
    /// connection has a handler fails with
    /// ``UVTCPError/Kind/alreadyReading``; after the stream ended it
    /// finishes at once; on a closed connection it fails with
    /// ``UVTCPError/Kind/closed``. Cancelling stops reading and detaches the
    /// subscription; the connection stays open (close it yourself). Closing
    /// the connection (or the loop) while subscribed fails the subscription
    /// with ``UVTCPError/Kind/closed``.
    ///
    /// Threading: subscribe, request and cancel from any thread; values and
    /// the completion arrive on the loop thread. Once `cancel()` returned, no
    /// value reaches the subscriber (a cancel from another thread waits for
    /// a chunk being delivered).
    ///
    /// ```swift
    /// let subscriber = TrackingSubscriber<Data, UVTCPError>(initialDemand: .max(1))
    /// connection.dataPublisher().subscribe(subscriber) // reads one chunk
    /// ```
    public struct DataPublisher: Publisher {
        /// Received chunks.
        public typealias Output = Data
        /// The error that broke the connection, or why it cannot be read.
        public typealias Failure = UVTCPError

        /// The connection whose bytes are published.
        public let connection: UVTCPConnection

        /// A publisher of `connection`'s received bytes.
        public init(connection: UVTCPConnection) {
            self.connection = connection
        }

        /// Attaches `subscriber` as the connection's reader (on the loop
        /// thread).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == UVTCPError {
            let subscription = TCPDataSubscription(connection: connection, downstream: subscriber)
            subscriber.receive(subscription: subscription)
            subscription.attach()
        }
    }
}

/// The loop side of a data publisher's subscription: the connection's
/// handler while attached. Non-generic; the subscriber is reached through
/// the stored closures the generic subclass forms where it is specialised.
@usableFromInline
internal class TCPDataSubscriptionBase: TCPSubscriptionBase, UVTCPConnectionHandler, Subscription,
    CustomStringConvertible
{
    internal enum Phase {
        /// Created; attaching on the loop thread.
        case attaching
        /// The connection's handler.
        case attached
        /// Finished, failed or cancelled.
        case terminal
    }

    internal struct State {
        internal var phase: Phase = .attaching
        /// Demand requested before the subscription was attached.
        internal var pendingDemand: Subscribers.Demand = .none
    }

    @usableFromInline internal let connection: UVTCPConnection
    internal let state = Mutex(State())
    /// Delivers a chunk; returns the subscriber's extra demand, or `nil`
    /// when there is no subscriber any more.
    @usableFromInline internal let deliver: (TCPDataSubscriptionBase, UnsafeRawBufferPointer) -> Subscribers.Demand?
    /// Delivers the completion and lets go of the subscriber.
    @usableFromInline internal let complete: (TCPDataSubscriptionBase, Subscribers.Completion<UVTCPError>) -> Void
    /// Lets go of the subscriber without a completion.
    @usableFromInline internal let release: (TCPDataSubscriptionBase) -> Void

    @usableFromInline
    internal init(connection: UVTCPConnection,
                  deliver: @escaping (TCPDataSubscriptionBase, UnsafeRawBufferPointer) -> Subscribers.Demand?,
                  complete: @escaping (TCPDataSubscriptionBase, Subscribers.Completion<UVTCPError>) -> Void,
                  release: @escaping (TCPDataSubscriptionBase) -> Void) {
        self.connection = connection
        self.deliver = deliver
        self.complete = complete
        self.release = release
        super.init(loop: connection.loop)
    }

    @usableFromInline internal var description: String { "DataPublisher" }

    /// Becomes the connection's reader, on the loop thread.
    @usableFromInline
    internal final func attach() {
        onLoop { self.attachNow() }
    }

    private func attachNow() {
        guard state.withLock({ $0.phase == .attaching }) else { return }
        let failure: Subscribers.Completion<UVTCPError>?
        switch connection.state {
        case .closed:
            failure = .failure(UVTCPError(.closed, code: UV_ENOTCONN.rawValue))
        case .ended:
            failure = .finished
        case .open:
            if connection.endReported {
                failure = .finished
            } else if connection.storedHandler != nil {
                failure = .failure(UVTCPError(.alreadyReading, code: UV_EALREADY.rawValue))
            } else {
                failure = nil
            }
        }
        if let failure {
            finish(failure)
            return
        }
        let demand = state.withLock { state -> Subscribers.Demand in
            state.phase = .attached
            defer { state.pendingDemand = .none }
            return state.pendingDemand
        }
        connection.storedHandler = self
        if demand != .none { connection.requestReads(demand) }
    }

    // MARK: Subscription

    @usableFromInline
    internal final func request(_ demand: Subscribers.Demand) {
        if demand == .none { violation("Subscription.request(.none): demand must not be zero") }
        if loop.isInLoop {
            requestNow(demand)
        } else {
            loop.schedule { self.requestNow(demand) }
        }
    }

    private func requestNow(_ demand: Subscribers.Demand) {
        let attached = state.withLock { state -> Bool in
            switch state.phase {
            case .attaching:
                state.pendingDemand += demand
                return false
            case .attached:
                return true
            case .terminal:
                return false
            }
        }
        if attached { connection.requestReads(demand) }
    }

    @usableFromInline
    internal final func cancel() {
        let wasActive = withGate { () -> Bool in
            let previous = state.withLock { state -> Phase in
                defer { state.phase = .terminal }
                return state.phase
            }
            guard previous != .terminal else { return false }
            release(self)
            return true
        }
        guard wasActive else { return }
        onLoop { self.detach() }
    }

    /// Stops reading and gives the connection back. Loop thread.
    private func detach() {
        guard connection.storedHandler === self else { return }
        connection.storedHandler = nil
        connection.stopReading()
    }

    private func finish(_ completion: Subscribers.Completion<UVTCPError>) {
        withGate {
            let wasActive = state.withLock { state -> Bool in
                defer { state.phase = .terminal }
                return state.phase != .terminal
            }
            if wasActive { complete(self, completion) }
        }
    }

    /// The connection was closed while this was its reader. Loop thread.
    internal final func connectionWasClosed() {
        finish(.failure(UVTCPError(.closed, code: UV_ENOTCONN.rawValue)))
    }

    // MARK: UVTCPConnectionHandler (loop thread)

    @usableFromInline
    internal final func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        let more = withGate { () -> Subscribers.Demand? in
            guard state.withLock({ $0.phase == .attached }) else { return nil }
            return deliver(self, bytes)
        }
        if let more, more != .none, state.withLock({ $0.phase == .attached }) {
            connection.requestReads(more)
        }
    }

    @usableFromInline
    internal final func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        finish(error.map { .failure($0) } ?? .finished)
        if connection.storedHandler === self { connection.storedHandler = nil }
    }
}

/// The subscription for one concrete subscriber type.
@usableFromInline
internal final class TCPDataSubscription<Downstream: Subscriber>: TCPDataSubscriptionBase
    where Downstream.Input == Data, Downstream.Failure == UVTCPError
{
    /// The subscriber, until the completion or a cancel; only touched
    /// under the delivery gate.
    @usableFromInline internal var downstream: Downstream?

    @inlinable
    internal init(connection: UVTCPConnection, downstream: Downstream) {
        self.downstream = downstream
        super.init(connection: connection, deliver: { base, bytes in
            let me = unsafeDowncast(base, to: TCPDataSubscription<Downstream>.self)
            guard let downstream = me.downstream else { return nil }
            return downstream.receive(Data(bytes: bytes.baseAddress!, count: bytes.count))
        }, complete: { base, completion in
            let me = unsafeDowncast(base, to: TCPDataSubscription<Downstream>.self)
            guard let downstream = me.downstream else { return }
            me.downstream = nil
            downstream.receive(completion: completion)
        }, release: { base in
            let me = unsafeDowncast(base, to: TCPDataSubscription<Downstream>.self)
            let downstream = me.downstream
            me.downstream = nil
            _ = downstream
        })
    }
}
