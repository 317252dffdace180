import Synchronization

extension Publisher {
    /// Collects up to the specified number of elements, and then emits a
    /// single array of the collection.
    ///
    /// Each request for `n` arrays asks the upstream for `n * count`
    /// elements. When the upstream finishes, a partial last array is
    /// published before `.finished`; on failure the partial array is
    /// discarded. A count below one traps when subscribing.
    ///
    /// ```swift
    /// let c = (1...5).publisher.collect(2).sink { print($0) }
    /// // Prints: "[1, 2] [3, 4] [5]"
    /// ```
    @inlinable
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}

extension Publishers {
    /// A publisher that buffers a maximum number of items.
    ///
    /// Threading: arrays are published on the upstream's thread; `request`
    /// and `cancel` may come from any thread. The subscription describes
    /// itself as `CollectByCount`.
    ///
    /// ```swift
    /// let pairs = Publishers.CollectByCount(upstream: (1...4).publisher, count: 2)
    /// ```
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        /// Arrays of at most `count` upstream elements.
        public typealias Output = [Upstream.Output]
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of received elements to buffer before
        /// publishing.
        public let count: Int

        /// Creates a publisher that groups the elements of `upstream` by
        /// `count`.
        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Subscribes a `CollectByCount` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            if count < 1 { violation("collect(_:): count must be at least 1") }
            upstream.receive(subscriber: Inner(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

extension Publishers.CollectByCount {
    /// Fills one array at a time; demand is scaled by `count`.
    ///
    /// Combine's element-wise rules: values and a completion that arrive
    /// before the subscription are not gated (values are collected, the
    /// completion is forwarded with the partial array); a cancel before the
    /// subscription neither requests nor cancels (the subscription is still
    /// accepted when it comes); values after the end are dropped; a second
    /// subscription is cancelled. The downstream and the upstream
    /// subscription are released on completion and on cancel.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var subscribed = false
            /// Completed or cancelled (after the subscription).
            @usableFromInline var done = false
            @usableFromInline var upstream: (any Subscription)?
            /// Released on completion and on cancel.
            @usableFromInline var downstream: Downstream?
            @usableFromInline var buffer: [Upstream.Output] = []

            @inlinable
            init(downstream: Downstream) {
                self.downstream = downstream
            }
        }

        @usableFromInline let count: Int
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, count: Int) {
            self.count = count
            state = Locked(State(downstream: downstream))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Downstream? in
                guard !s.subscribed, !s.done else { return nil }
                s.subscribed = true
                s.upstream = subscription
                return s.downstream
            }
            if let downstream = accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let full = state.withLock { s -> ([Upstream.Output], Downstream)? in
                guard !s.done else { return nil }
                if s.buffer.isEmpty { s.buffer.reserveCapacity(count) }
                s.buffer.append(input)
                guard s.buffer.count == count, let downstream = s.downstream else {
                    return nil
                }
                let batch = s.buffer
                s.buffer = []
                return (batch, downstream)
            }
            guard let (batch, downstream) = full else { return .none }
            return downstream.receive(batch) * count
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let partial = state.withLock { s -> ([Upstream.Output], Downstream)? in
                guard !s.done, let downstream = s.downstream.take() else { return nil }
                s.done = true
                s.upstream = nil
                let partial = s.buffer
                s.buffer = []
                return (partial, downstream)
            }
            guard let (partial, downstream) = partial else { return }
            if case .finished = completion, !partial.isEmpty {
                _ = downstream.receive(partial)
            }
            downstream.receive(completion: completion)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let upstream = state.withLock { $0.upstream }
            upstream?.request(demand * count)
        }

        @inlinable
        func cancel() {
            let released = state.withLock { s -> ((any Subscription)?, Downstream?) in
                // Before the subscription Combine neither requests nor
                // cancels: the cancel is ignored.
                guard s.subscribed, !s.done else { return (nil, nil) }
                s.done = true
                s.buffer = []
                let upstream = s.upstream
                s.upstream = nil
                return (upstream, s.downstream.take())
            }
            // The downstream is released here, outside the lock.
            released.0?.cancel()
        }

        @usableFromInline var description: String { "CollectByCount" }
        /// Combine's children: `downstream`, `upstreamSubscription`,
        /// `buffer`, `count`.
        @usableFromInline var customMirror: Mirror {
            let snapshot = state.withLock { s in
                (s.downstream, s.upstream, s.buffer)
            }
            let (downstream, upstream, buffer) = snapshot
            let children: KeyValuePairs<String, Any> = [
                "downstream": downstream.map { $0 as Any } ?? (downstream as Any),
                "upstreamSubscription": upstream as Any,
                "buffer": buffer,
                "count": count,
            ]
            return Mirror(self, children: children)
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
