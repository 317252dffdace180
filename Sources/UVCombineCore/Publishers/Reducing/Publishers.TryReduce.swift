extension Publisher {
    /// Applies an error-throwing closure that collects each element of a
    /// stream and publishes a final result upon completion.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise it behaves as `reduce`.
    ///
    /// ```swift
    /// struct Overflow: Error {}
    /// let c = [1, 2, 3].publisher
    ///     .tryReduce(0) { sum, v in guard sum + v < 5 else { throw Overflow() }; return sum + v }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "failure(Overflow())"
    /// ```
    @inlinable
    public func tryReduce<T>(_ initialResult: T,
                             _ nextPartialResult: @escaping (T, Output) throws -> T) -> Publishers.TryReduce<Self, T> {
        Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Just {
    /// Applies the throwing closure to the value at once, as Combine does for
    /// `Just`: the result publishes the value or the error.
    ///
    /// ```swift
    /// Just(2).tryReduce(10) { try add($0, $1) }
    /// ```
    @inlinable
    public func tryReduce<T>(_ initialResult: T,
                             _ nextPartialResult: (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }
}

extension Publishers {
    /// A publisher that applies an error-throwing closure to all received
    /// elements and produces an accumulated value when the upstream
    /// publisher finishes.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `TryReduce`.
    ///
    /// ```swift
    /// let total = Publishers.TryReduce(upstream: amounts.publisher, initial: 0) { try add($0, $1) }
    /// ```
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's, or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on the first invocation of the
        /// closure.
        public let initial: Output

        /// An error-throwing closure that takes the previously-accumulated
        /// value and the next element from the upstream to produce a new
        /// value.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a throwing reduction of `upstream` starting at `initial`.
        @inlinable
        public init(upstream: Upstream, initial: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Subscribes a `TryReduce` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber,
                                                             logic: Logic(nextPartialResult: nextPartialResult),
                                                             initial: initial))
        }
    }
}

extension Publishers.TryReduce {
    /// Folds every element into the accumulator; a thrown error fails.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let nextPartialResult: (Output, Upstream.Output) throws -> Output

        @inlinable
        init(nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        static var name: String { "TryReduce" }

        @inlinable
        func reduce(_ accumulator: inout Output, _ input: Upstream.Output) -> ReductionStep<any Error> {
            do {
                accumulator = try nextPartialResult(accumulator, input)
            } catch {
                return .fail(error)
            }
            return .more
        }

        @inlinable
        func result(_ accumulator: Output) -> Output? { accumulator }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
