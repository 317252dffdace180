extension Publisher {
    /// Publishes the last element of a stream, after the stream finishes.
    ///
    /// Requests `.unlimited` from the upstream. When it finishes, the last
    /// element waits for the downstream's first request; `.finished` follows
    /// it. An empty upstream publishes only `.finished`.
    ///
    /// ```swift
    /// let c = [7, 8, 9].publisher.last().sink { print($0) }
    /// // Prints: "9"
    /// ```
    @inlinable
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }
}

extension Just {
    /// The value is the last element: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).last() // Just(1)
    /// ```
    @inlinable
    public func last() -> Just<Output> {
        self
    }
}

extension Optional.Publisher {
    /// The value, if any, is the last element: the same publisher.
    ///
    /// ```swift
    /// Optional(1).publisher.last() // Optional(1).publisher
    /// ```
    @inlinable
    public func last() -> Optional<Output>.Publisher {
        self
    }
}

extension Publishers {
    /// A publisher that waits until after the stream finishes, and then
    /// publishes the last element of the stream.
    ///
    /// Threading: the element is delivered on the thread that delivers the
    /// upstream's completion, or on the requesting thread if the request
    /// comes later. The subscription describes itself as `Last`.
    ///
    /// ```swift
    /// let tail = Publishers.Last(upstream: [1, 2].publisher)
    /// ```
    public struct Last<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher of the last element of `upstream`.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes a `Last` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(), initial: nil))
        }
    }
}

extension Publishers.Last: Equatable where Upstream: Equatable {}

extension Publishers.Last {
    /// Remembers the latest element.
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
        static var name: String { "Last" }

        @inlinable
        func reduce(_ last: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            last = input
            return .more
        }

        @inlinable
        func result(_ last: Upstream.Output?) -> Upstream.Output? { last }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
