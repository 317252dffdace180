extension Publisher {
    /// Publishes the first element of a stream to satisfy a predicate
    /// closure, then finishes.
    ///
    /// Requests `.unlimited` from the upstream and cancels it as soon as a
    /// matching element arrives. The element waits for the downstream's
    /// first request; `.finished` follows it. If nothing matches, only
    /// `.finished` is published (also on the first request).
    ///
    /// ```swift
    /// let c = [1, 4, 6].publisher.first { $0 % 2 == 0 }.sink { print($0) }
    /// // Prints: "4"
    /// ```
    @inlinable
    public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
        Publishers.FirstWhere(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Keeps the value if it satisfies `predicate`, at once, as Combine does
    /// for `Just`.
    ///
    /// ```swift
    /// Just(2).first { $0 > 5 } // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }
}

extension Optional.Publisher {
    /// Keeps the value, if any, if it satisfies `predicate`, at once.
    ///
    /// ```swift
    /// Optional(2).publisher.first { $0 > 1 } // Optional(2).publisher
    /// ```
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }
}

extension Publishers {
    /// A publisher that only publishes the first element of a stream to
    /// satisfy a predicate closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `TryFirst`,
    /// the name Combine gives it.
    ///
    /// ```swift
    /// let firstEven = Publishers.FirstWhere(upstream: [1, 2].publisher) { $0 % 2 == 0 }
    /// ```
    public struct FirstWhere<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to publish an element.
        public let predicate: (Output) -> Bool

        /// Creates a publisher of the first element of `upstream` that
        /// satisfies `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes the subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: nil))
        }
    }
}

extension Publishers.FirstWhere {
    /// Keeps the first matching element and stops.
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
        static var name: String { "TryFirst" }

        @inlinable
        func reduce(_ first: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            guard predicate(input) else { return .more }
            first = input
            return .done
        }

        @inlinable
        func result(_ first: Upstream.Output?) -> Upstream.Output? { first }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
