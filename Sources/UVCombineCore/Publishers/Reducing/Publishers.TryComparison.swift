extension Publisher {
    /// Publishes the minimum value received from the upstream publisher,
    /// using the provided error-throwing ordering closure.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise as `min(by:)`.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [3, 1, 2].publisher
    ///     .tryMin { a, b in guard a >= 0, b >= 0 else { throw Bad() }; return a < b }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "1 finished"
    /// ```
    @inlinable
    public func tryMin(
        by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
    ) -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self) { try areInIncreasingOrder($1, $0) }
    }

    /// Publishes the maximum value received from the upstream publisher,
    /// using the provided error-throwing ordering closure.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise as `max(by:)`.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [3, 1, 2].publisher
    ///     .tryMax { a, b in guard a >= 0, b >= 0 else { throw Bad() }; return a < b }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "3 finished"
    /// ```
    @inlinable
    public func tryMax(
        by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
    ) -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

extension Publishers {
    /// A publisher that publishes the greatest element of its upstream under
    /// an error-throwing ordering, when the upstream finishes.
    ///
    /// `tryMin` stores the ordering reversed. Threading: the closure runs
    /// on the thread the upstream delivers on, outside any lock. The
    /// subscription describes itself as `TryComparison`.
    ///
    /// ```swift
    /// let largest = Publishers.TryComparison(upstream: rows.publisher) { try order($0, $1) }
    /// ```
    public struct TryComparison<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns `true` if they
        /// are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a publisher of the greatest element of `upstream` under
        /// `areInIncreasingOrder`.
        @inlinable
        public init(upstream: Upstream,
                    areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Subscribes a `TryComparison` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: ReducerSubscription(
                downstream: subscriber, logic: Logic(areInIncreasingOrder: areInIncreasingOrder), initial: nil))
        }
    }
}

extension Publishers.TryComparison {
    /// Keeps the greatest element so far; a thrown error fails.
    @usableFromInline
    internal struct Logic: Reduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Accumulator = Upstream.Output?
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        @inlinable
        init(areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable
        static var name: String { "TryComparison" }

        @inlinable
        func reduce(_ best: inout Upstream.Output?, _ input: Upstream.Output) -> ReductionStep<any Error> {
            guard let current = best else {
                best = input
                return .more
            }
            do {
                if try areInIncreasingOrder(current, input) { best = input }
            } catch {
                return .fail(error)
            }
            return .more
        }

        @inlinable
        func result(_ best: Upstream.Output?) -> Upstream.Output? { best }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
