import Synchronization

extension Publisher {
    /// Republishes elements until another publisher emits an element.
    ///
    /// The other publisher is subscribed first, with a demand of `.max(1)`;
    /// then the upstream, whose subscription is handed to the subscriber
    /// when it arrives (as Combine does). The other publisher's first
    /// element cancels both publishers and finishes this one; its
    /// completion without an element is ignored (elements keep flowing).
    /// When the upstream completes first, the other publisher is cancelled.
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
    /// As in Combine, the subscriber receives its subscription when the
    /// upstream's arrives; if the other publisher emits before that, the
    /// subscriber receives `.finished` alone and the upstream's subscription
    /// is cancelled when it comes.
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

        /// Subscribes to the other publisher, then to the upstream; the
        /// subscriber gets its subscription when the upstream's arrives.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber)
            other.receive(subscriber: UntilOutputTrigger<Inner<S>, Other.Output>(inner: inner))
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.PrefixUntilOutput {
    /// Forwards the upstream until the trigger fires.
    ///
    /// Like Combine's, it has no custom description, mirror or playground
    /// description (OpenCombine's `PrefixUntilOutputTests.testPrefixUntilOutputReflection`,
    /// written against Combine): debuggers and `print` show its type.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, UntilOutputTriggerTarget
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
            /// `upstream` is `.subscribed`, as a plain flag for the
            /// per-value test: matching the enum copies its
            /// `any Subscription` out and destroys it (~110 instructions
            /// and a retain per value, issue 32). Set and cleared with
            /// every write of `upstream`.
            @usableFromInline var upstreamFlows = false
            @usableFromInline var trigger: Link = .awaiting
            /// An element is being delivered downstream.
            @usableFromInline var delivering = false
            /// The trigger fired during a delivery: finish after it.
            @usableFromInline var finishAfterDelivery = false

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
            let downstream = state.withLock { s -> Downstream? in
                guard case .awaiting = s.upstream, s.downstream != nil else {
                    return nil
                }
                s.upstream = .subscribed(subscription)
                s.upstreamFlows = true
                return s.downstream
            }
            guard let downstream = downstream else {
                // A second subscription, or the trigger fired / we were
                // cancelled before this one came.
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            // Combine ignores a value before the subscription or after the end.
            let downstream = state.withLock { s -> Downstream? in
                guard s.upstreamFlows else { return nil }
                s.delivering = true
                return s.downstream
            }
            guard let downstream = downstream else { return .none }
            let more = downstream.receive(input)
            let finish = state.withLock { s -> Bool in
                s.delivering = false
                guard s.finishAfterDelivery else { return false }
                s.finishAfterDelivery = false
                s.downstream = nil
                return true
            }
            if finish {
                downstream.receive(completion: .finished)
                return .none
            }
            return more
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let taken = state.withLock { s -> ((any Subscription)?, Downstream?) in
                let wasSubscribed = s.upstream.subscription != nil
                s.upstream = .terminal
                s.upstreamFlows = false
                let trigger = s.trigger.subscription
                s.trigger = .terminal
                // Before its subscription the downstream hears nothing, as
                // in Combine; it is released either way.
                let downstream = wasSubscribed ? s.downstream : nil
                s.downstream = nil
                return (trigger, downstream)
            }
            let (trigger, downstream) = taken
            trigger?.cancel()
            downstream?.receive(completion: completion)
        }

        // MARK: Trigger

        @inlinable
        func triggerReceive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaiting = s.trigger else { return false }
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
            typealias Taken = ((any Subscription)?, any Subscription, Downstream?)
            let taken = state.withLock { s -> Taken? in
                guard case .subscribed(let trigger) = s.trigger else { return nil }
                s.trigger = .terminal
                let upstream = s.upstream.subscription
                s.upstream = .terminal
                s.upstreamFlows = false
                var downstream: Downstream?
                if s.delivering {
                    s.finishAfterDelivery = true
                } else {
                    downstream = s.downstream
                    s.downstream = nil
                }
                return (upstream, trigger, downstream)
            }
            guard let (upstream, trigger, downstream) = taken else { return }
            upstream?.cancel()
            // Its one element arrived: nothing more is wanted from it.
            trigger.cancel()
            downstream?.receive(completion: .finished)
        }

        @inlinable
        func triggerCompleted(_ completion: Subscribers.Completion<Other.Failure>) {
            // A trigger that ends without an element changes nothing: the
            // upstream keeps flowing. Its subscription is dropped, not
            // cancelled (it has ended).
            state.withLock { s in
                if case .subscribed = s.trigger { s.trigger = .terminal }
            }
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            // Combine accepts `.none` here and forwards it.
            let upstream = state.withLock { $0.upstream.subscription }
            upstream?.request(demand)
        }

        @inlinable
        func cancel() {
            let links = state.withLock { s -> ((any Subscription)?, (any Subscription)?) in
                let links = (s.upstream.subscription, s.trigger.subscription)
                s.upstream = .terminal
                s.upstreamFlows = false
                s.trigger = .terminal
                s.downstream = nil
                s.finishAfterDelivery = false
                return links
            }
            links.0?.cancel()
            links.1?.cancel()
        }
    }
}
