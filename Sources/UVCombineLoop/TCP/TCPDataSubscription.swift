import CLibUV
import Synchronization
import UVCombineCore

extension UVTCPConnection {
    /// Makes `subscriber` this connection's reader: the subscription behind
    /// `UVTCPConnection.DataPublisher` (UVCombineLoopFoundation), whose
    /// documentation gives the rules. Demand is read demand; each read
    /// becomes one `S.Input`. Any thread.
    ///
    /// ```swift
    /// connection.subscribeReader(subscriber) // S.Input == Data
    /// ```
    @inlinable
    package func subscribeReader<S: Subscriber>(_ subscriber: S) where S.Input: TCPByteChunk, S.Failure == UVTCPError {
        let subscription = TCPDataSubscription(connection: self, downstream: subscriber)
        subscriber.receive(subscription: subscription)
        subscription.attach()
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
    where Downstream.Input: TCPByteChunk, Downstream.Failure == UVTCPError
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
            return downstream.receive(Downstream.Input(tcpBytes: bytes))
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
