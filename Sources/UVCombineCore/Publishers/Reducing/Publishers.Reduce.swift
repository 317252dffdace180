extension Publisher {
    /// Applies a closure that collects each element of a stream and
    /// publishes a final result upon completion.
    ///
    /// Requests `.unlimited` from the upstream. When it finishes, the result
    /// waits for the downstream's first request; `.finished` follows it. An
    /// empty upstream publishes `initialResult`. Each subscription starts
    /// again from `initialResult`.
    ///
    /// ```swift
    /// let c = (1...4).publisher.reduce(0, +).sink { print($0) }
    /// // Prints: "10"
    /// ```
    @inlinable
    public func reduce<T>(_ initialResult: T,
                          _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Reduce<Self, T> {
        Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Just {
    /// Applies the closure to the value at once, as Combine does for `Just`.
    ///
    /// ```swift
    /// Just(2).reduce(10, +) // publishes 12
    /// ```
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result<T, Never>.Publisher(nextPartialResult(initialResult, output))
    }
}

extension Optional.Publisher {
    /// Applies the closure to the value, if any, at once; `nil` stays `nil`,
    /// as in Combine.
    ///
    /// ```swift
    /// Optional(2).publisher.reduce(10, +) // Optional(12).publisher
    /// ```
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }
}

extension Publishers {
    /// A publisher that applies a closure to all received elements and
    /// produces an accumulated value when the upstream publisher finishes.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `Reduce`.
    ///
    /// ```swift
    /// let total = Publishers.Reduce(upstream: [1, 2].publisher, initial: 0) { $0 + $1 }
    /// ```
    public struct Reduce<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on the first invocation of the
        /// closure.
        public let initial: Output

        /// A closure that takes the previously-accumulated value and the
        /// next element from the upstream publisher to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a reduction of `upstream` starting at `initial`.
        @inlinable
        public init(upstream: Upstream, initial: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Subscribes a `Reduce` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber,
                                                             logic: Logic(nextPartialResult: nextPartialResult),
                                                             initial: initial))
        }
    }
}

extension Publishers.Reduce {
    /// Folds every element into the accumulator.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let nextPartialResult: (Output, Upstream.Output) -> Output

        @inlinable
        init(nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        static var name: String { "Reduce" }

        @inlinable
        func reduce(_ accumulator: inout Output, _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            accumulator = nextPartialResult(accumulator, input)
            return .more
        }

        @inlinable
        func result(_ accumulator: Output) -> Output? { accumulator }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
