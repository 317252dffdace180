extension Publisher where Output: Comparable {
    /// Publishes the minimum value received from the upstream publisher,
    /// after it finishes.
    ///
    /// Requests `.unlimited` from the upstream. When it finishes, the
    /// minimum waits for the downstream's first request; `.finished` follows
    /// it. Of equal minima the first is kept. An empty upstream publishes
    /// only `.finished`.
    ///
    /// ```swift
    /// let c = [3, 1, 2].publisher.min().sink { print($0) }
    /// // Prints: "1"
    /// ```
    @inlinable
    public func min() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: >)
    }

    /// Publishes the maximum value received from the upstream publisher,
    /// after it finishes.
    ///
    /// Behaves as `min()`, keeping the first of equal maxima.
    ///
    /// ```swift
    /// let c = [3, 1, 2].publisher.max().sink { print($0) }
    /// // Prints: "3"
    /// ```
    @inlinable
    public func max() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: <)
    }
}

extension Publisher {
    /// Publishes the minimum value received from the upstream publisher,
    /// using the provided ordering closure.
    ///
    /// `areInIncreasingOrder` returns `true` if its first argument should be
    /// ordered before its second. Otherwise as `min()`.
    ///
    /// ```swift
    /// let c = ["ccc", "a", "bb"].publisher.min { $0.count < $1.count }.sink { print($0) }
    /// // Prints: "a"
    /// ```
    @inlinable
    public func min(
        by areInIncreasingOrder: @escaping (Output, Output) -> Bool
    ) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self) { areInIncreasingOrder($1, $0) }
    }

    /// Publishes the maximum value received from the upstream publisher,
    /// using the provided ordering closure.
    ///
    /// `areInIncreasingOrder` returns `true` if its first argument should be
    /// ordered before its second. Otherwise as `max()`.
    ///
    /// ```swift
    /// let c = ["ccc", "a", "bb"].publisher.max { $0.count < $1.count }.sink { print($0) }
    /// // Prints: "ccc"
    /// ```
    @inlinable
    public func max(
        by areInIncreasingOrder: @escaping (Output, Output) -> Bool
    ) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

extension Just where Output: Comparable {
    /// The only value is the minimum: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(3).min() // Just(3)
    /// ```
    @inlinable
    public func min() -> Just<Output> {
        self
    }

    /// The only value is the maximum: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(3).max() // Just(3)
    /// ```
    @inlinable
    public func max() -> Just<Output> {
        self
    }
}

extension Just {
    /// The only value is the minimum: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just("a").min { $0 < $1 } // Just("a")
    /// ```
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// The only value is the maximum: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just("a").max { $0 < $1 } // Just("a")
    /// ```
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// The value, if any, is the minimum: the same publisher.
    ///
    /// ```swift
    /// Optional(3).publisher.min() // Optional(3).publisher
    /// ```
    @inlinable
    public func min() -> Optional<Wrapped>.Publisher {
        self
    }

    /// The value, if any, is the maximum: the same publisher.
    ///
    /// ```swift
    /// Optional(3).publisher.max() // Optional(3).publisher
    /// ```
    @inlinable
    public func max() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher {
    /// The value, if any, is the minimum: the same publisher.
    ///
    /// ```swift
    /// Optional("a").publisher.min { $0 < $1 } // Optional("a").publisher
    /// ```
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// The value, if any, is the maximum: the same publisher.
    ///
    /// ```swift
    /// Optional("a").publisher.max { $0 < $1 } // Optional("a").publisher
    /// ```
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }
}

extension Publishers {
    /// A publisher that republishes items from another publisher only if
    /// each new item is in increasing order from the previously-published
    /// item; it publishes the final such item (the maximum under the
    /// ordering) when the upstream finishes.
    ///
    /// `min` operators store the ordering reversed, so both are a maximum
    /// search. Threading: the closure runs on the thread the upstream
    /// delivers on, outside any lock. The subscription describes itself as
    /// `Comparison`.
    ///
    /// ```swift
    /// let largest = Publishers.Comparison(upstream: [1, 3].publisher, areInIncreasingOrder: <)
    /// ```
    public struct Comparison<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns `true` if they
        /// are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher of the greatest element of `upstream` under
        /// `areInIncreasingOrder`.
        @inlinable
        public init(upstream: Upstream,
                    areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Subscribes a `Comparison` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(
                downstream: subscriber, logic: Logic(areInIncreasingOrder: areInIncreasingOrder), initial: nil))
        }
    }
}

extension Publishers.Comparison {
    /// Keeps the greatest element so far.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Upstream.Output?
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        @inlinable
        init(areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable
        static var name: String { "Comparison" }

        @inlinable
        func reduce(_ best: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            if let current = best {
                if areInIncreasingOrder(current, input) { best = input }
            } else {
                best = input
            }
            return .more
        }

        @inlinable
        func result(_ best: Upstream.Output?) -> Upstream.Output? { best }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
