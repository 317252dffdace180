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
        @usableFromInline internal let subject: Mutex<UncheckedSendable<SubjectType?>>

        /// Creates a multicast publisher whose subject `createSubject` makes.
        ///
        /// ```swift
        /// let multicast = Publishers.Multicast(upstream: [1].publisher) { PassthroughSubject<Int, Never>() }
        /// ```
        @inlinable
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
            subject = Mutex(UncheckedSendable(nil))
        }

        /// The subject, created on first use.
        @inlinable
        internal var lazySubject: SubjectType {
            subject.withLock { s -> UncheckedSendable<SubjectType> in
                if let existing = s.value { return UncheckedSendable(existing) }
                let created = createSubject()
                s.value = created
                return UncheckedSendable(created)
            }.value
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
        @usableFromInline let state = Mutex(UncheckedSendable(SubscriptionStatus.awaitingSubscription))
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
                guard case .awaitingSubscription = s.value else { return false }
                s.value = .subscribed(subscription)
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
                guard s.value.isSubscribed else { return false }
                s.value = .terminal
                delivering.store(false, ordering: .releasing)
                return true
            }
            if wasSubscribed { subject?.send(completion: completion) }
        }

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            state.withLock { UncheckedSendable($0.value.subscription) }.value?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                let upstream = s.value.subscription
                s.value = .terminal
                delivering.store(false, ordering: .releasing)
                return UncheckedSendable(upstream)
            }
            upstream.value?.cancel()
        }

        @usableFromInline var description: String { "Subject" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// One subscriber's link to the subject: the subject's conduit on one
    /// side, the downstream (which sees a subscription named `Multicast`) on
    /// the other.
    ///
    /// Values come only from the subject, which serialises them and stops
    /// after cancel; the per-value check is one atomic load, no lock.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        @usableFromInline typealias Input = Output

        @usableFromInline let downstream: Downstream
        /// The subject's subscription; `.pendingTerminal` is not used.
        @usableFromInline let state = Mutex(UncheckedSendable(SubscriptionStatus.awaitingSubscription))
        /// Mirrors `state == .subscribed`, written under the lock, read
        /// without it on the per-value path.
        @usableFromInline let delivering = Atomic<Bool>(false)

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s.value else { return false }
                s.value = .subscribed(subscription)
                delivering.store(true, ordering: .releasing)
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            guard delivering.load(ordering: .acquiring) else { return .none }
            let more = downstream.receive(input)
            if more.rawValue > 0 {
                // As in Combine: more demand goes to the subject as a request.
                state.withLock { UncheckedSendable($0.value.subscription) }.value?.request(more)
            }
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let wasSubscribed = state.withLock { s -> Bool in
                guard s.value.isSubscribed else { return false }
                s.value = .terminal
                delivering.store(false, ordering: .releasing)
                return true
            }
            if wasSubscribed { downstream.receive(completion: completion) }
        }

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            state.withLock { UncheckedSendable($0.value.subscription) }.value?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let subscription = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                let subscription = s.value.subscription
                s.value = .terminal
                delivering.store(false, ordering: .releasing)
                return UncheckedSendable(subscription)
            }
            subscription.value?.cancel()
        }

        @usableFromInline var description: String { "Multicast" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
