extension Publisher {
    /// Publishes only elements that don't match the previous element, as
    /// evaluated by a provided error-throwing closure.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error.
    ///
    /// ```swift
    /// struct Incomparable: Error {}
    /// let c = [1, 1, 2, -1].publisher
    ///     .tryRemoveDuplicates { a, b in guard b >= 0 else { throw Incomparable() }; return a == b }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "1 2 failure(Incomparable())"
    /// ```
    @inlinable
    public func tryRemoveDuplicates(
        by predicate: @escaping (Output, Output) throws -> Bool
    ) -> Publishers.TryRemoveDuplicates<Self> {
        Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Checks the value against itself with the throwing predicate at once,
    /// as Combine does for `Just`: the result publishes the value, or the error
    /// if the predicate throws.
    ///
    /// ```swift
    /// Just(1).tryRemoveDuplicates { try same($0, $1) }
    /// ```
    @inlinable
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher {
        Result<Output, any Error>.Publisher(Result { _ = try predicate(output, output); return output })
    }
}

extension Publishers {
    /// A publisher that publishes only elements that don't match the
    /// previous element, as evaluated by a provided error-throwing closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryRemoveDuplicates`.
    ///
    /// ```swift
    /// let changes = Publishers.TryRemoveDuplicates(upstream: readings.publisher) { try same($0, $1) }
    /// ```
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure to evaluate whether two elements are
        /// equivalent, for purposes of filtering.
        public let predicate: (Output, Output) throws -> Bool

        /// Creates a publisher that drops elements `predicate` finds equal
        /// to their predecessor.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output, Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryRemoveDuplicates` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber,
                                                            logic: Logic(predicate: predicate), initial: nil))
        }
    }
}

extension Publishers.TryRemoveDuplicates {
    /// Compares each element with the previous one; a thrown error fails.
    @usableFromInline
    internal struct Logic: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        /// The previous element.
        @usableFromInline typealias State = Upstream.Output?
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "TryRemoveDuplicates" }

        @inlinable
        static var rules: FilterRules { .strict }

        @inlinable
        func mirrorChildren(downstream: Any, state: State) -> [Mirror.Child] {
            [("downstream", downstream), ("last", state as Any)]
        }

        @inlinable
        func step(_ previous: inout Upstream.Output?, _ input: Upstream.Output) -> FilterStep<any Error> {
            defer { previous = input }
            guard let last = previous else { return .publish }
            do {
                return try predicate(last, input) ? .drop : .publish
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
