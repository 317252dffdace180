import Synchronization

extension Publisher {
    /// Shares the output of an upstream publisher with multiple subscribers.
    ///
    /// `share()` is `multicast { PassthroughSubject() }.autoconnect()` in one
    /// class: the first subscriber subscribes to the upstream (which gets
    /// `.unlimited`); later subscribers join that one subscription and see
    /// only later values; a subscriber without demand misses values. After
    /// the upstream completes, a new subscriber receives only the completion
    /// and the upstream is not subscribed again. When every subscriber has
    /// cancelled, the upstream subscription is cancelled, and the next
    /// subscriber subscribes anew.
    ///
    /// ```swift
    /// let shared = subject.map { $0 * 2 }.share()
    /// let c1 = shared.sink { print("1: \($0)") }
    /// let c2 = shared.sink { print("2: \($0)") }
    /// subject.send(1) // Prints: "1: 2", "2: 2"; the map runs once
    /// ```
    @inlinable
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

extension Publishers {
    /// A publisher that shares the output of an upstream publisher with
    /// multiple subscribers.
    ///
    /// A class, unlike most publishers: copies of a reference share one
    /// upstream subscription. Equal only to itself. Subscribers see a
    /// subscription named `Multicast`, as in Combine.
    ///
    /// Behaves as Combine's `multicast { PassthroughSubject() }.autoconnect()`
    /// but is one object: it fans values out itself (the subject's engine)
    /// and counts its subscribers itself (the autoconnect's reference
    /// count), so a value goes from the upstream to each subscriber through
    /// one lock and no per-subscriber atomics, and a subscription costs a
    /// fraction of the three-object chain.
    ///
    /// Threading: `receive(subscriber:)` may be called from any thread;
    /// values arrive on the thread the upstream delivers on; fanning a value
    /// out allocates nothing.
    ///
    /// ```swift
    /// let shared = Publishers.Share(upstream: subject)
    /// let c = shared.sink { print($0) }
    /// ```
    public final class Share<Upstream: Publisher>: Publisher, Equatable, ConduitParent {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The subscribers, connected to the upstream while any is there;
        /// `.finished` once the upstream completed (subscribers then get the
        /// completion from the engine, as from Combine's completed subject).
        @usableFromInline
        // The connection is kept as `AnyObject`, not as the generic
        // `Connection`: a state whose type depends on no generic parameter
        // needs no metadata lookup at run time (some 400 instructions each)
        // in the unspecialised code that touches it (the deinitialiser),
        // and copying it is a retain. Specialised code gets the type back
        // with `unsafeDowncast`.
        internal typealias State = ConnectionRefCount<AnyObject>

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The subscribers and what the upstream sent them.
        @usableFromInline internal let engine = SubjectEngine<Output, Failure>(latest: nil)
        @usableFromInline internal let state = Locked(State.disconnected)

        /// Creates a publisher that shares `upstream`.
        ///
        /// ```swift
        /// let shared = Publishers.Share(upstream: [1, 2].publisher)
        /// ```
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber`, connecting to the upstream if it is the
        /// first.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let role = join()
            // Attached before connecting, as autoconnect does: a synchronous
            // upstream's values reach the first subscriber.
            engine.subscribe(subscriber, parent: self, name: "Multicast", replaysLatest: false,
                             namesSubscriptionAfterCompletion: true)
            if role != .join { connect(reentrant: role == .reconnect) }
        }

        /// Counts a new subscriber in.
        @usableFromInline
        internal func join() -> State.Role {
            let me = currentThreadIdentity()
            return state.withLock { $0.join(thread: me) }
        }

        /// Subscribes a new connection to the upstream and records it.
        /// Inlinable so the upstream is subscribed from the caller's
        /// specialisation: the connection's value path (the upstream's
        /// subscription calling it, it calling the engine) is then
        /// specialised too, not generic code that looks up metadata per
        /// value.
        @inlinable
        internal func connect(reentrant: Bool) {
            let connection = Connection(share: self)
            connection.connect()
            let outcome = state.withLock { $0.didConnect(connection, reentrant: reentrant) }
            // Cancelled outside the lock: the upstream's cancel may call back.
            // A replaced connection is cancelled too (Combine's is an
            // AnyCancellable, which cancels when dropped).
            switch outcome {
            case .kept: break
            case .abandoned(let dropped), .replaced(let dropped):
                unsafeDowncast(dropped, to: Connection.self).cancel()
            }
        }

        /// A subscriber left: the last one out disconnects.
        // Inlinable, as are the connection's cancel and the engine's
        // remove(connection:): the last subscriber's cancel then runs
        // specialised throughout.
        @inlinable
        internal func leave() {
            let last = state.withLock { $0.leave() }
            guard let connection = last else { return }
            unsafeDowncast(connection, to: Connection.self).cancel()
        }

        /// The upstream completed through `connection`: nothing connects
        /// again, and the share no longer keeps the connection.
        @usableFromInline
        internal func upstreamFinished(_ connection: Connection) {
            let ended = state.withLock { s -> Connection? in
                switch s {
                case .connected(_, let current) where current === connection:
                    s = .finished
                    return connection
                case .connecting:
                    // Completed synchronously, inside connect().
                    s = .finished
                    return nil
                default:
                    // A connection already replaced or dropped.
                    return nil
                }
            }
            // Released outside the lock.
            _ = ended
        }

        @inlinable
        internal func conduitRequested(_ conduit: ConduitBase<Output, Failure>, _ demand: Subscribers.Demand) {
            // The first demand of any subscriber: the connection asks the
            // upstream for `.unlimited`, as Combine's subject does.
            if let connection = engine.request(demand, for: conduit) {
                unsafeDowncast(connection, to: Connection.self).request(.unlimited)
            }
        }

        @inlinable
        internal func conduitCancelled(_ conduit: ConduitBase<Output, Failure>) {
            // Counted out once, however often (and from however many
            // threads) the subscription is cancelled.
            if engine.cancel(conduit) { leave() }
        }

        @usableFromInline
        internal func conduitDemand(_ conduit: ConduitBase<Output, Failure>) -> Subscribers.Demand? {
            engine.demand(of: conduit)
        }

        /// Identity: a share equals only itself.
        public static func == (lhs: Share, rhs: Share) -> Bool {
            lhs === rhs
        }
    }
}

// Every piece of mutable state is behind the engine's gate or the state
// mutex.
extension Publishers.Share: @unchecked Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publishers.Share {
    /// One subscription to the upstream: the upstream sees it as its
    /// subscriber (named `Subject`, as the subject's link is in Combine),
    /// the engine as its upstream subscription. Values go straight into the
    /// engine: the per-value path is one atomic load.
    ///
    /// It is also a ``ConduitBase``: when the upstream is one of our
    /// subjects (`subject.share()`), the subject lists the connection
    /// itself instead of a conduit and holder of its own (see
    /// ``EngineSubject``), and the connection's requests and cancel are a
    /// conduit's. Otherwise it subscribes as any subscriber and its
    /// requests and cancel go to the subscription it received.
    ///
    /// It keeps the share alive while connected (the upstream keeps it);
    /// the share keeps it until the last subscriber leaves, the upstream
    /// completes or a newer connection replaces it, and then forgets it, so
    /// the cycle ends with the connection.
    @usableFromInline
    internal final class Connection: ConduitBase<Upstream.Output, Upstream.Failure>, Subscriber,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let share: Publishers.Share<Upstream>
        /// The link to the upstream.
        @usableFromInline let state = Locked(ShareConnectionLink.awaitingSubscription)
        /// Mirrors `state` being `.subscribed` or `.attached`, written under
        /// the lock, read without it on the per-value path.
        @usableFromInline let delivering = Atomic<Bool>(false)

        @inlinable
        init(share: Publishers.Share<Upstream>) {
            self.share = share
            // Non-capturing, formed here where the share's type is known:
            // they run specialised (see ConduitBase).
            super.init(
                deliver: { base, value in unsafeDowncast(base, to: Connection.self).receive(value) },
                request: { base, demand in unsafeDowncast(base, to: Connection.self).forward(demand) },
                cancel: { base in unsafeDowncast(base, to: Connection.self).disconnect() })
        }

        /// Subscribes to the upstream: listed directly when it is one of
        /// our subjects that has not completed, else as any subscriber.
        @inlinable
        func connect() {
            switch withSubject(.attach) {
            case .listed:
                didSubscribe(attached: nil)
            case .notASubject, .completed:
                // A completed subject sends its completion through the
                // ordinary path, as to any late subscriber.
                // receive(subscriber:), not subscribe(_:), so the chain
                // stays specialised: see docs/engineering-notes.md.
                share.upstream.receive(subscriber: self)
            }
        }

        @inlinable
        func receive(subscription: any Subscription) {
            didSubscribe(attached: subscription)
        }

        /// The upstream's subscription arrived (`subscription`), or the
        /// subject listed the connection (nil).
        @inlinable
        func didSubscribe(attached subscription: (any Subscription)?) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s else { return false }
                if let subscription { s = .subscribed(subscription) } else { s = .attached }
                delivering.store(true, ordering: .releasing)
                return true
            }
            guard accepted else {
                if let subscription { subscription.cancel() } else { _ = withSubject(.cancel) }
                return
            }
            // `.unlimited` once any subscriber asked for a value, as
            // Combine's PassthroughSubject does: now, or on that request.
            switch share.engine.receive(connection: self) {
            case true?: request(.unlimited)
            case false?: break
            case nil: cancel()
            }
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            guard delivering.load(ordering: .acquiring) else { return .none }
            share.engine.send(input, replaysLatest: false)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let wasSubscribed = state.withLock { s -> Bool in
                guard s.isConnected else { return false }
                s = .terminal
                delivering.store(false, ordering: .releasing)
                return true
            }
            guard wasSubscribed else { return }
            share.upstreamFinished(self)
            share.engine.send(completion: completion)
        }

        /// The request entry point: to the subject or the subscription.
        @inlinable
        func forward(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            var attached = false
            let subscription = state.withLock { s -> (any Subscription)? in
                if case .attached = s { attached = true }
                return s.subscription
            }
            if attached {
                _ = withSubject(.request(demand))
            } else {
                subscription?.request(demand)
            }
        }

        /// The cancel entry point: stops values, leaves the share's engine,
        /// then cancels the subscription or leaves the subject.
        @inlinable
        func disconnect() {
            var attached = false
            let upstream = state.withLock { s -> (any Subscription)? in
                delivering.store(false, ordering: .releasing)
                if case .attached = s { attached = true }
                return s.terminate()
            }
            share.engine.remove(connection: self)
            if attached {
                _ = withSubject(.cancel)
            } else {
                upstream?.cancel()
            }
        }

        /// The subject finished: what `receive(completion:)` does.
        @usableFromInline
        override func finish(_ completion: Subscribers.Completion<Failure>) {
            receive(completion: completion)
        }

        /// Left the subject's list: nothing to drop, the share keeps the
        /// subject as its upstream. A subject never detaches without a
        /// completion, so this only follows `finish` or `disconnect`.
        @usableFromInline
        override func dropLinks(lastDemand: Subscribers.Demand) {}

        /// What the connection asks of a subject upstream.
        @usableFromInline
        enum SubjectCall {
            case attach
            case request(Subscribers.Demand)
            case cancel
        }

        /// What ``withSubject(_:)`` found.
        @usableFromInline
        enum SubjectOutcome {
            case notASubject
            case listed
            case completed
        }

        /// Makes `call` on the upstream when it is one of our subjects.
        /// The type tests fold away in specialised code.
        @inlinable @inline(__always)
        func withSubject(_ call: SubjectCall) -> SubjectOutcome {
            if Upstream.self == PassthroughSubject<Input, Failure>.self {
                return make(call, on: _identityCast(share.upstream, to: PassthroughSubject<Input, Failure>.self))
            }
            if Upstream.self == CurrentValueSubject<Input, Failure>.self {
                return make(call, on: _identityCast(share.upstream, to: CurrentValueSubject<Input, Failure>.self))
            }
            return .notASubject
        }

        @inlinable @inline(__always)
        func make<Subject: EngineSubject>(_ call: SubjectCall, on subject: Subject) -> SubjectOutcome
            where Subject.Output == Input, Subject.Failure == Failure
        {
            switch call {
            case .attach:
                return subject.attach(connection: self) == nil ? .listed : .completed
            case .request(let demand):
                subject.conduitRequested(self, demand)
            case .cancel:
                subject.conduitCancelled(self)
            }
            return .listed
        }

        @usableFromInline var description: String { "Subject" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

/// A share connection's link to its upstream (not nested in the generic
/// connection: a type that depends on no generic parameter needs no
/// metadata lookup in unspecialised code).
@usableFromInline
internal enum ShareConnectionLink {
    case awaitingSubscription
    /// Subscribed to an upstream that sent this subscription.
    case subscribed(any Subscription)
    /// Listed by one of our subjects as its own conduit.
    case attached
    case terminal

    /// The subscription, while subscribed.
    @inlinable
    var subscription: (any Subscription)? {
        if case .subscribed(let s) = self { return s }
        return nil
    }

    /// Whether values flow.
    @inlinable
    var isConnected: Bool {
        switch self {
        case .subscribed, .attached: return true
        case .awaitingSubscription, .terminal: return false
        }
    }

    /// Becomes `.terminal` and hands over the subscription, moved rather
    /// than copied.
    @inlinable
    mutating func terminate() -> (any Subscription)? {
        switch consume self {
        case .subscribed(let s):
            self = .terminal
            return s
        case .awaitingSubscription, .attached, .terminal:
            self = .terminal
            return nil
        }
    }
}
