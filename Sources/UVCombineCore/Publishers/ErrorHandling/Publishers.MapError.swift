extension Publisher {
    /// Converts any failure from the upstream publisher into a new error.
    ///
    /// Values pass unchanged. Stateless: the subscription is passed through,
    /// so `mapError` adds no allocation when subscribing and none per element.
    ///
    /// ```swift
    /// enum LowLevel: Error { case eof }
    /// enum AppError: Error { case io(LowLevel) }
    /// let c = Fail<Int, LowLevel>(error: .eof)
    ///     .mapError { AppError.io($0) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })
    /// // Prints: "failure(io(eof))"
    /// ```
    @inlinable
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform)
    }
}

extension Publishers {
    /// A publisher that converts any failure from the upstream publisher into
    /// a new error.
    ///
    /// Threading: the closure runs on the thread the upstream completes on.
    ///
    /// ```swift
    /// let typed = Publishers.MapError(upstream: Fail<Int, LowLevel>(error: .eof), { AppError.io($0) })
    /// ```
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that converts the upstream failure into a new error.
        public let transform: (Upstream.Failure) -> Failure

        /// Creates a publisher that converts the failures of `upstream`.
        @inlinable
        public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = map
        }

        /// Creates a publisher that converts the failures of `upstream`.
        ///
        /// ```swift
        /// let typed = Publishers.MapError(upstream: Fail<Int, LowLevel>(error: .eof), transform: { AppError.io($0) })
        /// ```
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.MapError {
    /// Converts the failure; values and the subscription go straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Failure) -> Downstream.Failure
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(downstream: Downstream, transform: @escaping (Upstream.Failure) -> Downstream.Failure) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion.mapError(transform))
        }

        @usableFromInline var description: String { "MapError" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Just {
    /// `Just` never fails: only the failure type changes, as in Combine.
    ///
    /// ```swift
    /// let typed: Result<Int, LowLevel>.Publisher = Just(1).mapError { _ -> LowLevel in }
    /// ```
    @inlinable
    public func mapError<E: Error>(_ transform: (Never) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(output)
    }
}
