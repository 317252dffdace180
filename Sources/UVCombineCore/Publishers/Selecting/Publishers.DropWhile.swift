extension Publisher {
    /// Omits elements from the upstream publisher until a given closure
    /// returns `false`, before republishing all remaining elements.
    ///
    /// Once the closure has returned `false` it is not called again. Each
    /// omitted element is answered with `.max(1)` upstream, so downstream
    /// demand counts delivered elements only.
    ///
    /// ```swift
    /// let c = [-1, -2, 3, -4].publisher.drop { $0 < 0 }.sink { print($0) }
    /// // Prints: "3 -4"
    /// ```
    @inlinable
    public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
        Publishers.DropWhile(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Drops the value if it satisfies `predicate`, at once, as Combine does
    /// for `Just`.
    ///
    /// ```swift
    /// Just(1).drop { $0 < 3 } // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? nil : output)
    }
}

extension Optional.Publisher {
    /// Drops the value, if any, if it satisfies `predicate`, at once.
    ///
    /// ```swift
    /// Optional(5).publisher.drop { $0 < 3 } // Optional(5).publisher
    /// ```
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }
}

extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a
    /// given closure returns `false`.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `DropWhile`.
    ///
    /// ```swift
    /// let body = Publishers.DropWhile(upstream: lines.publisher) { $0.isEmpty }
    /// ```
    public struct DropWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that indicates whether to drop the element.
        public let predicate: (Output) -> Bool

        /// Creates a publisher that drops `upstream`'s elements while
        /// `predicate` holds.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `DropWhile` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber,
                                                            logic: Logic(predicate: predicate), initial: true))
        }
    }
}

extension Publishers.DropWhile {
    /// Drops while the predicate holds, then publishes everything.
    @usableFromInline
    internal struct Logic: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        /// Still dropping.
        @usableFromInline typealias State = Bool
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "DropWhile" }

        @inlinable
        static var rules: FilterRules { .gated }

        @inlinable
        func mirrorChildren(downstream: Any, state _: State) -> [Mirror.Child] {
            []
        }

        @inlinable
        func step(_ dropping: inout Bool, _ input: Upstream.Output) -> FilterStep<Upstream.Failure> {
            guard dropping else { return .publish }
            if predicate(input) { return .drop }
            dropping = false
            return .publish
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
