import Synchronization

extension Publisher {
    /// Attempts to recreate a failed subscription with the upstream publisher
    /// up to the number of times you specify.
    ///
    /// The upstream is subscribed at most `retries + 1` times. Each new
    /// subscription is asked for the demand the downstream requested and did
    /// not receive yet. `.finished` passes through; the failure after the
    /// last attempt passes through. The downstream sees one subscription,
    /// `Retry`; cancelling it cancels the current upstream subscription.
    ///
    /// ```swift
    /// let c = session.dataTaskPublisher(for: url)
    ///     .retry(3)
    ///     .map(\.data)
    ///     .catch { _ in Just(Data()) }
    ///     .sink { print("\($0.count) bytes") }
    /// ```
    @inlinable
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}

extension Publishers {
    /// A publisher that attempts to recreate its subscription to a failed
    /// upstream publisher.
    ///
    /// Threading: a failure re-subscribes on the thread it arrives on. An
    /// upstream that fails synchronously while being subscribed does not
    /// recurse: the attempts run in a loop. `request` and `cancel` may come
    /// from any thread.
    ///
    /// ```swift
    /// let retrying = Publishers.Retry(upstream: flaky, retries: 2)
    /// ```
    public struct Retry<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives its elements.
        public let upstream: Upstream

        /// The maximum number of retry attempts to perform; `nil` (or a
        /// negative number) retries without limit.
        public let retries: Int?

        /// Creates a publisher that re-subscribes to a failed `upstream` up
        /// to `retries` times (`nil`: without limit).
        ///
        /// ```swift
        /// let forever = Publishers.Retry(upstream: flaky, retries: nil)
        /// ```
        @inlinable
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let remaining = retries.flatMap { $0 >= 0 ? $0 : nil }
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            upstream.receive(subscriber: Inner(upstream: upstream, remaining: remaining, downstream: subscriber))
        }
    }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

extension Publishers.Retry {
    /// Subscriber to each upstream attempt in turn, and the one subscription
    /// the downstream sees.
    ///
    /// Combine's rules, which this follows: a value beyond the demand
    /// requested traps (also one before any subscription); a completion is
    /// handled also before the first subscription (`.finished` is forwarded,
    /// a failure retries); requests (`.none` included) made before the
    /// subscription are kept for it; a cancel before it cancels the
    /// subscription when it arrives; after completion or cancel every event
    /// is ignored. Completion and cancel release the downstream, the upstream
    /// publisher and the current subscription.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        @usableFromInline typealias Input = Output

        @usableFromInline
        internal struct State {
            /// The publisher to subscribe again and the downstream; `nil`
            /// once completed or cancelled.
            @usableFromInline var ready: (upstream: Upstream, downstream: Downstream)?
            /// The current attempt's subscription.
            @usableFromInline var subscription: (any Subscription)?
            /// Requested by the downstream and not yet delivered; carried
            /// over to every new attempt.
            @usableFromInline var demand: Subscribers.Demand = .none
            /// Retries left; `nil` for no limit.
            @usableFromInline var remaining: Int?
            @usableFromInline var downstreamHasSubscription = false
            /// A thread is inside `upstream.receive(subscriber: self)`; a failure
            /// arriving meanwhile asks it to go round again.
            @usableFromInline var subscribing = false
            @usableFromInline var resubscribeRequested = false

            @inlinable
            init(upstream: Upstream, downstream: Downstream, remaining: Int?) {
                self.ready = (upstream, downstream)
                self.remaining = remaining
            }
        }

        /// What a completion leads to, decided under the lock.
        @usableFromInline
        internal enum CompletionStep {
            case ignore, complete(Downstream), resubscribe(Upstream), deferToRunningLoop
        }

        @usableFromInline let state: Locked<State>

        @inlinable
        init(upstream: Upstream, remaining: Int?, downstream: Downstream) {
            state = Locked(State(upstream: upstream, downstream: downstream, remaining: remaining))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let decision = state.withLock { s -> (downstream: Downstream?, demand: Subscribers.Demand)? in
                guard let ready = s.ready, s.subscription == nil else { return nil }
                s.subscription = subscription
                let first = !s.downstreamHasSubscription
                s.downstreamHasSubscription = true
                return (first ? ready.downstream : nil, s.demand)
            }
            guard let decision = decision else {
                subscription.cancel()
                return
            }
            decision.downstream?.receive(subscription: self)
            if decision.demand != .none { subscription.request(decision.demand) }
        }

        @inlinable
        func receive(_ input: Output) -> Subscribers.Demand {
            // nil: ignore; .some(nil): beyond demand.
            let target = state.withLock { s -> Downstream?? in
                guard let ready = s.ready else { return nil }
                if !s.demand.isUnlimited {
                    guard s.demand.rawValue > 0 else { return .some(nil) }
                    s.demand = Subscribers.Demand(rawValue: s.demand.rawValue - 1)
                }
                return .some(ready.downstream)
            }
            guard let target = target else { return .none }
            guard let downstream = target else { violation("Retry received a value beyond the demand requested") }
            let more = downstream.receive(input)
            guard more != .none else { return .none }
            // As in Combine: more demand is recorded (for a later attempt)
            // and requested from the current one.
            let current = state.withLock { s -> (any Subscription)? in
                guard s.ready != nil else { return nil }
                s.demand += more
                return s.subscription
            }
            current?.request(more)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let step = state.withLock { s -> CompletionStep in
                guard let ready = s.ready else { return .ignore }
                s.subscription = nil
                if case .failure = completion {
                    var retry = true
                    if let remaining = s.remaining {
                        if remaining > 0 {
                            s.remaining = remaining - 1
                        } else {
                            retry = false
                        }
                    }
                    if retry {
                        if s.subscribing {
                            s.resubscribeRequested = true
                            return .deferToRunningLoop
                        }
                        s.subscribing = true
                        return .resubscribe(ready.upstream)
                    }
                }
                s.ready = nil
                return .complete(ready.downstream)
            }
            switch step {
            case .ignore, .deferToRunningLoop:
                return
            case .complete(let downstream):
                downstream.receive(completion: completion)
            case .resubscribe(let upstream):
                resubscribeLoop(upstream)
            }
        }

        /// Subscribes again until an attempt does not fail synchronously.
        @inlinable
        func resubscribeLoop(_ upstream: Upstream) {
            var again = true
            while again {
                upstream.receive(subscriber: self)
                again = state.withLock { s -> Bool in
                    if s.resubscribeRequested, s.ready != nil {
                        s.resubscribeRequested = false
                        return true
                    }
                    s.subscribing = false
                    s.resubscribeRequested = false
                    return false
                }
            }
        }

        /// Recorded (`.none` included, as Combine accepts it) and forwarded
        /// to the current attempt.
        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            let current = state.withLock { s -> (any Subscription)? in
                guard s.ready != nil else { return nil }
                s.demand += demand
                return s.subscription
            }
            current?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let current = state.withLock { s -> (any Subscription)? in
                guard s.ready != nil else { return nil }
                let current = s.subscription
                s.ready = nil
                s.subscription = nil
                return current
            }
            current?.cancel()
        }

        @usableFromInline var description: String { "Retry" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
