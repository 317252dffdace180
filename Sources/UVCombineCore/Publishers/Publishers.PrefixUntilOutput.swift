import Synchronization

extension Publisher {
    /// Republishes elements until another publisher emits an element.
    ///
    /// The other publisher is subscribed once, right after the downstream
    /// receives its subscription, with a demand of `.max(1)`. Its first
    /// element cancels both publishers and finishes this one; its
    /// completion is ignored (elements keep flowing). When the upstream
    /// completes first, the other publisher is cancelled.
    ///
    /// ```swift
    /// let numbers = PassthroughSubject<Int, Never>()
    /// let stop = PassthroughSubject<Void, Never>()
    /// let c = numbers.prefix(untilOutputFrom: stop).sink { print($0) }
    /// numbers.send(1)
    /// stop.send()
    /// numbers.send(2)
    /// // Prints: "1"
    /// ```
    @inlinable
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that republishes elements until another publisher emits
    /// an element.
    ///
    /// Threading: the two publishers may deliver on different threads. The
    /// completion never overlaps a value: if the other publisher fires while
    /// an element is being delivered, `.finished` follows that element on
    /// its thread. The subscription describes itself as
    /// `PrefixUntilOutput`.
    ///
    /// ```swift
    /// let untilStop = Publishers.PrefixUntilOutput(upstream: ticks, other: stopButton)
    /// ```
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Another publisher, whose first output causes this publisher to
        /// finish.
        public let other: Other

        /// Creates a publisher that republishes `upstream` until `other`
        /// emits.
        @inlinable
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Hands the subscription to the subscriber, then subscribes to the
        /// other publisher and to the upstream, in that order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber)
            subscriber.receive(subscription: inner)
            other.receive(subscriber: Trigger(inner: inner))
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.PrefixUntilOutput {
    /// Forwards the upstream until the trigger fires.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var upstream: (any Subscription)?
            @usableFromInline var upstreamArrived = false
            @usableFromInline var trigger: (any Subscription)?
            @usableFromInline var triggerArrived = false
            /// Requested before the upstream subscription arrived.
            @usableFromInline var pendingDemand: Subscribers.Demand = .none
            /// Finished, failed or cancelled: nothing flows any more.
            @usableFromInline var done = false
            /// An element is being delivered downstream.
            @usableFromInline var delivering = false
            /// The trigger fired during a delivery: finish after it.
            @usableFromInline var finishAfterDelivery = false

            @inlinable
            init() {}
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let state: Mutex<UncheckedSendable<State>>

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
            state = Mutex(UncheckedSendable(State()))
        }

        // MARK: Upstream

        @inlinable
        func receive(subscription: any Subscription) {
            let demand = state.withLock { s -> Subscribers.Demand? in
                guard !s.value.upstreamArrived, !s.value.done else { return nil }
                s.value.upstreamArrived = true
                s.value.upstream = subscription
                let demand = s.value.pendingDemand
                s.value.pendingDemand = .none
                return demand
            }
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand.rawValue > 0 { subscription.request(demand) }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let active = state.withLock { s -> Bool in
                guard s.value.upstreamArrived, !s.value.done else { return false }
                s.value.delivering = true
                return true
            }
            guard active else { return .none }
            let more = downstream.receive(input)
            let finish = state.withLock { s -> Bool in
                s.value.delivering = false
                let finish = s.value.finishAfterDelivery
                s.value.finishAfterDelivery = false
                return finish
            }
            if finish {
                downstream.receive(completion: .finished)
                return .none
            }
            return more
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let trigger = state.withLock { s -> UncheckedSendable<(any Subscription)?>? in
                guard s.value.upstreamArrived, !s.value.done else { return nil }
                s.value.done = true
                s.value.upstream = nil
                let trigger = s.value.trigger
                s.value.trigger = nil
                return UncheckedSendable(trigger)
            }
            guard let trigger else { return }
            trigger.value?.cancel()
            downstream.receive(completion: completion)
        }

        // MARK: Trigger

        @inlinable
        func triggerReceive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard !s.value.triggerArrived, !s.value.done else { return false }
                s.value.triggerArrived = true
                s.value.trigger = subscription
                return true
            }
            if accepted {
                subscription.request(.max(1))
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func triggerFired() {
            let taken = state.withLock { s -> UncheckedSendable<((any Subscription)?, (any Subscription)?, Bool)>? in
                guard s.value.triggerArrived, !s.value.done else { return nil }
                s.value.done = true
                let links = (s.value.upstream, s.value.trigger)
                s.value.upstream = nil
                s.value.trigger = nil
                if s.value.delivering { s.value.finishAfterDelivery = true }
                return UncheckedSendable((links.0, links.1, !s.value.delivering))
            }
            guard let (upstream, trigger, finishNow) = taken?.value else { return }
            upstream?.cancel()
            trigger?.cancel()
            if finishNow { downstream.receive(completion: .finished) }
        }

        @inlinable
        func triggerCompleted() {
            state.withLock { $0.value.trigger = nil }
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                guard !s.value.done else { return UncheckedSendable(nil) }
                if s.value.upstream == nil { s.value.pendingDemand += demand }
                return UncheckedSendable(s.value.upstream)
            }
            upstream.value?.request(demand)
        }

        @inlinable
        func cancel() {
            let links = state.withLock { s -> UncheckedSendable<((any Subscription)?, (any Subscription)?)> in
                s.value.done = true
                let links = (s.value.upstream, s.value.trigger)
                s.value.upstream = nil
                s.value.trigger = nil
                return UncheckedSendable(links)
            }
            links.value.0?.cancel()
            links.value.1?.cancel()
        }

        @usableFromInline var description: String { "PrefixUntilOutput" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// Subscribes to the other publisher on behalf of `Inner`.
    @usableFromInline
    internal struct Trigger<Downstream: Subscriber>: Subscriber, CustomStringConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Other.Output
        @usableFromInline typealias Failure = Other.Failure

        @usableFromInline let inner: Inner<Downstream>
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(inner: Inner<Downstream>) {
            self.inner = inner
        }

        @inlinable
        func receive(subscription: any Subscription) {
            inner.triggerReceive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Other.Output) -> Subscribers.Demand {
            inner.triggerFired()
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Other.Failure>) {
            inner.triggerCompleted()
        }

        @usableFromInline var description: String { "PrefixUntilOutput" }
    }
}
