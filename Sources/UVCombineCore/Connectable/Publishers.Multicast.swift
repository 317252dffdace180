import Synchronization

extension Publisher {
    /// Applies a closure to create a subject that delivers elements to
    /// subscribers.
    ///
    /// Use a multicast publisher when several subscribers should share one
    /// upstream subscription, for example one network request. The result is
    /// a ``ConnectablePublisher``: nothing is requested from upstream until
    /// `connect()`. The closure runs once, when the first subscriber attaches
    /// or at the first `connect()`, whichever comes first.
    ///
    /// ```swift
    /// let pub = [1, 2, 3].publisher
    ///     .map { $0 * 10 }
    ///     .multicast { PassthroughSubject<Int, Never>() }
    /// let c1 = pub.sink { print("Stream 1 received: \($0)") }
    /// let c2 = pub.sink { print("Stream 2 received: \($0)") }
    /// let connection = pub.connect()
    /// // Prints: "Stream 1 received: 10", "Stream 2 received: 10", ... up to 30
    /// ```
    @inlinable
    public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
        where Failure == S.Failure, Output == S.Output
    {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Provides a subject to deliver elements to multiple subscribers.
    ///
    /// Like ``multicast(_:)`` but with a subject you create, so you can also
    /// send to it yourself.
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, Never>()
    /// let pub = [1, 2].publisher.multicast(subject: subject)
    /// let c = pub.sink { print($0) }
    /// let connection = pub.connect() // Prints: "1", "2"
    /// ```
    @inlinable
    public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
        where Failure == S.Failure, Output == S.Output
    {
        Publishers.Multicast(upstream: self, createSubject: { subject })
    }
}

extension Publishers {
    /// A publisher that uses a subject to deliver elements to multiple
    /// subscribers.
    ///
    /// Subscribers attach to the subject (each sees a subscription named
    /// `Multicast`). `connect()` subscribes the subject to the upstream; the
    /// subject requests `.unlimited` and every value goes straight into
    /// `subject.send(_:)`, so subscribers without demand miss it (with a
    /// ``PassthroughSubject``). Each `connect()` makes a new, independent
    /// connection, as in Combine: connecting twice subscribes to the upstream
    /// twice. Cancelling a connection cancels its upstream subscription. The
    /// connection references the subject weakly (as Combine's does): a
    /// subject nobody else keeps is released, and releasing it cancels the
    /// connection.
    ///
    /// Threading: `receive(subscriber:)` and `connect()` may be called from
    /// any thread; values reach subscribers on the thread the upstream
    /// delivers on. `createSubject` runs once, under the multicast's lock: it
    /// must not use this multicast.
    ///
    /// ```swift
    /// let multicast = Publishers.Multicast(upstream: subject) { PassthroughSubject<Int, Never>() }
    /// let connection = multicast.connect()
    /// ```
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
        where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output
    {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure to create the subject, run once, the first time a
        /// subscriber attaches or the multicast connects.
        public let createSubject: () -> SubjectType

        /// The subject, once created.
        @usableFromInline internal let subject: Locked<SubjectType?>

        /// Creates a multicast publisher whose subject `createSubject` makes.
        ///
        /// ```swift
        /// let multicast = Publishers.Multicast(upstream: [1].publisher) { PassthroughSubject<Int, Never>() }
        /// ```
        @inlinable
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
            subject = Locked(nil)
        }

        /// The subject, created on first use.
        @inlinable
        internal var lazySubject: SubjectType {
            subject.withLock { s -> SubjectType in
                if let existing = s { return existing }
                let created = createSubject()
                s = created
                return created
            }
        }

        /// Attaches `subscriber` to the subject; nothing flows before
        /// `connect()`.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            lazySubject.receive(subscriber: Inner(downstream: subscriber))
        }

        /// Subscribes the subject to the upstream and returns the connection.
        ///
        /// Keep the returned ``AnyCancellable``: cancelling or releasing it
        /// cancels the upstream subscription. Every call makes a new
        /// connection.
        ///
        /// ```swift
        /// let connection = multicast.connect()
        /// ```
        @inlinable
        public func connect() -> any Cancellable {
            let connection = Connection(subject: lazySubject)
            upstream.receive(subscriber: connection)
            return AnyCancellable(connection)
        }
    }
}

// Every piece of mutable state is behind the mutex; `createSubject` runs
// once, under it.
extension Publishers.Multicast: @unchecked Sendable where Upstream: Sendable, SubjectType: Sendable {}

extension Publishers.Multicast {
    /// The subject's link to the upstream: the upstream sees it as its
    /// subscriber, the subject as its upstream subscription (both named
    /// `Subject`, as in Combine). Values go straight into the subject: the
    /// per-value path is one atomic load and one weak load, no lock.
    @usableFromInline
    internal final class Connection: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        /// Weak, as in Combine: the subject keeps this connection among its
        /// upstreams, so a strong reference would be a cycle. Immutable, so
        /// reading it needs no lock.
        @usableFromInline weak let subject: SubjectType?
        /// The upstream subscription.
        @usableFromInline let state = Locked(SubscriptionStatus.awaitingSubscription)
        /// Mirrors `state == .subscribed`, written under the lock, read
        /// without it on the per-value path.
        @usableFromInline let delivering = Atomic<Bool>(false)

        @inlinable
        init(subject: SubjectType) {
            self.subject = subject
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s else { return false }
                s = .subscribed(subscription)
                delivering.store(true, ordering: .releasing)
                return true
            }
            guard accepted, let subject else {
                if accepted { cancel() } else { subscription.cancel() }
                return
            }
            subject.send(subscription: self)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            guard delivering.load(ordering: .acquiring), let subject else { return .none }
            subject.send(input)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let wasSubscribed = state.withLock { s -> Bool in
                guard s.isSubscribed else { return false }
                s = .terminal
                delivering.store(false, ordering: .releasing)
                return true
            }
            if wasSubscribed { subject?.send(completion: completion) }
        }

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            state.withLock { $0.subscription }?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let upstream = state.withLock { s -> (any Subscription)? in
                let upstream = s.terminate()
                delivering.store(false, ordering: .releasing)
                return upstream
            }
            upstream?.cancel()
        }

        @usableFromInline var description: String { "Subject" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// One subscriber's link to the subject: the subject's conduit on one
    /// side, the downstream (which sees a subscription named `Multicast`) on
    /// the other.
    ///
    /// As Combine's: `request(.none)` is passed on to the subject (whose
    /// live subscriptions trap on it, as Combine's do); values, requests and
    /// cancels before the subscription or after the end do nothing; the
    /// downstream is released on completion and on cancel, so a subscriber
    /// that keeps its subscription keeps nothing else alive.
    ///
    /// The per-value path takes no lock and no reference on the downstream:
    /// `gate` counts the deliveries in progress and carries the `closed`
    /// bit; whoever brings it to "closed, none in progress" (the canceller,
    /// or the last delivery to return) releases the downstream, so a cancel
    /// from inside `receive(_:)` or from another thread never frees it under
    /// a running call. Two uncontended atomic operations per value.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        @usableFromInline typealias Input = Output

        @usableFromInline static var closed: Int { 1 << 62 }
        @usableFromInline static var released: Int { 1 << 61 }
        /// Set until the subscription arrives: values before it are ignored.
        @usableFromInline static var notYetOpen: Int { 1 << 60 }

        /// The downstream, empty once released. Unchecked exclusivity:
        /// written only by the one thread that wins the release, when no
        /// delivery is running (see `gate`).
        @exclusivity(unchecked) @usableFromInline var slot: DownstreamSlot
        /// Deliveries in progress (low bits) | `closed` | `released` |
        /// `notYetOpen`.
        @usableFromInline let gate = Atomic<Int>(1 << 60)
        /// The subject's subscription; `.pendingTerminal` is not used.
        @usableFromInline let state = Locked(SubscriptionStatus.awaitingSubscription)

        @inlinable
        init(downstream: Downstream) {
            slot = DownstreamSlot(downstream)
        }

        deinit {
            slot.take()?.release()
        }

        /// Runs `body` with the downstream, not retained; only while counted
        /// in `gate`.
        @inlinable @inline(__always)
        func withDownstream<R>(_ body: (Downstream) -> R) -> R? {
            slot.withDownstream(as: Downstream.self, body)
        }

        /// Enters as a delivery unless closed; `closing` also closes.
        @inlinable @inline(__always)
        func enter(closing: Bool) -> Bool {
            if !closing {
                if gate.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue & (Self.closed | Self.notYetOpen) == 0 {
                    return true
                }
                leave()
                return false
            }
            var current = gate.load(ordering: .relaxed)
            while current & Self.closed == 0 {
                let (done, now) = gate.compareExchange(expected: current, desired: (current | Self.closed) + 1,
                                                       ordering: .sequentiallyConsistent)
                if done { return true }
                current = now
            }
            return false
        }

        /// Leaves a delivery; the last one out after closing releases.
        @inlinable @inline(__always)
        func leave() {
            if gate.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == Self.closed {
                releaseIfIdle()
            }
        }

        /// Releases the downstream if closed with no delivery running, once.
        @usableFromInline
        func releaseIfIdle() {
            guard gate.compareExchange(expected: Self.closed, desired: Self.closed | Self.released,
                                       ordering: .sequentiallyConsistent).exchanged else { return }
            slot.take()?.release()
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s else { return false }
                s = .subscribed(subscription)
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            gate.bitwiseAnd(~Self.notYetOpen, ordering: .sequentiallyConsistent)
            guard enter(closing: false) else { return }
            withDownstream { $0.receive(subscription: self) }
            leave()
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            guard enter(closing: false) else { return .none }
            let more = withDownstream { $0.receive(input) } ?? .none
            leave()
            if more.rawValue > 0 {
                // As in Combine: more demand goes to the subject as a request.
                state.withLock { $0.subscription }?.request(more)
            }
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let wasSubscribed = state.withLock { s -> Bool in
                guard s.isSubscribed else { return false }
                s = .terminal
                return true
            }
            guard wasSubscribed, enter(closing: true) else { return }
            withDownstream { $0.receive(completion: completion) }
            leave()
        }

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            state.withLock { $0.subscription }?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let subscription = state.withLock { s -> (any Subscription)? in
                guard s.isSubscribed else { return nil }
                return s.terminate()
            }
            guard let subscription else { return }
            if enter(closing: true) { leave() }
            subscription.cancel()
        }

        @usableFromInline var description: String { "Multicast" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
