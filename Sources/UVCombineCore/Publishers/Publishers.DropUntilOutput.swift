import Synchronization

extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an
    /// element from a second publisher.
    ///
    /// The second publisher is subscribed once, right after the downstream
    /// receives its subscription, with a demand of `.max(1)`; after its
    /// first element it is cancelled and every later upstream element is
    /// republished. Elements dropped before that are answered with `.max(1)`
    /// upstream, so downstream demand counts delivered elements only. If
    /// the second publisher completes before emitting, the upstream is
    /// cancelled and this publisher completes the same way.
    ///
    /// ```swift
    /// let numbers = PassthroughSubject<Int, Never>()
    /// let start = PassthroughSubject<Void, Never>()
    /// let c = numbers.drop(untilOutputFrom: start).sink { print($0) }
    /// numbers.send(1)
    /// start.send()
    /// numbers.send(2)
    /// // Prints: "2"
    /// ```
    @inlinable
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
        where Failure == P.Failure
    {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that ignores elements from the upstream publisher until
    /// it receives an element from a second publisher.
    ///
    /// Threading: the two publishers may deliver on different threads;
    /// `request` and `cancel` may come from any thread. The subscription
    /// describes itself as `DropUntilOutput`.
    ///
    /// ```swift
    /// let afterStart = Publishers.DropUntilOutput(upstream: ticks, other: startButton)
    /// ```
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
        where Upstream.Failure == Other.Failure
    {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The failure type shared by both publishers.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A publisher to monitor for its first emitted element.
        public let other: Other

        /// Creates a publisher that ignores elements from `upstream` until
        /// `other` emits.
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

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.DropUntilOutput {
    /// Drops the upstream until the trigger fires, then forwards it.
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
            /// The other publisher has emitted: values pass.
            @usableFromInline var triggered = false
            /// Requested before the upstream subscription arrived.
            @usableFromInline var pendingDemand: Subscribers.Demand = .none
            /// Completed or cancelled: nothing flows any more.
            @usableFromInline var done = false

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
            let pass = state.withLock { s -> Bool? in
                guard s.value.upstreamArrived, !s.value.done else { return nil }
                return s.value.triggered
            }
            switch pass {
            case nil: return .none
            case false?: return .max(1)
            case true?: return downstream.receive(input)
            }
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
            let trigger = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                guard s.value.triggerArrived, !s.value.done, !s.value.triggered else { return UncheckedSendable(nil) }
                s.value.triggered = true
                let trigger = s.value.trigger
                s.value.trigger = nil
                return UncheckedSendable(trigger)
            }
            // Its job is done.
            trigger.value?.cancel()
        }

        @inlinable
        func triggerCompleted(_ completion: Subscribers.Completion<Upstream.Failure>) {
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?>? in
                guard s.value.triggerArrived, !s.value.done else { return nil }
                s.value.trigger = nil
                // After the trigger fired its completion no longer matters.
                guard !s.value.triggered else { return nil }
                s.value.done = true
                let upstream = s.value.upstream
                s.value.upstream = nil
                return UncheckedSendable(upstream)
            }
            guard let upstream else { return }
            upstream.value?.cancel()
            downstream.receive(completion: completion)
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

        @usableFromInline var description: String { "DropUntilOutput" }
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
            inner.triggerCompleted(completion)
        }

        @usableFromInline var description: String { "DropUntilOutput" }
    }
}
