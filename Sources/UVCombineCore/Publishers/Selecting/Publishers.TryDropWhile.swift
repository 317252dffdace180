extension Publisher {
    /// Omits elements from the upstream publisher until an error-throwing
    /// closure returns `false`, before republishing all remaining elements.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher
    /// fails with the error.
    ///
    /// ```swift
    /// struct Bad: Error {}
    /// let c = [0, 0, 1, 2].publisher
    ///     .tryDrop { v in guard v >= 0 else { throw Bad() }; return v == 0 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "1 2 finished"
    /// ```
    @inlinable
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
        Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a
    /// given error-throwing closure returns `false`.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryDropWhile`.
    ///
    /// ```swift
    /// let body = Publishers.TryDropWhile(upstream: lines.publisher) { try isHeader($0) }
    /// ```
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that indicates whether to drop the
        /// element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that drops `upstream`'s elements while
        /// `predicate` holds.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryDropWhile` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber,
                                                            logic: Logic(predicate: predicate), initial: true))
        }
    }
}

extension Publishers.TryDropWhile {
    /// Drops while the predicate holds; a thrown error fails.
    @usableFromInline
    internal struct Logic: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        /// Still dropping.
        @usableFromInline typealias State = Bool
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "TryDropWhile" }

        @inlinable
        static var rules: FilterRules { .gated }

        @inlinable
        func mirrorChildren(downstream: Any, state _: State) -> [Mirror.Child] {
            []
        }

        @inlinable
        func step(_ dropping: inout Bool, _ input: Upstream.Output) -> FilterStep<any Error> {
            guard dropping else { return .publish }
            do {
                if try predicate(input) { return .drop }
            } catch {
                return .fail(error)
            }
            dropping = false
            return .publish
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
