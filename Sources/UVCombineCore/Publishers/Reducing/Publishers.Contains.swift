extension Publisher where Output: Equatable {
    /// Publishes a Boolean value upon receiving an element equal to the
    /// argument.
    ///
    /// Requests `.unlimited` from the upstream and cancels it as soon as a
    /// match arrives, publishing `true`; if the upstream finishes without
    /// one, publishes `false`. The answer waits for the downstream's first
    /// request; `.finished` follows it.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher.contains(2).sink { print($0) }
    /// // Prints: "true"
    /// ```
    @inlinable
    public func contains(_ output: Output) -> Publishers.Contains<Self> {
        Publishers.Contains(upstream: self, output: output)
    }
}

extension Just where Output: Equatable {
    /// Compares the value at once, as Combine does for `Just`.
    ///
    /// ```swift
    /// Just(1).contains(1) // Just(true)
    /// ```
    @inlinable
    public func contains(_ output: Output) -> Just<Bool> {
        Just<Bool>(self.output == output)
    }
}

extension Optional.Publisher where Wrapped: Equatable {
    /// Compares the value, if any, at once; `nil` publishes nothing, as in
    /// Combine.
    ///
    /// ```swift
    /// Optional(1).publisher.contains(2) // Optional(false).publisher
    /// ```
    @inlinable
    public func contains(_ output: Output) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }
}

extension Publishers {
    /// A publisher that emits a Boolean value when a specified element is
    /// received from its upstream publisher.
    ///
    /// Threading: the answer is delivered on the upstream's thread, or on
    /// the requesting thread if the request comes later. The subscription
    /// describes itself as `Contains`.
    ///
    /// ```swift
    /// let hasTwo = Publishers.Contains(upstream: [1, 2].publisher, output: 2)
    /// ```
    public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
        /// Whether the element was seen.
        public typealias Output = Bool
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The element to scan for in the upstream publisher.
        public let output: Upstream.Output

        /// Creates a publisher that looks for `output` in `upstream`.
        @inlinable
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Subscribes a `Contains` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(output: output),
                                                             initial: false))
        }
    }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}

extension Publishers.Contains {
    /// Stops at the first equal element.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Bool
        @usableFromInline typealias Output = Bool
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let output: Upstream.Output

        @inlinable
        init(output: Upstream.Output) {
            self.output = output
        }

        @inlinable
        static var name: String { "Contains" }

        @inlinable
        func reduce(_ found: inout Bool, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            guard input == output else { return .more }
            found = true
            return .done
        }

        @inlinable
        func result(_ found: Bool) -> Bool? { found }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
