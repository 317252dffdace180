extension Publisher {
    /// Publishes a single Boolean value that indicates whether all received
    /// elements pass a given error-throwing predicate.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise it behaves as `allSatisfy`.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [2, 4].publisher
    ///     .tryAllSatisfy { v in guard v >= 0 else { throw Bad() }; return v % 2 == 0 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "true finished"
    /// ```
    @inlinable
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
        Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Tests the value at once with a throwing predicate, as Combine does for
    /// `Just`: the result publishes the answer or the error.
    ///
    /// ```swift
    /// Just(2).tryAllSatisfy { try check($0) }
    /// ```
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try predicate(output) })
    }
}

extension Publishers {
    /// A publisher that publishes a single Boolean value that indicates
    /// whether all received elements pass a given error-throwing predicate.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryAllSatisfy`.
    ///
    /// ```swift
    /// let allValid = Publishers.TryAllSatisfy(upstream: rows.publisher) { try validate($0) }
    /// ```
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every element passed.
        public typealias Output = Bool
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that tests every element of `upstream`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryAllSatisfy` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == any Error {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: true))
        }
    }
}

extension Publishers.TryAllSatisfy {
    /// Stops at the first element that fails; a thrown error fails.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Bool
        @usableFromInline typealias Output = Bool
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "TryAllSatisfy" }

        @inlinable
        func reduce(_ all: inout Bool, _ input: Upstream.Output) -> ReductionStep<any Error> {
            do {
                guard try !predicate(input) else { return .more }
            } catch {
                return .fail(error)
            }
            all = false
            return .done
        }

        @inlinable
        func result(_ all: Bool) -> Bool? { all }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
