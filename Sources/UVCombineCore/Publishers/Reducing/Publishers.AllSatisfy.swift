extension Publisher {
    /// Publishes a single Boolean value that indicates whether all received
    /// elements pass a given predicate.
    ///
    /// Requests `.unlimited` from the upstream and cancels it as soon as an
    /// element fails the predicate, publishing `false`; if the upstream
    /// finishes first, publishes `true` (also when it was empty). The answer
    /// waits for the downstream's first request; `.finished` follows it.
    ///
    /// ```swift
    /// let c = [2, 4, 6].publisher.allSatisfy { $0 % 2 == 0 }.sink { print($0) }
    /// // Prints: "true"
    /// ```
    @inlinable
    public func allSatisfy(_ predicate: @escaping (Output) -> Bool) -> Publishers.AllSatisfy<Self> {
        Publishers.AllSatisfy(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Tests the value at once, as Combine does for `Just`.
    ///
    /// ```swift
    /// Just(2).allSatisfy { $0 > 1 } // Just(true)
    /// ```
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }
}

extension Optional.Publisher {
    /// Tests the value, if any, at once; `nil` publishes nothing, as in
    /// Combine.
    ///
    /// ```swift
    /// Optional(2).publisher.allSatisfy { $0 > 1 } // Optional(true).publisher
    /// ```
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }
}

extension Publishers {
    /// A publisher that publishes a single Boolean value that indicates
    /// whether all received elements pass a given predicate.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `AllSatisfy`.
    ///
    /// ```swift
    /// let allEven = Publishers.AllSatisfy(upstream: [2, 4].publisher) { $0 % 2 == 0 }
    /// ```
    public struct AllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every element passed.
        public typealias Output = Bool
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that tests every element of `upstream`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes an `AllSatisfy` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: true))
        }
    }
}

extension Publishers.AllSatisfy {
    /// Stops at the first element that fails.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Bool
        @usableFromInline typealias Output = Bool
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "AllSatisfy" }

        @inlinable
        func reduce(_ all: inout Bool, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            guard !predicate(input) else { return .more }
            all = false
            return .done
        }

        @inlinable
        func result(_ all: Bool) -> Bool? { all }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
