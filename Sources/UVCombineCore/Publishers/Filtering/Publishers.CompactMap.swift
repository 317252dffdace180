extension Publisher {
    /// Calls a closure with each received element and publishes any returned
    /// optional that has a value.
    ///
    /// Each element the closure maps to `nil` is answered with `.max(1)`
    /// upstream, so the downstream's demand counts delivered elements only.
    /// Stateless: the subscription is passed through, so `compactMap` adds no
    /// allocation when subscribing and none per element.
    ///
    /// ```swift
    /// let c = ["1", "x", "3"].publisher.compactMap { Int($0) }.sink { print($0) }
    /// // Prints: "1 3"
    /// ```
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that republishes all non-`nil` results of calling a
    /// closure with each received element.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on.
    ///
    /// ```swift
    /// let numbers = Publishers.CompactMap(upstream: ["1", "x"].publisher) { Int($0) }
    /// ```
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that receives values from the upstream publisher and
        /// returns optional values.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a compact map over `upstream`.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }

        /// Fuses `compactMap` after `compactMap` into one stage.
        ///
        /// ```swift
        /// ["1", "x"].publisher.compactMap { Int($0) }.compactMap { $0 > 0 ? $0 : nil } // one CompactMap
        /// ```
        @inlinable
        public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Upstream, T> {
            let first = self.transform
            return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
        }

        /// Fuses `map` after `compactMap` into one stage.
        ///
        /// ```swift
        /// ["1", "x"].publisher.compactMap { Int($0) }.map { $0 * 2 } // one CompactMap
        /// ```
        @inlinable
        public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
            let first = self.transform
            return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
        }
    }
}

extension Publishers.CompactMap {
    /// Forwards non-`nil` results; the subscription goes straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Output) -> Output?
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let output = transform(input) else { return .max(1) }
            return downstream.receive(output)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline var description: String { "CompactMap" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
