extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies
    /// the throwing predicate closure.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error at once. Otherwise it behaves as
    /// `contains(where:)`.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [1, -1, 4].publisher
    ///     .tryContains { v in guard v >= 0 else { throw Bad() }; return v > 3 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "failure(Bad())"
    /// ```
    @inlinable
    public func tryContains(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryContainsWhere<Self> {
        Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Tests the value at once with a throwing predicate, as Combine does for
    /// `Just`: the result publishes the answer or the error.
    ///
    /// ```swift
    /// Just(2).tryContains { try check($0) }
    /// ```
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try predicate(output) })
    }
}

extension Publishers {
    /// A publisher that emits a Boolean value upon receiving an element
    /// that satisfies the throwing predicate closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryContainsWhere`.
    ///
    /// ```swift
    /// let anyBad = Publishers.TryContainsWhere(upstream: rows.publisher) { try isCorrupt($0) }
    /// ```
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether a matching element was seen.
        public typealias Output = Bool
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether this publisher
        /// should emit a `true` element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that looks for an element of `upstream`
        /// satisfying `predicate`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryContainsWhere` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == any Error {
            upstream.receive(subscriber: ReducerSubscription(downstream: subscriber, logic: Logic(predicate: predicate),
                                                             initial: false))
        }
    }
}

extension Publishers.TryContainsWhere {
    /// Stops at the first matching element; a thrown error fails.
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
        static var name: String { "TryContainsWhere" }

        @inlinable
        func reduce(_ found: inout Bool, _ input: Upstream.Output) -> ReductionStep<any Error> {
            do {
                guard try predicate(input) else { return .more }
            } catch {
                return .fail(error)
            }
            found = true
            return .done
        }

        @inlinable
        func result(_ found: Bool) -> Bool? { found }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
