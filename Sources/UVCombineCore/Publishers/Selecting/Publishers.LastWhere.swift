extension Publisher {
    /// Publishes the last element of a stream that satisfies a predicate
    /// closure, after the stream finishes.
    ///
    /// Requests `.unlimited` from the upstream. When it finishes, the last
    /// matching element waits for the downstream's first request;
    /// `.finished` follows it. If nothing matched, only `.finished` is
    /// published.
    ///
    /// ```swift
    /// let c = [2, 4, 5].publisher.last { $0 % 2 == 0 }.sink { print($0) }
    /// // Prints: "4"
    /// ```
    @inlinable
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Keeps the value if it satisfies `predicate`, at once, as Combine does
    /// for `Just`.
    ///
    /// ```swift
    /// Just(2).last { $0 > 5 } // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }
}

extension Optional.Publisher {
    /// Keeps the value, if any, if it satisfies `predicate`, at once.
    ///
    /// ```swift
    /// Optional(2).publisher.last { $0 > 1 } // Optional(2).publisher
    /// ```
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }
}

extension Publishers {
    /// A publisher that waits until after the stream finishes and then
    /// publishes the last element of the stream that satisfies a predicate
    /// closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `LastWhere`.
    ///
    /// ```swift
    /// let lastEven = Publishers.LastWhere(upstream: [2, 3].publisher) { $0 % 2 == 0 }
    /// ```
    public struct LastWhere<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher of the last element of `upstream` that
        /// satisfies `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `LastWhere` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: nil))
        }
    }
}

extension Publishers.LastWhere {
    /// Remembers the latest matching element.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Upstream.Output?
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "LastWhere" }

        @inlinable
        func reduce(_ last: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            if predicate(input) { last = input }
            return .more
        }

        @inlinable
        func result(_ last: Upstream.Output?) -> Upstream.Output? { last }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
