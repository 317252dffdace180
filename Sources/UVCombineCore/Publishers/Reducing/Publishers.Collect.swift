extension Publisher {
    /// Collects all received elements, and emits a single array of the
    /// collection when the upstream publisher finishes.
    ///
    /// Requests `.unlimited` from the upstream. When it finishes, the array
    /// waits for the downstream's first request; `.finished` follows it. An
    /// empty upstream publishes `[]`. On failure the collected elements are
    /// discarded and the failure is published. Memory grows with the number
    /// of elements: prefer `collect(_:)` for unbounded streams.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher.collect().sink { print($0) }
    /// // Prints: "[1, 2, 3]"
    /// ```
    @inlinable
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}

extension Just {
    /// Collects the value into an array at once, as Combine does for `Just`.
    ///
    /// ```swift
    /// Just(1).collect() // Just([1])
    /// ```
    @inlinable
    public func collect() -> Just<[Output]> {
        Just<[Output]>([output])
    }
}

extension Optional.Publisher {
    /// Collects the value, if any, into an array at once (`[]` for `nil`).
    ///
    /// ```swift
    /// Optional<Int>.none.publisher.collect() // Optional([]).publisher
    /// ```
    @inlinable
    public func collect() -> Optional<[Output]>.Publisher {
        Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
    }
}

extension Publishers {
    /// A publisher that buffers items.
    ///
    /// Threading: the array is delivered on the thread that delivers the
    /// upstream's completion, or on the requesting thread if the request
    /// comes later. Elements are appended in place (the array is never
    /// copied). The subscription describes itself as `Collect`.
    ///
    /// ```swift
    /// let all = Publishers.Collect(upstream: [1, 2].publisher)
    /// ```
    public struct Collect<Upstream: Publisher>: Publisher {
        /// An array of the upstream's elements.
        public typealias Output = [Upstream.Output]
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that collects every element of `upstream`.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes a `Collect` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(), initial: []))
        }
    }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {}

extension Publishers.Collect {
    /// Appends every element.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = [Upstream.Output]
        @usableFromInline typealias Output = [Upstream.Output]
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @inlinable
        init() {}

        @inlinable
        static var name: String { "Collect" }

        @inlinable
        func reduce(_ all: inout [Upstream.Output], _ input: Upstream.Output) -> ReductionStep<Upstream.Failure> {
            all.append(input)
            return .more
        }

        @inlinable
        func result(_ all: [Upstream.Output]) -> [Upstream.Output]? { all }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }

        /// Combine's `Collect` reflects only the number collected so far.
        @inlinable
        func reflectedCount(_ all: [Upstream.Output]?) -> Int? { all?.count ?? 0 }
    }
}
