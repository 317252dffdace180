extension Publisher where Failure == Never {
    /// Changes the failure type declared by the upstream publisher.
    ///
    /// The upstream never fails, so nothing changes at run time: values, the
    /// finish and the subscription pass straight through. Use it to match
    /// the failure type of another publisher, e.g. before `flatMap` or
    /// `combineLatest`.
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, Never>()
    /// let typed: Publishers.SetFailureType<PassthroughSubject<Int, Never>, URLError> =
    ///     subject.setFailureType(to: URLError.self)
    /// ```
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}

extension Publishers {
    /// A publisher that appears to send a specified failure type.
    ///
    /// The publisher cannot actually fail with that type; it forwards the
    /// upstream's values and its `.finished`.
    ///
    /// ```swift
    /// let typed = Publishers.SetFailureType<PassthroughSubject<Int, Never>, URLError>(upstream: subject)
    /// ```
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The upstream's output type.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that appears to send `Failure`.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }

        /// Replaces the failure type again, in one stage.
        ///
        /// ```swift
        /// subject.setFailureType(to: URLError.self).setFailureType(to: (any Error).self) // one SetFailureType
        /// ```
        @inlinable
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType {
    /// Forwards everything; the subscription goes straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Never

        @usableFromInline let downstream: Downstream
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
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
        func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: .finished)
        }

        @usableFromInline var description: String { "SetFailureType" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
