import Synchronization

extension Publisher {
    /// Omits the specified number of elements before republishing
    /// subsequent elements.
    ///
    /// The omitted elements are requested from the upstream on top of the
    /// downstream's demand (with its first request, or right after the
    /// subscription if the downstream asks for nothing then), so downstream
    /// demand counts delivered elements only. A negative count traps when
    /// subscribing.
    ///
    /// ```swift
    /// let c = (1...10).publisher.dropFirst(5).sink { print($0) }
    /// // Prints: "6 7 8 9 10"
    /// ```
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}

extension Just {
    /// Drops the value unless `count` is zero, at once, as Combine does for
    /// `Just`. A negative count traps.
    ///
    /// ```swift
    /// Just(1).dropFirst() // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        if count < 0 { violation("dropFirst(_:): count must not be negative") }
        return Optional<Output>.Publisher(count > 0 ? nil : output)
    }
}

extension Optional.Publisher {
    /// Drops the value, if any, unless `count` is zero, at once. A negative
    /// count traps.
    ///
    /// ```swift
    /// Optional(1).publisher.dropFirst(0) // Optional(1).publisher
    /// ```
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        if count < 0 { violation("dropFirst(_:): count must not be negative") }
        return Optional<Output>.Publisher(count > 0 ? nil : output)
    }
}

extension Publishers {
    /// A publisher that omits a specified number of elements before
    /// republishing later elements.
    ///
    /// Threading: values pass on the upstream's thread; `request` and
    /// `cancel` may come from any thread. The subscription describes itself
    /// as `Drop`.
    ///
    /// ```swift
    /// let rest = Publishers.Drop(upstream: [1, 2, 3].publisher, count: 1)
    /// ```
    public struct Drop<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The number of elements to drop.
        public let count: Int

        /// Creates a publisher that drops the first `count` elements of
        /// `upstream`.
        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Subscribes a `Drop` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            if count < 0 { violation("dropFirst(_:): count must not be negative") }
            // As Combine: the downstream gets the subscription first, and
            // its requests wait for the upstream subscription.
            let inner = Inner(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop {
    /// Counts down the elements to drop; asks the upstream for them together
    /// with the downstream's first demand.
    ///
    /// Combine's rules for events out of order: values and completions are
    /// forwarded whenever they come (before the upstream subscription, after
    /// completion); requests made before the upstream subscription are added
    /// up and requested with the elements to drop when it arrives; a cancel
    /// before it means that subscription is neither requested from nor
    /// cancelled. `request(.none)` traps.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
            /// Elements still to drop.
            @usableFromInline var remaining: Int
            /// Demand requested before the upstream subscription arrived.
            @usableFromInline var pending: Subscribers.Demand = .none
            /// Cancelled while awaiting the upstream subscription.
            @usableFromInline var cancelledBeforeSubscription = false

            @inlinable
            init(remaining: Int) {
                self.remaining = remaining
            }
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, count: Int) {
            self.downstream = downstream
            state = Locked(State(remaining: count))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            // nil: refuse (cancel it); .some(nil): keep it silently (cancelled
            // before it came); .some(demand): request that.
            let action = state.withLock { s -> Subscribers.Demand?? in
                switch s.status {
                case .awaitingSubscription:
                    s.status = .subscribed(subscription)
                    let demand = s.pending + s.remaining
                    s.pending = .none
                    return .some(demand)
                case .terminal where s.cancelledBeforeSubscription:
                    s.cancelledBeforeSubscription = false
                    return .some(nil)
                default:
                    return nil
                }
            }
            guard let demand = action else {
                subscription.cancel()
                return
            }
            if let demand, demand != .none { subscription.request(demand) }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let dropped = state.withLock { s -> Bool in
                guard s.remaining > 0 else { return false }
                s.remaining -= 1
                return true
            }
            // A dropped element was requested on top of the demand.
            if dropped { return .none }
            return downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            state.withLock { s in
                if case .subscribed = s.status { s.status = .terminal }
            }
            downstream.receive(completion: completion)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let upstream = state.withLock { s -> (any Subscription)? in
                switch s.status {
                case .awaitingSubscription:
                    s.pending += demand
                    return nil
                case .subscribed(let upstream), .pendingTerminal(let upstream):
                    return upstream
                case .terminal:
                    return nil
                }
            }
            upstream?.request(demand)
        }

        @inlinable
        func cancel() {
            let upstream = state.withLock { s -> (any Subscription)? in
                if case .awaitingSubscription = s.status { s.cancelledBeforeSubscription = true }
                let upstream = s.status.subscription
                s.status = .terminal
                return upstream
            }
            upstream?.cancel()
        }

        @usableFromInline var description: String { "Drop" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
