import Synchronization

extension Publisher {
    /// Replaces an empty stream with the provided element.
    ///
    /// If the upstream finishes without publishing anything, the element is
    /// published (waiting for demand if there is none), then `.finished`.
    /// Values, a failure, and a finish after values pass unchanged. As in
    /// Combine, the upstream is asked for `.unlimited` once the downstream
    /// has the subscription, and the downstream's requests are forwarded
    /// too.
    ///
    /// ```swift
    /// let c = Empty<Int, Never>().replaceEmpty(with: 0).sink { print($0) }
    /// // Prints: "0"
    /// ```
    @inlinable
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }
}

extension Just {
    /// `Just` is never empty: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).replaceEmpty(with: 0) // Just(1)
    /// ```
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> {
        self
    }
}

extension Optional.Publisher {
    /// The value, or the replacement for `nil`, at once.
    ///
    /// ```swift
    /// Optional<Int>.none.publisher.replaceEmpty(with: 0) // Just(0)
    /// ```
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> {
        Just<Output>(self.output ?? output)
    }
}

extension Publishers {
    /// A publisher that replaces an empty stream with a provided element.
    ///
    /// Threading: values pass on the upstream's thread; the replacement is
    /// published on the thread that delivers the completion, or on the
    /// requesting thread when there was no demand. The subscription
    /// describes itself as `ReplaceEmpty`.
    ///
    /// ```swift
    /// let orDefault = Publishers.ReplaceEmpty(upstream: results, output: [])
    /// ```
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The element to deliver when the upstream publisher finishes
        /// without delivering any elements.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that publishes `output` if `upstream` turns
        /// out to be empty.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Subscribes a `ReplaceEmpty` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}

extension Publishers.ReplaceEmpty {
    /// Remembers whether anything was published and whether the downstream
    /// has asked for anything, so the replacement respects demand.
    ///
    /// As Combine: after handing itself to the downstream it requests
    /// `.unlimited` from the upstream, and forwards every request on top;
    /// a cancel before the upstream's subscription is ignored (the
    /// subscription is still accepted and asked for `.unlimited`); events
    /// before the subscription and after the end are ignored; a second
    /// subscription is cancelled. The downstream and the upstream
    /// subscription are released on completion and on cancel.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal enum Phase: UInt8 {
            case awaitingSubscription
            case subscribed
            /// The upstream finished empty without demand: the replacement
            /// waits for the next request.
            case owesReplacement
            case terminal
        }

        @usableFromInline
        internal struct State {
            @usableFromInline var phase: Phase = .awaitingSubscription
            @usableFromInline var upstream: (any Subscription)?
            /// Released on completion and on cancel.
            @usableFromInline var downstream: Downstream?
            @usableFromInline var receivedValue = false
            @usableFromInline var requested = false

            @inlinable
            init(downstream: Downstream) {
                self.downstream = downstream
            }
        }

        @usableFromInline
        internal enum Action {
            case none
            case forward(Downstream, Subscribers.Completion<Upstream.Failure>)
            case replace(Downstream)
        }

        @usableFromInline let output: Upstream.Output
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, output: Upstream.Output) {
            self.output = output
            state = Locked(State(downstream: downstream))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Downstream? in
                guard s.phase == .awaitingSubscription else { return nil }
                s.phase = .subscribed
                s.upstream = subscription
                return s.downstream
            }
            guard let downstream = accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
            // Combine asks for everything whatever the downstream requested
            // (and forwards the downstream's requests on top).
            subscription.request(.unlimited)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let downstream = state.withLock { s -> Downstream? in
                guard s.phase == .subscribed else { return nil }
                s.receivedValue = true
                return s.downstream
            }
            return downstream?.receive(input) ?? .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            var finished = false
            if case .finished = completion { finished = true }
            let action = state.withLock { s -> Action in
                guard s.phase == .subscribed else { return .none }
                s.upstream = nil
                if s.receivedValue || !finished {
                    s.phase = .terminal
                    guard let downstream = s.downstream.take() else { return .none }
                    return .forward(downstream, completion)
                }
                if s.requested {
                    s.phase = .terminal
                    guard let downstream = s.downstream.take() else { return .none }
                    return .replace(downstream)
                }
                s.phase = .owesReplacement
                return .none
            }
            perform(action)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let step = state.withLock { s -> ((any Subscription)?, Action) in
                switch s.phase {
                case .awaitingSubscription, .subscribed:
                    s.requested = true
                    return (s.upstream, .none)
                case .owesReplacement:
                    s.phase = .terminal
                    guard let downstream = s.downstream.take() else { return (nil, .none) }
                    return (nil, .replace(downstream))
                case .terminal:
                    return (nil, .none)
                }
            }
            let (upstream, action) = step
            upstream?.request(demand)
            perform(action)
        }

        @inlinable
        func cancel() {
            let released = state.withLock { s -> ((any Subscription)?, Downstream?) in
                // Combine ignores a cancel that comes before the subscription.
                guard s.phase != .awaitingSubscription else { return (nil, nil) }
                s.phase = .terminal
                let upstream = s.upstream
                s.upstream = nil
                return (upstream, s.downstream.take())
            }
            // The downstream is released here, outside the lock.
            released.0?.cancel()
        }

        @inlinable
        func perform(_ action: Action) {
            switch action {
            case .none:
                break
            case .forward(let downstream, let completion):
                downstream.receive(completion: completion)
            case .replace(let downstream):
                _ = downstream.receive(output)
                downstream.receive(completion: .finished)
            }
        }

        @usableFromInline var description: String { "ReplaceEmpty" }
        /// Combine's `ReplaceEmpty` reflects no children.
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
