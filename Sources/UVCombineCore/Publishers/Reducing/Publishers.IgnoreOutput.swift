extension Publisher {
    /// Ignores all upstream elements, but passes along the upstream
    /// publisher's completion state (finished or failed).
    ///
    /// Requests `.unlimited` from the upstream (the elements cost the
    /// downstream nothing). Stateless: the subscription is passed through,
    /// so cancelling reaches the upstream directly.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher.ignoreOutput()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })
    /// // Prints: "finished"
    /// ```
    @inlinable
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}

extension Just {
    /// Only the completion remains: an `Empty` publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).ignoreOutput() // Empty<Int, Never>()
    /// ```
    @inlinable
    public func ignoreOutput() -> Empty<Output, Never> {
        Empty<Output, Never>()
    }
}

extension Optional.Publisher {
    /// Only the completion remains: an `Empty` publisher, as in Combine.
    ///
    /// ```swift
    /// Optional(1).publisher.ignoreOutput() // Empty<Int, Never>()
    /// ```
    @inlinable
    public func ignoreOutput() -> Empty<Output, Never> {
        Empty<Output, Never>()
    }
}

extension Publishers {
    /// A publisher that ignores all upstream elements, but passes along the
    /// upstream publisher's completion state (finished or failed).
    ///
    /// Threading: the completion passes on the upstream's thread.
    ///
    /// ```swift
    /// let done = Publishers.IgnoreOutput(upstream: [1, 2].publisher)
    /// ```
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// No element is ever published.
        public typealias Output = Never
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that keeps only the completion of `upstream`.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == Failure {
            upstream.receive(subscriber: IgnoreOutputInner<Upstream.Output, S>(downstream: subscriber))
        }
    }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

/// Drops every value and forwards the completion; the subscription goes
/// straight to the downstream, then `.unlimited` is requested from it.
/// Top level for the reason given on `MapInner`.
@usableFromInline
internal struct IgnoreOutputInner<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible where Downstream.Input == Never
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream) {
        self.downstream = downstream
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "IgnoreOutput" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
