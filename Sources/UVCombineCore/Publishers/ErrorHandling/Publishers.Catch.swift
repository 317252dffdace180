extension Publisher {
    /// Handles errors from an upstream publisher by replacing it with another
    /// publisher.
    ///
    /// Until the upstream fails, `request` and `cancel` go to the upstream.
    /// On failure, the handler's publisher is subscribed and receives the
    /// demand the downstream had requested and not yet received; its
    /// elements and completion then go downstream. A `.finished` upstream
    /// finishes downstream without calling the handler.
    ///
    /// ```swift
    /// struct SimpleError: Error {}
    /// let c = Fail<Int, SimpleError>(error: SimpleError())
    ///     .catch { _ in Just(-1) }
    ///     .sink { print($0) }
    /// // Prints: "-1"
    /// ```
    @inlinable
    public func `catch`<NewPublisher: Publisher>(
        _ handler: @escaping (Failure) -> NewPublisher
    ) -> Publishers.Catch<Self, NewPublisher> where NewPublisher.Output == Output {
        Publishers.Catch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that handles errors from an upstream publisher by
    /// replacing the failed publisher with another publisher.
    ///
    /// Threading: the handler runs on the thread the upstream fails on;
    /// `request` and `cancel` may come from any thread.
    ///
    /// ```swift
    /// let recovered = Publishers.Catch(upstream: failing) { _ in Just(0) }
    /// ```
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
        where Upstream.Output == NewPublisher.Output
    {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The replacement's failure type.
        public typealias Failure = NewPublisher.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that accepts the upstream failure as input and returns a
        /// publisher to replace the upstream publisher.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that replaces a failed `upstream` with the
        /// publisher `handler` returns.
        @inlinable
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
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

extension Publishers.Catch: CatchOperator {
    // The subscription is CatchInner (Internals/CatchInner.swift), shared
    // with `tryCatch`; this says how `catch` differs.

    @usableFromInline typealias Handler = (Upstream.Failure) -> NewPublisher

    @inlinable static var operatorName: StaticString { "Catch" }

    @inlinable
    static func replacement(
        for error: Upstream.Failure, from handler: Handler
    ) throws(Failure) -> NewPublisher {
        handler(error)
    }

    @inlinable
    static func downstreamFailure(_ error: NewPublisher.Failure) -> Failure {
        error
    }
}
