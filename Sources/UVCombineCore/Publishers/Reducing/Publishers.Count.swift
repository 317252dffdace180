extension Publisher {
    /// Publishes the number of elements received from the upstream
    /// publisher.
    ///
    /// Requests `.unlimited` from the upstream. When it finishes, the count
    /// waits for the downstream's first request; `.finished` follows it.
    ///
    /// ```swift
    /// let c = ["a", "b", "c"].publisher.count().sink { print($0) }
    /// // Prints: "3"
    /// ```
    @inlinable
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}

extension Just {
    /// `Just` publishes exactly one element.
    ///
    /// ```swift
    /// Just("a").count() // Just(1)
    /// ```
    @inlinable
    public func count() -> Just<Int> {
        Just<Int>(1)
    }
}

extension Optional.Publisher {
    /// Publishes 1 for a value and, as in Combine, nothing for `nil`.
    ///
    /// ```swift
    /// Optional("a").publisher.count() // Optional(1).publisher
    /// ```
    @inlinable
    public func count() -> Optional<Int>.Publisher {
        Optional<Int>.Publisher(output.map { _ in 1 })
    }
}

extension Publishers {
    /// A publisher that publishes the number of elements received from the
    /// upstream publisher.
    ///
    /// Threading: the count is delivered on the thread that delivers the
    /// upstream's completion, or on the requesting thread if the request
    /// comes later. The subscription describes itself as `Count`.
    ///
    /// ```swift
    /// let n = Publishers.Count(upstream: [1, 2].publisher)
    /// ```
    public struct Count<Upstream: Publisher>: Publisher {
        /// The number of elements.
        public typealias Output = Int
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that counts the elements of `upstream`.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes a `Count` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(), initial: 0))
        }
    }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}

extension Publishers.Count {
    /// Adds one per element.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Int
        @usableFromInline typealias Output = Int
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @inlinable
        init() {}

        @inlinable
        static var name: String { "Count" }

        @inlinable
        func reduce(_ count: inout Int, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            count &+= 1
            return .more
        }

        @inlinable
        func result(_ count: Int) -> Int? { count }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
