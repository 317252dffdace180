import Synchronization

extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Republishes elements sent by the most recently received publisher.
    ///
    /// Works on a publisher of publishers: each new inner publisher replaces
    /// the previous one, whose subscription is cancelled, and the downstream
    /// sees one continuous stream. The downstream's outstanding demand
    /// carries over to each new inner publisher; nothing is buffered.
    /// Finishes when the upstream and the current inner publisher have
    /// finished; a failure of either cancels the other and fails.
    ///
    /// ```swift
    /// let searches = PassthroughSubject<PassthroughSubject<String, Never>, Never>()
    /// let first = PassthroughSubject<String, Never>()
    /// let second = PassthroughSubject<String, Never>()
    /// let c = searches.switchToLatest().sink { print($0) }
    /// searches.send(first)
    /// first.send("a")
    /// searches.send(second)
    /// first.send("ignored")
    /// second.send("b")
    /// // Prints: "a", "b"
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Failure == Never {
    /// Republishes elements sent by the most recently received publisher,
    /// for an upstream that cannot fail and inner publishers that can.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// let c = Just(Fail<Int, Oops>(error: Oops())).switchToLatest()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })
    /// // Prints: "failure(Oops())"
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
        Publishers.SwitchToLatest(upstream: Publishers.SetFailureType(upstream: self))
    }
}

extension Publisher where Output: Publisher, Failure == Never, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher,
    /// when neither the upstream nor the inner publishers can fail.
    ///
    /// ```swift
    /// let c = [Just(1), Just(2)].publisher.switchToLatest().sink { print($0) }
    /// // Prints: "1", "2"
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher,
    /// for an upstream that can fail and inner publishers that cannot.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// let c = [Just(1)].publisher.setFailureType(to: Oops.self).switchToLatest()
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// // Prints: "1"
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<
        Publishers.SetFailureType<Output, Failure>,
        Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
    > {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self) { Publishers.SetFailureType(upstream: $0) })
    }
}

extension Publishers {
    /// A publisher that flattens nested publishers: it republishes the
    /// elements of the most recent inner publisher its upstream produced.
    ///
    /// The upstream is asked for `.unlimited` inner publishers. Each new one
    /// is subscribed and the previous subscription cancelled; elements a
    /// replaced publisher still sends are dropped.
    ///
    /// Demand: the downstream's outstanding demand (requested and not yet
    /// delivered) goes to the current inner publisher, and carries over to
    /// the next one when it replaces it. Nothing is buffered; an inner
    /// publisher that sends more than it was asked for breaks the protocol
    /// and traps, as in Combine.
    ///
    /// Completion: finishes when the upstream has finished and the current
    /// inner publisher (if any) has finished. A failure of the upstream or of
    /// the current inner publisher cancels the other, then fails (a failed
    /// publisher is never cancelled). `cancel()` cancels the inner publisher,
    /// then the upstream.
    ///
    /// Threading: the upstream and the inner publishers may publish on any
    /// threads; elements go downstream one at a time, and `cancel()` waits
    /// for an element being delivered on another thread.
    ///
    /// ```swift
    /// let latest = Publishers.SwitchToLatest(upstream: [Just(1), Just(2)].publisher)
    /// ```
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
        where P == Upstream.Output, P.Failure == Upstream.Failure
    {
        /// The inner publishers' output type.
        public typealias Output = P.Output
        /// The failure type shared by the upstream and the inner publishers.
        public typealias Failure = P.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that flattens nested publishers.
        ///
        /// ```swift
        /// let latest = Publishers.SwitchToLatest(upstream: Just(Just(1)))
        /// ```
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes `subscriber`, then the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber)
            subscriber.receive(subscription: inner)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.SwitchToLatest {
    /// The subscription: subscriber of the upstream, and of the current
    /// inner publisher through a ``Side`` carrying its generation number.
    ///
    /// Slot 0 is the upstream, slot 1 the current inner publisher; a replaced
    /// inner subscription goes to `retired` to be cancelled. Upstream calls
    /// are made outside the ``DownstreamGate``.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == P.Output, Downstream.Failure == P.Failure
    {
        @usableFromInline typealias Input = P
        @usableFromInline typealias Failure = P.Failure

        @usableFromInline
        internal struct State: UpstreamSlotOwner {
            /// Slot 0: the upstream. Slot 1: the current inner publisher
            /// (`awaitingSubscription` while being subscribed, `finished`
            /// when there is none).
            @usableFromInline var slots: ContiguousArray<UpstreamSlot> = [UpstreamSlot(), UpstreamSlot()]
            /// The current inner publisher's number.
            @usableFromInline var generation: UInt64 = 0
            /// Replaced inner subscriptions, to cancel outside the gate.
            @usableFromInline var retired: ContiguousArray<any Subscription> = []
            /// Requested by the downstream and not yet delivered.
            @usableFromInline var demand: Subscribers.Demand = .none
            @usableFromInline var terminal = false
            /// A failure to deliver once the others have been cancelled.
            @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?

            @inlinable
            init() {
                slots[1].phase = .finished
            }
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let gate = DownstreamGate()
        @usableFromInline let actionsPending = Atomic<Bool>(false)
        /// `State.pendingCompletion` is set.
        @usableFromInline let completionPending = Atomic<Bool>(false)
        @usableFromInline let state = Locked(State())
        @usableFromInline let requestImpl: (Inner, Subscribers.Demand) -> Void
        @usableFromInline let cancelImpl: (Inner) -> Void

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
            requestImpl = { $0.performRequest($1) }
            cancelImpl = { $0.performCancel() }
        }

        // MARK: Upstream

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard !s.terminal, s.slots[0].phase == .awaitingSubscription else { return false }
                s.slots[0].phase = .active
                s.slots[0].subscription = subscription
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receive(_ input: P) -> Subscribers.Demand {
            let generation = state.withLock { s -> UInt64? in
                // As Combine: a publisher is taken also before the subscription.
                guard !s.terminal, s.slots[0].phase != .finished else { return nil }
                if let previous = s.slots[1].subscription {
                    s.retired.append(previous)
                    actionsPending.store(true, ordering: .releasing)
                }
                s.slots[1] = UpstreamSlot()
                s.generation &+= 1
                return s.generation
            }
            guard let generation else { return .none }
            if !gate.isHeldByCurrentThread { afterOutermost() }
            input.receive(subscriber: Side(inner: self, generation: generation))
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let outermost = gate.withGate { nested -> Bool in
                let deliver = state.withLock { s -> Bool in
                    guard !s.terminal, s.slots[0].finish() else { return false }
                    switch completion {
                    case .finished:
                        // Finish now only if no inner publisher is running or
                        // being subscribed.
                        guard s.slots[1].phase == .finished else { return false }
                        s.terminal = true
                    case .failure:
                        // Delivered by the outermost frame, after the inner
                        // publisher is cancelled (as Combine orders it).
                        lockedTerminate(&s)
                        lockedFail(&s, completion)
                        return false
                    }
                    return true
                }
                if deliver { downstream.receive(completion: completion) }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        // MARK: Inner publishers

        @inlinable
        func receiveInner(subscription: any Subscription, generation: UInt64) {
            let demand = state.withLock { s -> Subscribers.Demand? in
                guard !s.terminal, s.generation == generation,
                      s.slots[1].phase == .awaitingSubscription
                else { return nil }
                s.slots[1].phase = .active
                s.slots[1].subscription = subscription
                return s.demand
            }
            // A fresh subscription that has been asked for nothing cannot be
            // sending to us, so requesting directly is safe even inside the gate.
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand.rawValue > 0 { subscription.request(demand) }
        }

        @inlinable
        func receiveInner(_ value: Output, generation: UInt64) -> Subscribers.Demand {
            let (answer, outermost) = gate.withGate { nested -> (Subscribers.Demand, Bool) in
                let deliver = state.withLock { s -> Bool in
                    guard !s.terminal, s.generation == generation else { return false }
                    // The inner publisher is only ever asked for the
                    // downstream's outstanding demand; Combine traps too.
                    if s.demand.rawValue == 0 {
                        violation("SwitchToLatest received a value beyond the demand requested")
                    }
                    if !s.demand.isUnlimited {
                        s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
                    }
                    return true
                }
                guard deliver else { return (.none, !nested) }
                let more = downstream.receive(value)
                guard more.rawValue > 0 else { return (.none, !nested) }
                let answer = state.withLock { s -> Subscribers.Demand in
                    guard !s.terminal else { return .none }
                    s.demand += more
                    if s.generation == generation { return more }
                    // Replaced while the value was delivered: the new demand
                    // belongs to the new inner publisher.
                    if s.slots[1].phase == .active {
                        s.slots[1].owed += more
                        actionsPending.store(true, ordering: .releasing)
                    }
                    return .none
                }
                return (answer, !nested)
            }
            if outermost { afterOutermost() }
            return answer
        }

        @inlinable
        func receiveInner(completion: Subscribers.Completion<Failure>, generation: UInt64) {
            let outermost = gate.withGate { nested -> Bool in
                let deliver = state.withLock { s -> Bool in
                    guard !s.terminal, s.generation == generation,
                          s.slots[1].finish()
                    else { return false }
                    switch completion {
                    case .finished:
                        guard s.slots[0].phase == .finished else { return false }
                        s.terminal = true
                    case .failure:
                        // The failed inner publisher is not cancelled (its
                        // slot has finished); the upstream is, first.
                        lockedTerminate(&s)
                        lockedFail(&s, completion)
                        return false
                    }
                    return true
                }
                if deliver { downstream.receive(completion: completion) }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        // MARK: Upstream calls

        /// Ends everything: the upstream and the inner publisher to be
        /// cancelled. Holding the lock.
        @inlinable
        func lockedTerminate(_ s: inout State) {
            s.terminal = true
            if s.markAllForCancel() { actionsPending.store(true, ordering: .releasing) }
        }

        /// Cancels retired inner subscriptions, then makes the calls recorded
        /// in the slots; outside the gate and every lock.
        @inlinable
        func runUpstreamActions() {
            while actionsPending.exchange(false, ordering: .acquiringAndReleasing) {
                let retired = state.withLock { s -> ContiguousArray<any Subscription> in
                    defer { s.retired = [] }
                    return s.retired
                }
                for subscription in retired { subscription.cancel() }
                // The inner publisher before the upstream, as Combine.
                runSlotActionsOuterLast(state)
            }
        }

        /// Records the failure for ``afterOutermost()``. Holding the lock.
        @inlinable
        func lockedFail(_ s: inout State, _ completion: Subscribers.Completion<Failure>) {
            s.pendingCompletion = completion
            completionPending.store(true, ordering: .releasing)
        }

        /// What the outermost frame does once it has released the gate: the
        /// recorded upstream calls, then a pending failure.
        @inlinable
        func afterOutermost() {
            if actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
            if completionPending.load(ordering: .acquiring) { deliverPendingCompletion() }
        }

        /// Delivers the failure recorded by ``lockedFail(_:_:)``. Outside the
        /// gate: the operator is terminal, so no other delivery can start.
        @inlinable
        func deliverPendingCompletion() {
            guard completionPending.exchange(false, ordering: .acquiringAndReleasing) else { return }
            let completion = state.withLock { s -> Subscribers.Completion<Failure>? in
                defer { s.pendingCompletion = nil }
                return s.pendingCompletion
            }
            if let completion = completion { downstream.receive(completion: completion) }
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            requestImpl(self, demand)
        }

        /// Adds `demand` and passes it to the current inner publisher.
        @inlinable
        func performRequest(_ demand: Subscribers.Demand) {
            let nested = gate.isHeldByCurrentThread
            state.withLock { s in
                guard !s.terminal else { return }
                s.demand += demand
                if s.slots[1].phase == .active {
                    s.slots[1].owed += demand
                    actionsPending.store(true, ordering: .releasing)
                }
            }
            if !nested { afterOutermost() }
        }

        @inlinable
        func cancel() {
            cancelImpl(self)
        }

        @inlinable
        func performCancel() {
            let outermost = gate.withGate { nested -> Bool in
                state.withLock { s in
                    guard !s.terminal else { return }
                    lockedTerminate(&s)
                }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        @usableFromInline var description: String { "SwitchToLatest" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// The subscriber given to each inner publisher.
    @usableFromInline
    internal struct Side<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == P.Output, Downstream.Failure == P.Failure
    {
        @usableFromInline typealias Input = P.Output
        @usableFromInline typealias Failure = P.Failure

        @usableFromInline let inner: Inner<Downstream>
        @usableFromInline let generation: UInt64
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(inner: Inner<Downstream>, generation: UInt64) {
            self.inner = inner
            self.generation = generation
        }

        @inlinable
        func receive(subscription: any Subscription) {
            inner.receiveInner(subscription: subscription, generation: generation)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            inner.receiveInner(input, generation: generation)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            inner.receiveInner(completion: completion, generation: generation)
        }

        @usableFromInline var description: String { "SwitchToLatest" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["parentSubscription": inner.combineIdentifier])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
