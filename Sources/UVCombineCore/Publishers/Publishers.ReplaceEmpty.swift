import Synchronization

extension Publisher {
    /// Replaces an empty stream with the provided element.
    ///
    /// If the upstream finishes without publishing anything, the element is
    /// published (waiting for demand if there is none), then `.finished`.
    /// Values, a failure, and a finish after values pass unchanged. Demand
    /// is forwarded to the upstream as requested.
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
            @usableFromInline var receivedValue = false
            @usableFromInline var requested = false

            @inlinable
            init() {}
        }

        @usableFromInline
        internal enum Action {
            case none
            case forward(Subscribers.Completion<Upstream.Failure>)
            case replace
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let output: Upstream.Output
        @usableFromInline let state: Mutex<UncheckedSendable<State>>

        @inlinable
        init(downstream: Downstream, output: Upstream.Output) {
            self.downstream = downstream
            self.output = output
            state = Mutex(UncheckedSendable(State()))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard s.value.phase == .awaitingSubscription else { return false }
                s.value.phase = .subscribed
                s.value.upstream = subscription
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
            let active = state.withLock { s -> Bool in
                guard s.value.phase == .subscribed else { return false }
                s.value.receivedValue = true
                return true
            }
            return active ? downstream.receive(input) : .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            var finished = false
            if case .finished = completion { finished = true }
            let action = state.withLock { s -> Action in
                guard s.value.phase == .subscribed else { return .none }
                s.value.upstream = nil
                if s.value.receivedValue || !finished {
                    s.value.phase = .terminal
                    return .forward(completion)
                }
                if s.value.requested {
                    s.value.phase = .terminal
                    return .replace
                }
                s.value.phase = .owesReplacement
                return .none
            }
            perform(action)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let step = state.withLock { s -> UncheckedSendable<((any Subscription)?, Action)> in
                switch s.value.phase {
                case .awaitingSubscription, .subscribed:
                    s.value.requested = true
                    return UncheckedSendable((s.value.upstream, .none))
                case .owesReplacement:
                    s.value.phase = .terminal
                    return UncheckedSendable((nil, .replace))
                case .terminal:
                    return UncheckedSendable((nil, .none))
                }
            }
            let (upstream, action) = step.value
            upstream?.request(demand)
            perform(action)
        }

        @inlinable
        func cancel() {
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                s.value.phase = .terminal
                let upstream = s.value.upstream
                s.value.upstream = nil
                return UncheckedSendable(upstream)
            }
            upstream.value?.cancel()
        }

        @inlinable
        func perform(_ action: Action) {
            switch action {
            case .none:
                break
            case .forward(let completion):
                downstream.receive(completion: completion)
            case .replace:
                _ = downstream.receive(output)
                downstream.receive(completion: .finished)
            }
        }

        @usableFromInline var description: String { "ReplaceEmpty" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["downstream": downstream, "output": output])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
