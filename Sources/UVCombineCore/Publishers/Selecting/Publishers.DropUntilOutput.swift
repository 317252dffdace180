import Synchronization

extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an
    /// element from a second publisher.
    ///
    /// The second publisher is subscribed once, right after the downstream
    /// receives its subscription, with a demand of `.max(1)`; after its
    /// first element it is cancelled and every later upstream element is
    /// republished. As in Combine, elements dropped before that consume
    /// the demand the subscriber requested (an upstream that sends a
    /// dropped element beyond that demand breaks the protocol and traps).
    /// If the second publisher completes before emitting, the upstream is
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
            other.receive(subscriber: UntilOutputTrigger<Inner<S>, Other.Output>(inner: inner))
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.DropUntilOutput {
    /// Drops the upstream until the trigger fires, then forwards it.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, UntilOutputTriggerTarget,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure
        @usableFromInline typealias TriggerFailure = Other.Failure

        /// The phase of one of the two links (upstream, trigger).
        @usableFromInline typealias Link = UntilOutputLink

        @usableFromInline
        internal struct State {
            /// Released on completion and cancel.
            @usableFromInline var downstream: Downstream?
            @usableFromInline var upstream: Link = .awaiting
            @usableFromInline var trigger: Link = .awaiting
            /// The other publisher has emitted: values pass.
            @usableFromInline var triggered = false
            /// Demand requested and not yet consumed by dropped elements
            /// (also what is owed to an upstream that has not arrived yet).
            @usableFromInline var demand: Subscribers.Demand = .none
            /// Completed or cancelled: nothing flows any more.
            @usableFromInline var done = false

            @inlinable
            init(downstream: Downstream) {
                self.downstream = downstream
            }
        }

        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream) {
            state = Locked(State(downstream: downstream))
        }

        // MARK: Upstream

        @inlinable
        func receive(subscription: any Subscription) {
            let demand = state.withLock { s -> Subscribers.Demand? in
                guard case .awaiting = s.upstream, !s.done else { return nil }
                s.upstream = .subscribed(subscription)
                return s.demand
            }
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand.rawValue > 0 { subscription.request(demand) }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            // Like Combine, no gate on the subscription's arrival: a value
            // is dropped or forwarded by whether the trigger has fired.
            let downstream = state.withLock { s -> Downstream? in
                guard !s.done else { return nil }
                if s.triggered { return s.downstream }
                if s.demand.rawValue == 0 {
                    violation("DropUntilOutput received a value beyond the demand requested")
                }
                s.demand -= 1
                return nil
            }
            guard let downstream = downstream else { return .none }
            return downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            // Forwarded also before the subscription, as Combine does.
            let taken = state.withLock { s -> ((any Subscription)?, Downstream?)? in
                guard !s.done else { return nil }
                s.done = true
                s.upstream = .terminal
                let trigger = s.trigger.subscription
                s.trigger = .terminal
                let downstream = s.downstream
                s.downstream = nil
                return (trigger, downstream)
            }
            guard let (trigger, downstream) = taken else { return }
            trigger?.cancel()
            downstream?.receive(completion: completion)
        }

        // MARK: Trigger

        @inlinable
        func triggerReceive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaiting = s.trigger, !s.done else { return false }
                s.trigger = .subscribed(subscription)
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
            let trigger = state.withLock { s -> (any Subscription)? in
                guard !s.done, !s.triggered else { return nil }
                s.triggered = true
                let trigger = s.trigger.subscription
                s.trigger = .terminal
                return trigger
            }
            // Its job is done.
            trigger?.cancel()
        }

        @inlinable
        func triggerCompleted(_ completion: Subscribers.Completion<Upstream.Failure>) {
            let taken = state.withLock { s -> ((any Subscription)?, Downstream?)? in
                if case .subscribed = s.trigger { s.trigger = .terminal }
                // After the trigger fired its completion no longer matters.
                guard !s.done, !s.triggered else { return nil }
                s.done = true
                let upstream = s.upstream.subscription
                s.upstream = .terminal
                let downstream = s.downstream
                s.downstream = nil
                return (upstream, downstream)
            }
            guard let (upstream, downstream) = taken else { return }
            upstream?.cancel()
            downstream?.receive(completion: completion)
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            // Combine accepts `.none` and forwards it.
            let upstream = state.withLock { s -> (any Subscription)? in
                guard !s.done else { return nil }
                s.demand += demand
                return s.upstream.subscription
            }
            upstream?.request(demand)
        }

        @inlinable
        func cancel() {
            let links = state.withLock { s -> ((any Subscription)?, (any Subscription)?) in
                s.done = true
                let links = (s.upstream.subscription, s.trigger.subscription)
                s.upstream = .terminal
                s.trigger = .terminal
                s.downstream = nil
                return links
            }
            links.0?.cancel()
            links.1?.cancel()
        }

        @usableFromInline var description: String { "DropUntilOutput" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
