import Synchronization

extension Publisher {
    /// Transforms all elements from an upstream publisher into a new
    /// publisher up to a maximum number of publishers you specify, and
    /// merges their elements.
    ///
    /// At most `maxPublishers` inner publishers are subscribed at once: the
    /// upstream is asked for `maxPublishers` elements, and for one more each
    /// time an inner publisher finishes. Downstream demand is shared by the
    /// inner publishers as in ``Publishers/Merge``: each is asked for one
    /// element at a time while the demand is finite, and an element that
    /// arrives without demand waits (at most one per inner publisher, so at
    /// most `maxPublishers` waiting elements), delivered first-come
    /// first-served. Finishes when the upstream and every inner publisher
    /// have finished; any failure cancels everything else and fails.
    ///
    /// Threading: `transform` runs on the thread the upstream delivers on;
    /// inner publishers may publish on any threads, and their elements go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher
    ///     .flatMap(maxPublishers: .max(1)) { n in [n, n * 10].publisher }
    ///     .sink { print($0, terminator: " ") }
    /// // Prints: "1 10 2 20 3 30 "
    /// ```
    @inlinable
    public func flatMap<T, P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where T == P.Output, Failure == P.Failure {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }

    /// Transforms all elements from an upstream publisher that can fail into
    /// publishers that cannot, and merges their elements.
    ///
    /// The inner publishers' `Never` failure is raised to this publisher's
    /// failure type; otherwise as the main `flatMap(maxPublishers:_:)`.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// let c = [1, 2].publisher.setFailureType(to: Oops.self)
    ///     .flatMap { Just($0 * 2) }
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// // Prints: "2", "4"
    /// ```
    @inlinable
    public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
            Publishers.SetFailureType(upstream: transform($0))
        }
    }
}

extension Publisher where Failure == Never {
    /// Transforms all elements from an upstream publisher that cannot fail
    /// into publishers that can, and merges their elements.
    ///
    /// The upstream's `Never` failure is raised to the inner publishers'
    /// failure type; otherwise as the main `flatMap(maxPublishers:_:)`.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// let c = [1, 2].publisher
    ///     .flatMap { Result<Int, Oops>.success($0).publisher }
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// // Prints: "1", "2"
    /// ```
    @inlinable
    public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> {
        Publishers.FlatMap(upstream: Publishers.SetFailureType(upstream: self),
                           maxPublishers: maxPublishers, transform: transform)
    }

    /// Transforms all elements from an upstream publisher that cannot fail
    /// into publishers that cannot fail either, and merges their elements.
    ///
    /// ```swift
    /// let c = [1, 2].publisher.flatMap { Just($0 + 1) }.sink { print($0) }
    /// // Prints: "2", "3"
    /// ```
    @inlinable
    public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms elements from an upstream publisher into
    /// new publishers and merges their elements.
    ///
    /// Concurrency: at most `maxPublishers` inner publishers are subscribed
    /// at once. The upstream is asked for `maxPublishers` elements at
    /// subscription (also for `.none`, as Combine) and for one more each
    /// time an inner publisher finishes (with `.unlimited`, once).
    ///
    /// Demand: downstream demand is shared by the inner publishers. While it
    /// is finite each inner publisher is asked for one element at a time; an
    /// element that arrives while the downstream has no demand waits, and its
    /// publisher is asked for nothing more until the element has been
    /// delivered. Waiting elements go out first-come first-served, so at most
    /// one element per live inner publisher waits; each waiting element
    /// delivered asks its publisher for `.max(1)`. Once the downstream asks
    /// for `.unlimited`, every inner publisher is asked for `.unlimited`.
    ///
    /// Completion: finishes when the upstream and every inner publisher have
    /// finished and every waiting element has been delivered. A failure of
    /// the upstream cancels every inner publisher, then fails; a failure of
    /// an inner publisher cancels the other inner publishers, then fails
    /// (as in Combine, the upstream is then released without a cancel). A
    /// failed publisher is never cancelled. `cancel()` cancels the inner
    /// publishers, then the upstream. Each inner publisher that finishes
    /// asks the upstream for `.max(1)` more (with finite `maxPublishers`).
    ///
    /// Threading: inner publishers may publish on any threads; elements go
    /// downstream one at a time, and `cancel()` waits for an element being
    /// delivered on another thread.
    ///
    /// ```swift
    /// let ids = PassthroughSubject<Int, Never>()
    /// let c = ids.flatMap(maxPublishers: .max(2)) { id in Just("user \(id)") }
    ///     .sink { print($0) }
    /// ids.send(7)
    /// // Prints: "user 7"
    /// ```
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
        where NewPublisher.Failure == Upstream.Failure
    {
        /// The inner publishers' output type.
        public typealias Output = NewPublisher.Output
        /// The upstream's failure type, which the inner publishers share.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of concurrent publisher subscriptions.
        public let maxPublishers: Subscribers.Demand

        /// A closure that takes an element as a parameter and returns a
        /// publisher that produces elements of that type.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a publisher that transforms elements from an upstream
        /// publisher into new publishers.
        ///
        /// ```swift
        /// let p = Publishers.FlatMap(upstream: [1, 2].publisher, maxPublishers: .max(1)) { Just($0) }
        /// ```
        @inlinable
        public init(upstream: Upstream, maxPublishers: Subscribers.Demand,
                    transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        /// Subscribes `subscriber`, then the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber, maxPublishers: maxPublishers, transform: transform)
            subscriber.receive(subscription: inner)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.FlatMap {
    /// The subscription: subscriber of the upstream, and of each inner
    /// publisher through a ``ChildSide``.
    ///
    /// Slot 0 of `State.slots` is the upstream; inner publishers take the
    /// other slots, reused after they finish (a generation number tells a
    /// reused slot from its former occupant). Upstream and inner publishers
    /// are only called outside the ``DownstreamGate``, from the calls
    /// recorded in the slots.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == NewPublisher.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @inlinable static var finiteMode: UInt8 { 0 }
        @inlinable static var unlimitedMode: UInt8 { 1 }
        @inlinable static var terminalMode: UInt8 { 2 }

        /// An inner publisher's element that arrived without demand.
        @usableFromInline
        internal struct Waiting {
            @usableFromInline let slot: Int
            @usableFromInline let generation: UInt
            @usableFromInline let value: NewPublisher.Output

            @inlinable
            init(slot: Int, generation: UInt, value: NewPublisher.Output) {
                self.slot = slot
                self.generation = generation
                self.value = value
            }
        }

        @usableFromInline
        internal struct State: UpstreamSlotOwner {
            /// Slot 0: the upstream. Others: inner publishers.
            @usableFromInline var slots: ContiguousArray<UpstreamSlot> = [UpstreamSlot()]
            @usableFromInline var generations: ContiguousArray<UInt> = [0]
            /// Inner-publisher slots free for reuse.
            @usableFromInline var free: ContiguousArray<Int> = []
            @usableFromInline var waiting = RingBuffer<Waiting>()
            /// Requested by the downstream and not yet delivered.
            @usableFromInline var demand: Subscribers.Demand = .none
            /// Inner publishers subscribed or being subscribed, not finished.
            @usableFromInline var liveChildren = 0
            @usableFromInline var unlimitedForwarded = false
            /// Finished inner publishers not yet replaced: one `.max(1)`
            /// each to request from the upstream (Combine asks one at a time).
            @usableFromInline var outerRequests = 0
            /// A failure to deliver once the others have been cancelled.
            @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?

            @inlinable init() {}
        }

        @usableFromInline
        internal enum DrainStep {
            case deliver(NewPublisher.Output)
            case finish
            case stop
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let maxPublishers: Subscribers.Demand
        @usableFromInline let transform: (Upstream.Output) -> NewPublisher
        @usableFromInline let gate = DownstreamGate()
        /// As in `MergeInner`: written holding the gate and the lock.
        @usableFromInline let mode = Atomic<UInt8>(0)
        @usableFromInline let drainNeeded = Atomic<Bool>(false)
        @usableFromInline let actionsPending = Atomic<Bool>(false)
        /// `State.pendingCompletion` is set.
        @usableFromInline let completionPending = Atomic<Bool>(false)
        @usableFromInline let state = Locked(State())
        @usableFromInline let requestImpl: (Inner, Subscribers.Demand) -> Void
        @usableFromInline let cancelImpl: (Inner) -> Void

        @inlinable
        init(downstream: Downstream, maxPublishers: Subscribers.Demand,
             transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.downstream = downstream
            self.maxPublishers = maxPublishers
            self.transform = transform
            requestImpl = { $0.performRequest($1) }
            cancelImpl = { $0.performCancel() }
        }

        // MARK: Upstream

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard mode.load(ordering: .relaxed) != Self.terminalMode,
                      s.slots[0].phase == .awaitingSubscription
                else { return false }
                s.slots[0].phase = .active
                s.slots[0].subscription = subscription
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            // Unconditionally, `.none` included, as Combine does (observed:
            // `flatMap(maxPublishers: .none)` requests `.max(0)`); an
            // upstream that traps on zero demand traps there too.
            subscription.request(maxPublishers)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let slot = state.withLock { s -> (index: Int, generation: UInt)? in
                // As Combine: a value is taken also before the subscription.
                guard mode.load(ordering: .relaxed) != Self.terminalMode,
                      s.slots[0].phase != .finished
                else { return nil }
                let index: Int
                if let reused = s.free.popLast() {
                    index = reused
                    s.slots[index] = UpstreamSlot()
                } else {
                    index = s.slots.count
                    s.slots.append(UpstreamSlot())
                    s.generations.append(0)
                }
                s.generations[index] &+= 1
                s.liveChildren &+= 1
                return (index, s.generations[index])
            }
            guard let slot else { return .none }
            transform(input).receive(subscriber: ChildSide(inner: self, slot: slot.index, generation: slot.generation))
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let outermost = gate.withGate { nested -> Bool in
                switch completion {
                case .finished:
                    let changed = state.withLock { s -> Bool in
                        mode.load(ordering: .relaxed) != Self.terminalMode && s.slots[0].finish()
                    }
                    if changed {
                        if nested { drainNeeded.store(true, ordering: .relaxed) } else { drain() }
                    }
                case .failure:
                    // Delivered by the outermost frame, after the inner
                    // publishers are cancelled (as Combine orders it).
                    state.withLock { s in
                        guard mode.load(ordering: .relaxed) != Self.terminalMode else { return }
                        _ = s.slots[0].finish()
                        lockedTerminate(&s)
                        lockedFail(&s, completion)
                    }
                }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        // MARK: Inner publishers

        @inlinable
        func receiveChild(subscription: any Subscription, slot i: Int, generation: UInt) {
            let demand = state.withLock { s -> Subscribers.Demand? in
                guard mode.load(ordering: .relaxed) != Self.terminalMode,
                      s.generations[i] == generation,
                      s.slots[i].phase == .awaitingSubscription
                else { return nil }
                s.slots[i].phase = .active
                s.slots[i].subscription = subscription
                return s.demand.isUnlimited ? .unlimited : .max(1)
            }
            // A fresh subscription that has been asked for nothing cannot be
            // sending to us, so requesting directly is safe even inside the gate.
            if let demand {
                subscription.request(demand)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receiveChild(_ value: NewPublisher.Output, slot i: Int, generation: UInt) -> Subscribers.Demand {
            let (answer, outermost) = gate.withGate { nested -> (Subscribers.Demand, Bool) in
                let mode = self.mode.load(ordering: .relaxed)
                if mode == Self.unlimitedMode {
                    _ = downstream.receive(value)
                    if !nested && drainNeeded.load(ordering: .relaxed) { drain() }
                    return (.none, !nested)
                }
                if mode == Self.terminalMode { return (.none, !nested) }
                let deliver = state.withLock { s -> Bool in
                    if s.demand.rawValue == 0 {
                        s.waiting.append(Waiting(slot: i, generation: generation, value: value))
                        return false
                    }
                    if !s.demand.isUnlimited {
                        s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
                    }
                    return true
                }
                guard deliver else { return (.none, !nested) }
                let more = downstream.receive(value)
                if more.rawValue > 0 { addDemand(more) }
                if nested { drainNeeded.store(true, ordering: .relaxed) } else { drain() }
                return (.max(1), !nested)
            }
            if outermost { afterOutermost() }
            return answer
        }

        @inlinable
        func receiveChild(completion: Subscribers.Completion<NewPublisher.Failure>, slot i: Int, generation: UInt) {
            let outermost = gate.withGate { nested -> Bool in
                switch completion {
                case .finished:
                    let counted = state.withLock { s -> Bool in
                        guard mode.load(ordering: .relaxed) != Self.terminalMode,
                              s.generations[i] == generation,
                              s.slots[i].finish()
                        else { return false }
                        s.liveChildren &-= 1
                        s.free.append(i)
                        // Room for one more inner publisher.
                        if !maxPublishers.isUnlimited && s.slots[0].phase == .active {
                            s.outerRequests &+= 1
                            actionsPending.store(true, ordering: .releasing)
                        }
                        return true
                    }
                    if counted {
                        if nested { drainNeeded.store(true, ordering: .relaxed) } else { drain() }
                    }
                case .failure:
                    // The failed publisher is not cancelled; the others are,
                    // before the failure goes out. As in Combine, the
                    // upstream is released but not cancelled.
                    state.withLock { s in
                        guard mode.load(ordering: .relaxed) != Self.terminalMode,
                              s.generations[i] == generation
                        else { return }
                        _ = s.slots[i].finish()
                        lockedTerminate(&s)
                        s.slots[0].owesCancel = false
                        s.slots[0].subscription = nil
                        lockedFail(&s, completion)
                    }
                }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        // MARK: Delivery (holding the gate)

        @inlinable
        @discardableResult
        func addDemand(_ more: Subscribers.Demand) -> Bool {
            state.withLock { s -> Bool in
                guard mode.load(ordering: .relaxed) != Self.terminalMode else { return false }
                s.demand += more
                if s.demand.isUnlimited { mode.store(Self.unlimitedMode, ordering: .relaxed) }
                return true
            }
        }

        @inlinable
        func drain() {
            drainNeeded.store(false, ordering: .relaxed)
            while true {
                let step = state.withLock { s -> DrainStep in
                    lockedNextStep(&s)
                }
                switch step {
                case .deliver(let value):
                    let more = downstream.receive(value)
                    if more.rawValue > 0 { addDemand(more) }
                case .finish:
                    downstream.receive(completion: .finished)
                    return
                case .stop:
                    return
                }
            }
        }

        @inlinable
        func lockedNextStep(_ s: inout State) -> DrainStep {
            if mode.load(ordering: .relaxed) == Self.terminalMode { return .stop }
            if s.demand.rawValue > 0, let waiting = s.waiting.popFirst() {
                if !s.demand.isUnlimited {
                    s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
                }
                if s.generations[waiting.slot] == waiting.generation && s.slots[waiting.slot].phase == .active {
                    s.slots[waiting.slot].owed += 1
                    actionsPending.store(true, ordering: .releasing)
                }
                return .deliver(waiting.value)
            }
            if s.demand.isUnlimited && !s.unlimitedForwarded {
                s.unlimitedForwarded = true
                if s.owe(.unlimited, skipping: 0) { actionsPending.store(true, ordering: .releasing) }
            }
            if s.slots[0].phase == .finished && s.liveChildren == 0 && s.waiting.isEmpty {
                mode.store(Self.terminalMode, ordering: .relaxed)
                return .finish
            }
            return .stop
        }

        /// No more values; the upstream and every inner publisher to be
        /// cancelled. Holding the gate and the lock.
        @inlinable
        func lockedTerminate(_ s: inout State) {
            mode.store(Self.terminalMode, ordering: .relaxed)
            s.waiting.removeAll(keepingCapacity: false)
            s.outerRequests = 0
            if s.markAllForCancel() { actionsPending.store(true, ordering: .releasing) }
        }

        /// Records the failure for ``afterOutermost()``. Holding the lock.
        @inlinable
        func lockedFail(_ s: inout State, _ completion: Subscribers.Completion<Failure>) {
            s.pendingCompletion = completion
            completionPending.store(true, ordering: .releasing)
        }

        /// What the outermost frame does once it has released the gate: the
        /// recorded upstream calls (inner publishers before the upstream),
        /// then a pending failure.
        @inlinable
        func afterOutermost() {
            if actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
            if completionPending.load(ordering: .acquiring) { deliverPendingCompletion() }
        }

        @inlinable
        func runUpstreamActions() {
            while actionsPending.exchange(false, ordering: .acquiringAndReleasing) {
                runSlotActionsOuterLast(state, innerRequestsOneAtATime: true)
                // One `.max(1)` per finished inner publisher.
                while true {
                    let outer = state.withLock { s -> (any Subscription)?? in
                        guard s.outerRequests > 0 else { return nil }
                        s.outerRequests &-= 1
                        return s.slots[0].subscription
                    }
                    guard let outer else { break }
                    outer?.request(.max(1))
                }
            }
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

        @inlinable
        func performRequest(_ demand: Subscribers.Demand) {
            let outermost = gate.withGate { nested -> Bool in
                if addDemand(demand) {
                    if nested { drainNeeded.store(true, ordering: .relaxed) } else { drain() }
                }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        @inlinable
        func cancel() {
            cancelImpl(self)
        }

        @inlinable
        func performCancel() {
            let outermost = gate.withGate { nested -> Bool in
                state.withLock { s in
                    guard mode.load(ordering: .relaxed) != Self.terminalMode else { return }
                    lockedTerminate(&s)
                }
                return !nested
            }
            if outermost { afterOutermost() }
        }

        @usableFromInline var description: String { "FlatMap" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// The subscriber given to each inner publisher.
    @usableFromInline
    internal struct ChildSide<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == NewPublisher.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = NewPublisher.Output
        @usableFromInline typealias Failure = NewPublisher.Failure

        @usableFromInline let inner: Inner<Downstream>
        @usableFromInline let slot: Int
        @usableFromInline let generation: UInt
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(inner: Inner<Downstream>, slot: Int, generation: UInt) {
            self.inner = inner
            self.slot = slot
            self.generation = generation
        }

        @inlinable
        func receive(subscription: any Subscription) {
            inner.receiveChild(subscription: subscription, slot: slot, generation: generation)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            inner.receiveChild(input, slot: slot, generation: generation)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            inner.receiveChild(completion: completion, slot: slot, generation: generation)
        }

        @usableFromInline var description: String { "FlatMap" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["parentSubscription": inner.combineIdentifier])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
