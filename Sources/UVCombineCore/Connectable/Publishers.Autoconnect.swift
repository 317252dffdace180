import Synchronization

extension ConnectablePublisher {
    /// Automates the process of connecting or disconnecting from this
    /// connectable publisher.
    ///
    /// The first subscriber makes it connect (after it is attached, so it
    /// misses nothing). When the last subscriber cancels, the connection is
    /// cancelled; a later subscriber connects again. A subscriber that
    /// receives a completion still counts until it cancels, so after the
    /// upstream completes, new subscribers do not reconnect.
    ///
    /// ```swift
    /// let c = subject.makeConnectable()
    ///     .autoconnect()
    ///     .sink { print("received \($0)") }
    /// subject.send(1) // Prints: "received 1"
    /// ```
    @inlinable
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}

extension Publishers {
    /// A publisher that automatically connects to an upstream connectable
    /// publisher.
    ///
    /// A class (as in Combine): its subscribers share one connection,
    /// counted by the number of subscribers that have not cancelled. Each
    /// subscriber receives the upstream's own subscription (wrapped, so that
    /// cancelling it also releases its share of the connection), with the
    /// upstream's description.
    ///
    /// Threading: `receive(subscriber:)` may be called from any thread;
    /// subscribers from other threads while the first one connects share
    /// its connection. One arriving re-entrantly on the connecting thread
    /// behaves as in Combine: it connects too (the upstream sees two
    /// `connect()` calls) and the connection made last is kept. Cancellation
    /// may come from any thread.
    ///
    /// ```swift
    /// let auto = Publishers.Autoconnect(upstream: subject.makeConnectable())
    /// let c = auto.sink { print($0) }
    /// ```
    public class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// Whether the upstream is connected, and how many subscribers share
        /// the connection.
        /// `connecting` is ours: subscribers arriving from other threads
        /// while the first one connects are counted and share its
        /// connection, and if all of them cancel meanwhile the connection is
        /// cancelled when it arrives. A subscriber arriving on the
        /// connecting thread itself (re-entrantly, e.g. from
        /// `receive(subscription:)`) behaves as in Combine, which has no such
        /// state: it connects too, and the connection made last is kept with
        /// a count of one.
        @usableFromInline
        internal typealias State = ConnectionRefCount<any Cancellable>

        /// The connectable publisher this one connects on first subscription.
        ///
        /// ```swift
        /// let upstream = subject.makeConnectable().autoconnect().upstream
        /// ```
        public final let upstream: Upstream

        @usableFromInline internal final let state = Locked(State.disconnected)

        /// Creates a publisher that connects `upstream` on its first
        /// subscriber.
        ///
        /// ```swift
        /// let auto = Publishers.Autoconnect(upstream: subject.makeConnectable())
        /// ```
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        deinit {
            // Nobody can subscribe any more; a connection that is not an
            // AnyCancellable would otherwise stay up.
            if case .connected(_, let connection) = state.withLock({ $0 }) {
                connection.cancel()
            }
        }

        /// Attaches `subscriber` to the upstream, then connects if it is the
        /// first.
        @inlinable
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let me = currentThreadIdentity()
            let role = state.withLock { $0.join(thread: me) }
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            upstream.receive(subscriber: Inner(parent: self, downstream: subscriber))
            guard role != .join else { return }
            let connection = upstream.connect()
            let outcome = state.withLock {
                $0.didConnect(connection, reentrant: role == .reconnect)
            }
            // Outside the lock: an abandoned connection is cancelled; a
            // replaced one is dropped (an AnyCancellable cancels itself).
            if case .abandoned(let abandoned) = outcome { abandoned.cancel() }
        }

        /// A subscriber cancelled: the last one out cancels the connection.
        @usableFromInline
        internal final func subscriberCancelled() {
            let connection = state.withLock { $0.leave() }
            connection?.cancel()
        }
    }
}

// Every piece of mutable state is behind the mutex.
extension Publishers.Autoconnect: @unchecked Sendable where Upstream: Sendable {}

extension Publishers.Autoconnect {
    /// Passes everything through; wraps the upstream's subscription so that
    /// cancelling it counts down the connection.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        @usableFromInline typealias Input = Output

        @usableFromInline let parent: Publishers.Autoconnect<Upstream>
        @usableFromInline let downstream: Downstream
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
            self.parent = parent
            self.downstream = downstream
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: RefcountedSubscription(upstream: subscription, parent: parent))
        }

        @inlinable
        func receive(_ input: Output) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline var description: String { "Autoconnect" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["parent": parent, "downstream": downstream])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// The upstream's subscription, plus one share of the connection that
    /// its first `cancel()` gives back. Describes itself, and identifies
    /// itself, as the upstream subscription.
    @usableFromInline
    internal final class RefcountedSubscription: Subscription, CustomStringConvertible,
        CustomPlaygroundDisplayConvertible
    {
        @usableFromInline let upstream: any Subscription
        @usableFromInline let parent: Publishers.Autoconnect<Upstream>
        @usableFromInline let cancelled = Atomic<Bool>(false)

        @inlinable
        init(upstream: any Subscription, parent: Publishers.Autoconnect<Upstream>) {
            self.upstream = upstream
            self.parent = parent
        }

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            upstream.request(demand)
        }

        @usableFromInline
        func cancel() {
            if !cancelled.exchange(true, ordering: .acquiringAndReleasing) {
                parent.subscriberCancelled()
            }
            upstream.cancel()
        }

        @usableFromInline var combineIdentifier: CombineIdentifier { upstream.combineIdentifier }
        @usableFromInline var description: String { String(describing: upstream) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
