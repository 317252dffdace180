import Synchronization

extension Publisher {
    /// Replaces any error in the stream with the provided element.
    ///
    /// On failure the element is published, followed by `.finished`. Demand
    /// is honoured: if the downstream has no outstanding demand when the
    /// failure arrives, the element waits for its next request. Values and a
    /// normal finish pass unchanged.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// let c = Fail<Int, Oops>(error: Oops()).replaceError(with: 0)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "0 finished"
    /// ```
    @inlinable
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}

extension Publishers {
    /// A publisher that replaces any error in the stream with a provided
    /// element.
    ///
    /// Threading: values pass on the upstream's thread; the replacement is
    /// published on the thread that delivers the failure, or on the thread
    /// that requests it when there was no demand. The subscription describes
    /// itself as `ReplaceError`.
    ///
    /// ```swift
    /// let safe = Publishers.ReplaceError(upstream: risky, output: -1)
    /// ```
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Errors are replaced, so this publisher never fails.
        public typealias Failure = Never

        /// The element with which to replace errors from the upstream.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces the failure of `upstream` with
        /// `output`.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Subscribes a `ReplaceError` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceError {
    /// Tracks the downstream's outstanding demand, so that the replacement
    /// element is only sent when it was asked for.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Never
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
            /// Requested by the downstream and not yet delivered.
            @usableFromInline var demand: Subscribers.Demand = .none
            /// The upstream failed while the downstream had no demand: the
            /// replacement is owed on the next request.
            @usableFromInline var owesReplacement = false

            @inlinable
            init() {}
        }

        /// What to do once the lock is released.
        @usableFromInline
        internal enum Action {
            case none
            case forward(any Subscription)
            case finish
            case replace
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let output: Upstream.Output
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, output: Upstream.Output) {
            self.downstream = downstream
            self.output = output
            state = Locked(State())
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s.status else { return false }
                s.status = .subscribed(subscription)
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            // 0: ignore (not subscribed, as Combine), 1: deliver, 2: beyond demand.
            let action = state.withLock { s -> Int in
                guard s.status.isSubscribed else { return 0 }
                if s.demand.isUnlimited { return 1 }
                guard s.demand.rawValue > 0 else { return 2 }
                s.demand = Subscribers.Demand(rawValue: s.demand.rawValue - 1)
                return 1
            }
            if action == 2 { violation("ReplaceError received a value beyond the demand requested") }
            guard action == 1 else { return .none }
            let more = downstream.receive(input)
            if more.rawValue > 0 {
                state.withLock { $0.demand += more }
            }
            return more
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let action = state.withLock { s -> Action in
                guard s.status.isSubscribed else { return .none }
                if case .finished = completion {
                    s.status = .terminal
                    return .finish
                }
                if s.demand.rawValue > 0 {
                    s.status = .terminal
                    return .replace
                }
                // No demand: the replacement waits for the next request.
                // Upstream is done, so the link to it is dropped now.
                s.status = .terminal
                s.owesReplacement = true
                return .none
            }
            switch action {
            case .none, .forward:
                break
            case .finish:
                downstream.receive(completion: .finished)
            case .replace:
                _ = downstream.receive(output)
                downstream.receive(completion: .finished)
            }
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let action = state.withLock { s -> Action in
                if s.owesReplacement {
                    s.owesReplacement = false
                    s.status = .terminal
                    return .replace
                }
                guard case .subscribed(let upstream) = s.status else { return .none }
                s.demand += demand
                return .forward(upstream)
            }
            switch action {
            case .none, .finish:
                break
            case .forward(let upstream):
                upstream.request(demand)
            case .replace:
                _ = downstream.receive(output)
                downstream.receive(completion: .finished)
            }
        }

        @inlinable
        func cancel() {
            let upstream = state.withLock { s -> (any Subscription)? in
                s.owesReplacement = false
                // A cancel before the subscription is ignored, as in Combine:
                // the subscription that arrives later is kept untouched.
                guard case .subscribed(let upstream) = s.status else { return nil }
                s.status = .terminal
                return upstream
            }
            upstream?.cancel()
        }

        @usableFromInline var description: String { "ReplaceError" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Just {
    /// `Just` never fails: the result is the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).replaceError(with: 0) // Just(1)
    /// ```
    @inlinable
    public func replaceError(with output: Output) -> Just<Output> {
        self
    }
}
