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
            upstream.receive(subscriber: Inner(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop {
    /// Counts down the elements to drop; asks the upstream for them once.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            /// Checked per value instead of the existential beside it.
            @usableFromInline var subscribed = false
            @usableFromInline var done = false
            @usableFromInline var upstream: (any Subscription)?
            /// Elements still to drop.
            @usableFromInline var remaining: Int
            /// The elements to drop have been requested upstream.
            @usableFromInline var requestedDropped = false

            @inlinable
            init(remaining: Int) {
                self.remaining = remaining
            }
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let state: Mutex<UncheckedSendable<State>>

        @inlinable
        init(downstream: Downstream, count: Int) {
            self.downstream = downstream
            state = Mutex(UncheckedSendable(State(remaining: count)))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard !s.value.subscribed, !s.value.done else { return false }
                s.value.subscribed = true
                s.value.upstream = subscription
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
            // Nothing requested yet: fetch the elements to drop anyway, as
            // Combine does, so they are gone before the first request.
            let toDrop = state.withLock { s -> Int in
                guard s.value.subscribed, !s.value.done, !s.value.requestedDropped else { return 0 }
                s.value.requestedDropped = true
                return s.value.remaining
            }
            if toDrop > 0 { subscription.request(.max(toDrop)) }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let forward = state.withLock { s -> Bool? in
                guard s.value.subscribed, !s.value.done else { return nil }
                guard s.value.remaining > 0 else { return true }
                s.value.remaining -= 1
                return false
            }
            // A dropped element was requested on top of the demand.
            guard forward == true else { return .none }
            return downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let active = state.withLock { s -> Bool in
                guard s.value.subscribed, !s.value.done else { return false }
                s.value.done = true
                s.value.upstream = nil
                return true
            }
            if active { downstream.receive(completion: completion) }
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let forward = state.withLock { s -> UncheckedSendable<((any Subscription)?, Subscribers.Demand)> in
                guard let upstream = s.value.upstream else { return UncheckedSendable((nil, .none)) }
                var total = demand
                if !s.value.requestedDropped {
                    s.value.requestedDropped = true
                    total += s.value.remaining
                }
                return UncheckedSendable((upstream, total))
            }
            let (upstream, total) = forward.value
            upstream?.request(total)
        }

        @inlinable
        func cancel() {
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                s.value.done = true
                let upstream = s.value.upstream
                s.value.upstream = nil
                return UncheckedSendable(upstream)
            }
            upstream.value?.cancel()
        }

        @usableFromInline var description: String { "Drop" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
