extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies
    /// the predicate closure.
    ///
    /// Requests `.unlimited` from the upstream and cancels it as soon as a
    /// match arrives, publishing `true`; if the upstream finishes without
    /// one, publishes `false`. The answer waits for the downstream's first
    /// request; `.finished` follows it.
    ///
    /// ```swift
    /// let c = [1, 3, 4].publisher.contains { $0 % 2 == 0 }.sink { print($0) }
    /// // Prints: "true"
    /// ```
    @inlinable
    public func contains(where predicate: @escaping (Output) -> Bool) -> Publishers.ContainsWhere<Self> {
        Publishers.ContainsWhere(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Tests the value at once, as Combine does for `Just`.
    ///
    /// ```swift
    /// Just(2).contains { $0 > 1 } // Just(true)
    /// ```
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }
}

extension Optional.Publisher {
    /// Tests the value, if any, at once; `nil` publishes nothing, as in
    /// Combine.
    ///
    /// ```swift
    /// Optional(2).publisher.contains { $0 > 1 } // Optional(true).publisher
    /// ```
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }
}

extension Publishers {
    /// A publisher that emits a Boolean value upon receiving an element
    /// that satisfies the predicate closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `ContainsWhere`.
    ///
    /// ```swift
    /// let anyEven = Publishers.ContainsWhere(upstream: [1, 2].publisher) { $0 % 2 == 0 }
    /// ```
    public struct ContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether a matching element was seen.
        public typealias Output = Bool
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether the publisher should consider
        /// an element as a match.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that looks for an element of `upstream`
        /// satisfying `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `ContainsWhere` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: false))
        }
    }
}

extension Publishers.ContainsWhere {
    /// Stops at the first matching element.
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
        static var name: String { "ContainsWhere" }

        @inlinable
        func reduce(_ found: inout Bool, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            guard predicate(input) else { return .more }
            found = true
            return .done
        }

        @inlinable
        func result(_ found: Bool) -> Bool? { found }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
