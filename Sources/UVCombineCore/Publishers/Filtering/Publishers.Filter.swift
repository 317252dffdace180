extension Publisher {
    /// Republishes all elements that match a provided closure.
    ///
    /// Each rejected element is answered with `.max(1)` upstream, so the
    /// downstream's demand counts delivered elements only. Stateless: the
    /// subscription is passed through.
    ///
    /// ```swift
    /// let c = [1, 2, 3, 4].publisher.filter { $0 % 2 == 0 }.sink { print($0) }
    /// // Prints: "2 4"
    /// ```
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// A publisher that republishes all elements that match a provided
    /// closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on.
    ///
    /// ```swift
    /// let evens = Publishers.Filter(upstream: [1, 2].publisher) { $0 % 2 == 0 }
    /// ```
    public struct Filter<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that indicates whether to republish an element.
        public let isIncluded: (Upstream.Output) -> Bool

        /// Creates a filter over `upstream`.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FilterInner(downstream: subscriber, isIncluded: isIncluded))
        }

        /// Fuses `filter` after `filter` into one stage.
        ///
        /// ```swift
        /// [1, 2, 3].publisher.filter { $0 > 1 }.filter { $0 < 3 } // one Filter
        /// ```
        @inlinable
        public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
            let first = self.isIncluded
            return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
        }
    }
}

/// Forwards matching elements; the subscription goes straight through.
/// Top level for the reason given on `MapInner`.
@usableFromInline
internal struct FilterInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let isIncluded: (Downstream.Input) -> Bool
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, isIncluded: @escaping (Downstream.Input) -> Bool) {
        self.downstream = downstream
        self.isIncluded = isIncluded
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        isIncluded(input) ? downstream.receive(input) : .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "Filter" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
