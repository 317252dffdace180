extension Publisher {
    /// Publishes the first element of a stream to satisfy an error-throwing
    /// predicate closure, then finishes.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise it behaves as
    /// `first(where:)`.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [1, 3, 4].publisher
    ///     .tryFirst { v in guard v > 0 else { throw Bad() }; return v % 2 == 0 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "4 finished"
    /// ```
    @inlinable
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
        Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that only publishes the first element of a stream to
    /// satisfy a throwing predicate closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryFirstWhere`.
    ///
    /// ```swift
    /// let header = Publishers.TryFirstWhere(upstream: lines.publisher) { try isHeader($0) }
    /// ```
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to publish an
        /// element.
        public let predicate: (Output) throws -> Bool

        /// Creates a publisher of the first element of `upstream` that
        /// satisfies `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryFirstWhere` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: nil))
        }
    }
}

extension Publishers.TryFirstWhere {
    /// Keeps the first matching element and stops; a thrown error fails.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Upstream.Output?
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "TryFirstWhere" }

        @inlinable
        func reduce(_ first: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<any Error> {
            do {
                guard try predicate(input) else { return .more }
            } catch {
                return .fail(error)
            }
            first = input
            return .done
        }

        @inlinable
        func result(_ first: Upstream.Output?) -> Upstream.Output? { first }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
