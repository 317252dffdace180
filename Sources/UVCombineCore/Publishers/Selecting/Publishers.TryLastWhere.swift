extension Publisher {
    /// Publishes the last element of a stream that satisfies an
    /// error-throwing predicate closure, after the stream finishes.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise it behaves as `last(where:)`.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [2, 4, 5].publisher
    ///     .tryLast { v in guard v > 0 else { throw Bad() }; return v % 2 == 0 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "4 finished"
    /// ```
    @inlinable
    public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
        Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that waits until after the stream finishes and then
    /// publishes the last element of the stream that satisfies an
    /// error-throwing predicate closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryLastWhere`.
    ///
    /// ```swift
    /// let footer = Publishers.TryLastWhere(upstream: lines.publisher) { try isFooter($0) }
    /// ```
    public struct TryLastWhere<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to publish an
        /// element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher of the last element of `upstream` that
        /// satisfies `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryLastWhere` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: nil))
        }
    }
}

extension Publishers.TryLastWhere {
    /// Remembers the latest matching element; a thrown error fails.
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
        static var name: String { "TryLastWhere" }

        @inlinable
        func reduce(_ last: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<any Error> {
            do {
                if try predicate(input) { last = input }
            } catch {
                return .fail(error)
            }
            return .more
        }

        @inlinable
        func result(_ last: Upstream.Output?) -> Upstream.Output? { last }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
