extension Publisher {
    /// Publishes the first element of a stream, then finishes.
    ///
    /// Requests `.unlimited` from the upstream and cancels it as soon as the
    /// first element arrives. The element waits for the downstream's first
    /// request; `.finished` follows it. An empty upstream publishes only
    /// `.finished` (also on the first request).
    ///
    /// ```swift
    /// let c = [7, 8, 9].publisher.first().sink { print($0) }
    /// // Prints: "7"
    /// ```
    @inlinable
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }
}

extension Just {
    /// The value is the first element: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).first() // Just(1)
    /// ```
    @inlinable
    public func first() -> Just<Output> {
        self
    }
}

extension Optional.Publisher {
    /// The value, if any, is the first element: the same publisher.
    ///
    /// ```swift
    /// Optional(1).publisher.first() // Optional(1).publisher
    /// ```
    @inlinable
    public func first() -> Optional<Output>.Publisher {
        self
    }
}

extension Publishers {
    /// A publisher that publishes the first element of a stream, then
    /// finishes.
    ///
    /// Threading: the element is delivered on the upstream's thread, or on
    /// the requesting thread if the request comes later. The subscription
    /// describes itself as `First`.
    ///
    /// ```swift
    /// let head = Publishers.First(upstream: [1, 2].publisher)
    /// ```
    public struct First<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher of the first element of `upstream`.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes a `First` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(), initial: nil))
        }
    }
}

extension Publishers.First: Equatable where Upstream: Equatable {}

extension Publishers.First {
    /// Keeps the first element and stops.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Upstream.Output?
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @inlinable
        init() {}

        @inlinable
        static var name: String { "First" }

        @inlinable
        func reduce(_ first: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            first = input
            return .done
        }

        @inlinable
        func result(_ first: Upstream.Output?) -> Upstream.Output? { first }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
