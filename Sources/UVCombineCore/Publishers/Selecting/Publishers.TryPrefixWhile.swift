extension Publisher {
    /// Republishes elements while an error-throwing predicate closure
    /// indicates publishing should continue.
    ///
    /// When the predicate returns `false` the upstream is cancelled and the
    /// publisher finishes; when it throws, the upstream is cancelled and the
    /// publisher fails with the error.
    ///
    /// ```swift
    /// struct Negative: Error {}
    /// let c = [1, 2, -1, 3].publisher
    ///     .tryPrefix { v in guard v >= 0 else { throw Negative() }; return v < 10 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "1 2 failure(Negative())"
    /// ```
    @inlinable
    public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
        Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that republishes elements while an error-throwing
    /// predicate closure indicates publishing should continue.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `TryPrefixWhile`.
    ///
    /// ```swift
    /// let valid = Publishers.TryPrefixWhile(upstream: lines.publisher) { try isHeader($0) }
    /// ```
    public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to continue
        /// republishing.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes `upstream`'s elements while
        /// `predicate` holds.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `TryPrefixWhile` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber,
                                                            logic: Logic(predicate: predicate), initial: ()))
        }
    }
}

extension Publishers.TryPrefixWhile {
    /// Publishes while the predicate holds; a thrown error fails.
    @usableFromInline
    internal struct Logic: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias State = Void
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = any Error

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "TryPrefixWhile" }

        @inlinable
        static var rules: FilterRules { .strict }

        @inlinable
        func mirrorChildren(downstream: Any, state _: State) -> [Mirror.Child] {
            [("downstream", downstream)]
        }

        @inlinable
        func step(_ state: inout Void, _ input: Upstream.Output) -> FilterStep<any Error> {
            do {
                return try predicate(input) ? .publish : .finish
            } catch {
                return .fail(error)
            }
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> any Error { error }
    }
}
