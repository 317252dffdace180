import Synchronization

extension Publisher {
    /// Handles errors from an upstream publisher by either replacing it with
    /// another publisher or throwing a new error.
    ///
    /// Like ``catch(_:)``: on failure the handler's publisher is subscribed
    /// and receives the demand not yet satisfied. If the handler throws, the
    /// thrown error fails the downstream. The failure type becomes `any Error`.
    ///
    /// ```swift
    /// enum SimpleError: Error { case recoverable, fatal }
    /// let c = Fail<Int, SimpleError>(error: .recoverable)
    ///     .tryCatch { error -> Just<Int> in
    ///         guard error == .recoverable else { throw error }
    ///         return Just(0)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "0", "finished"
    /// ```
    @inlinable
    public func tryCatch<NewPublisher: Publisher>(
        _ handler: @escaping (Failure) throws -> NewPublisher
    ) -> Publishers.TryCatch<Self, NewPublisher> where NewPublisher.Output == Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that handles errors from an upstream publisher by
    /// replacing the failed publisher with another publisher or producing a
    /// new error.
    ///
    /// Its failure type is `any Error`: the handler may throw, and the
    /// replacement's failures are passed on as they are.
    ///
    /// Threading: the handler runs on the thread the upstream fails on;
    /// `request` and `cancel` may come from any thread.
    ///
    /// ```swift
    /// let recovered = Publishers.TryCatch(upstream: failing) { _ in Just(0) }
    /// ```
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
        where Upstream.Output == NewPublisher.Output
    {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: thrown by the handler or sent by the replacement.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that accepts the upstream failure as input and either
        /// returns a publisher to replace the upstream publisher or throws.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that replaces a failed `upstream` with the
        /// publisher `handler` returns, or fails with the error it throws.
        @inlinable
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            upstream.receive(subscriber: Inner(downstream: subscriber, handler: handler).upstreamSide)
        }
    }
}

extension Publishers.TryCatch {
    /// One subscription: first to the upstream, then, after a failure, to
    /// the handler's publisher. The downstream sees one subscription,
    /// `TryCatch`, throughout.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == any Error
    {
        /// Where the values come from. A trivial enum: checking it on the
        /// per-value path copies nothing.
        @usableFromInline
        internal enum Phase: UInt8 {
            case awaitingUpstream
            case upstream
            /// The upstream failed; the replacement is being subscribed.
            case awaitingReplacement
            case replacement
            case terminal
        }

        @usableFromInline
        internal struct State {
            @usableFromInline var phase: Phase = .awaitingUpstream
            /// The upstream's subscription, then the replacement's.
            @usableFromInline var subscription: (any Subscription)?
            /// Requested by the downstream and not yet delivered by the
            /// upstream; handed to the replacement.
            @usableFromInline var demand: Subscribers.Demand = .none
            @inlinable init() {}
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let handler: (Upstream.Failure) throws -> NewPublisher
        @usableFromInline let state = Locked(State())

        @inlinable
        init(downstream: Downstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.downstream = downstream
            self.handler = handler
        }

        @inlinable var upstreamSide: UpstreamSide { UpstreamSide(inner: self) }

        // MARK: Upstream side
        //
        // Combine's rules, which this follows: the upstream's values are
        // forwarded in every phase but must be within the demand requested
        // (a value beyond it traps, also before the subscription); a
        // failure from an upstream that already failed (or has not sent its
        // subscription) traps; `.finished` out of turn is ignored. A cancel
        // while the replacement is being subscribed is ignored: the
        // replacement still gets the demand and its completion is forwarded.

        @inlinable
        func receiveUpstream(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard s.phase == .awaitingUpstream else { return false }
                s.phase = .upstream
                s.subscription = subscription
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receiveUpstream(_ input: Output) -> Subscribers.Demand {
            let withinDemand = state.withLock { s -> Bool in
                if s.demand.isUnlimited { return true }
                guard s.demand.rawValue > 0 else { return false }
                s.demand = Subscribers.Demand(rawValue: s.demand.rawValue - 1)
                return true
            }
            if !withinDemand { violation("TryCatch received a value beyond the demand requested") }
            let more = downstream.receive(input)
            if more != .none {
                state.withLock { $0.demand += more }
            }
            return more
        }

        @inlinable
        func receiveUpstream(completion: Subscribers.Completion<Upstream.Failure>) {
            // 0: ignore, 1: deliver or recover, 2: contract violation.
            let action = state.withLock { s -> Int in
                switch (s.phase, completion) {
                case (.upstream, .finished):
                    s.phase = .terminal
                case (.upstream, .failure):
                    s.phase = .awaitingReplacement
                case (.terminal, _), (_, .finished):
                    return 0
                case (.awaitingUpstream, .failure), (.awaitingReplacement, .failure), (.replacement, .failure):
                    return 2
                }
                s.subscription = nil
                return 1
            }
            if action == 2 { violation("TryCatch's upstream failed twice, or before sending its subscription") }
            guard action == 1 else { return }
            switch completion {
            case .finished:
                downstream.receive(completion: .finished)
            case .failure(let error):
                let replacement: NewPublisher
                do {
                    replacement = try handler(error)
                } catch {
                    let wasWaiting = state.withLock { s -> Bool in
                        guard s.phase == .awaitingReplacement else { return false }
                        s.phase = .terminal
                        return true
                    }
                    if wasWaiting { downstream.receive(completion: .failure(error)) }
                    return
                }
                replacement.receive(subscriber: ReplacementSide(inner: self))
            }
        }

        // MARK: Replacement side

        @inlinable
        func receiveReplacement(subscription: any Subscription) {
            let demand = state.withLock { s -> Subscribers.Demand? in
                guard s.phase == .awaitingReplacement else { return nil }
                s.phase = .replacement
                s.subscription = subscription
                return s.demand
            }
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand != .none { subscription.request(demand) }
        }

        /// Forwarded whatever the phase, as Combine does.
        @inlinable
        func receiveReplacement(_ input: Output) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        func receiveReplacement(completion: Subscribers.Completion<NewPublisher.Failure>) {
            let wasActive = state.withLock { s -> Bool in
                guard s.phase == .replacement else { return false }
                s.phase = .terminal
                s.subscription = nil
                return true
            }
            guard wasActive else { return }
            switch completion {
            case .finished: downstream.receive(completion: .finished)
            case .failure(let error): downstream.receive(completion: .failure(error))
            }
        }

        // MARK: Subscription

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let target = state.withLock { s -> (any Subscription)? in
                switch s.phase {
                case .awaitingUpstream:
                    // Unreachable: the downstream gets this subscription
                    // only once the upstream's has arrived.
                    return nil
                case .upstream:
                    s.demand += demand
                    return s.subscription
                case .awaitingReplacement:
                    s.demand += demand
                    return nil
                case .replacement:
                    return s.subscription
                case .terminal:
                    return nil
                }
            }
            target?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let target = state.withLock { s -> (any Subscription)? in
                switch s.phase {
                case .upstream, .replacement:
                    let target = s.subscription
                    s.phase = .terminal
                    s.subscription = nil
                    return target
                case .awaitingUpstream, .awaitingReplacement, .terminal:
                    return nil
                }
            }
            target?.cancel()
        }

        @usableFromInline var description: String { "TryCatch" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["downstream": downstream, "demand": state.withLock { $0.demand }])
        }
        @usableFromInline var playgroundDescription: Any { description }

        /// The subscriber given to the upstream.
        @usableFromInline
        internal struct UpstreamSide: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            @usableFromInline typealias Input = Output
            @usableFromInline typealias Failure = Upstream.Failure
            @usableFromInline let inner: Inner

            @inlinable init(inner: Inner) { self.inner = inner }
            @inlinable var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
            @inlinable func receive(subscription: any Subscription) { inner.receiveUpstream(subscription: subscription) }
            @inlinable func receive(_ input: Output) -> Subscribers.Demand { inner.receiveUpstream(input) }
            @inlinable func receive(completion: Subscribers.Completion<Upstream.Failure>) {
                inner.receiveUpstream(completion: completion)
            }
            @usableFromInline var description: String { "TryCatch" }
            @usableFromInline var customMirror: Mirror { inner.customMirror }
            @usableFromInline var playgroundDescription: Any { description }
        }

        /// The subscriber given to the handler's publisher.
        @usableFromInline
        internal struct ReplacementSide: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            @usableFromInline typealias Input = Output
            @usableFromInline typealias Failure = NewPublisher.Failure
            @usableFromInline let inner: Inner

            @inlinable init(inner: Inner) { self.inner = inner }
            @inlinable var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
            @inlinable func receive(subscription: any Subscription) { inner.receiveReplacement(subscription: subscription) }
            @inlinable func receive(_ input: Output) -> Subscribers.Demand { inner.receiveReplacement(input) }
            @inlinable func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
                inner.receiveReplacement(completion: completion)
            }
            @usableFromInline var description: String { "TryCatch" }
            @usableFromInline var customMirror: Mirror { inner.customMirror }
            @usableFromInline var playgroundDescription: Any { description }
        }
    }
}
