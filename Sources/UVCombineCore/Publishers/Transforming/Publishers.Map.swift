extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided
    /// closure.
    ///
    /// Stateless: the subscription is passed through, so `map` adds no
    /// allocation when subscribing and none per element.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher.map { $0 * 10 }.sink { print($0) }
    /// // Prints: "10 20 30"
    /// ```
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher
    /// with a provided closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on.
    ///
    /// ```swift
    /// let map = Publishers.Map(upstream: Just(1)) { $0 + 1 }
    /// ```
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) -> Output

        /// Creates a map over `upstream`.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: MapInner<Upstream.Output, S>(downstream: subscriber, transform: transform))
        }

        /// Fuses `map` after `map` into one stage.
        ///
        /// ```swift
        /// Just(1).map { $0 + 1 }.map { $0 * 2 } // one Map
        /// ```
        @inlinable
        public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
            let first = self.transform
            return Publishers.Map(upstream: upstream) { transform(first($0)) }
        }
    }
}

/// Applies the transform and forwards; the upstream subscription goes
/// straight to the downstream. A struct: subscribing allocates nothing.
///
/// Top level and generic only over what it touches (not nested in
/// `Publishers.Map<Upstream, Output>`), which keeps a pipeline's specialised
/// type names linear in its length. (What actually broke specialisation was
/// the `subscribe` recursion described in docs/engineering-notes.md; nesting
/// alone measured the same.)
@usableFromInline
internal struct MapInner<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let transform: (Input) -> Downstream.Input
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.transform = transform
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(transform(input))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "Map" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
