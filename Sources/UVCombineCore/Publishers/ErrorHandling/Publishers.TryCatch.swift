extension Publisher {
    /// Handles errors from an upstream publisher by either replacing it with
    /// another publisher or throwing a new error.
    ///
    /// Like ``catch(_:)``: on failure the handler's publisher is subscribed
    /// and receives the demand not yet satisfied. If the handler throws, the
    /// thrown error fails the downstream. The failure type becomes `any Error`.
    ///
    /// ```swift
    /// enum SimpleError: Error { case recoverable, fatal }
    /// let c = Fail<Int, SimpleError>(error: .recoverable)
    ///     .tryCatch { error -> Just<Int> in
    ///         guard error == .recoverable else { throw error }
    ///         return Just(0)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "0", "finished"
    /// ```
    @inlinable
    public func tryCatch<NewPublisher: Publisher>(
        _ handler: @escaping (Failure) throws -> NewPublisher
    ) -> Publishers.TryCatch<Self, NewPublisher> where NewPublisher.Output == Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that handles errors from an upstream publisher by
    /// replacing the failed publisher with another publisher or producing a
    /// new error.
    ///
    /// Its failure type is `any Error`: the handler may throw, and the
    /// replacement's failures are passed on as they are.
    ///
    /// Threading: the handler runs on the thread the upstream fails on;
    /// `request` and `cancel` may come from any thread.
    ///
    /// ```swift
    /// let recovered = Publishers.TryCatch(upstream: failing) { _ in Just(0) }
    /// ```
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
        where Upstream.Output == NewPublisher.Output
    {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: thrown by the handler or sent by the replacement.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that accepts the upstream failure as input and either
        /// returns a publisher to replace the upstream publisher or throws.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that replaces a failed `upstream` with the
        /// publisher `handler` returns, or fails with the error it throws.
        @inlinable
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            upstream.receive(subscriber: CatchInner<Self, S>(downstream: subscriber, handler: handler).upstreamSide)
        }
    }
}

extension Publishers.TryCatch: CatchOperator {
    // The subscription is CatchInner (Internals/CatchInner.swift), shared
    // with `catch`; this says how `tryCatch` differs.

    @usableFromInline typealias Handler = (Upstream.Failure) throws -> NewPublisher

    @inlinable static var operatorName: StaticString { "TryCatch" }

    @inlinable
    static func replacement(
        for error: Upstream.Failure, from handler: Handler
    ) throws(Failure) -> NewPublisher {
        try handler(error)
    }

    @inlinable
    static func downstreamFailure(_ error: NewPublisher.Failure) -> Failure {
        error
    }
}
